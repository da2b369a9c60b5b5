"""Where the memory line keeps things under the repository's ``.meta/``."""

from __future__ import annotations

from pathlib import Path

from ctxops_contracts.shared.layout import CONFIG_FILE as _CONFIG
from ctxops_contracts.shared.layout import INDEX_DIR as _INDEX
from ctxops_contracts.shared.layout import MEMORY_DIR as _MEMORY
from ctxops_contracts.shared.layout import META_DIR
from ctxops_contracts.shared.layout import STATE_DIR as _STATE
from ctxops_contracts.shared.repo import NotARepository, find_root

MEMORY_DIR = Path(META_DIR) / _MEMORY
INDEX_DIR = Path(META_DIR) / _INDEX
STATE_DIR = Path(META_DIR) / _STATE
CONFIG_FILE = Path(META_DIR) / _CONFIG

__all__ = ["CONFIG_FILE", "INDEX_DIR", "MEMORY_DIR", "STATE_DIR", "NotARepository", "repository_root"]


def repository_root(start: Path | str | None = None, *, explicit: Path | str | None = None) -> Path:
    """The repository root (the shared answer of every line); raises ``NotARepository`` naming the fix."""
    return Path(find_root(start, explicit=explicit))
