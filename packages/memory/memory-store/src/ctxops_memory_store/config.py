"""The ``[memory]`` section of ``.meta/config.toml``."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from ctxops_contracts.shared.confine import read_config_text

from .layout import CONFIG_FILE


class ConfigError(ValueError):
    """``.meta/config.toml`` cannot be read; the message names the file and the problem."""


@dataclass(frozen=True)
class MemoryConfig:
    auto_accept: bool = False
    accept_corrections: bool = False  # a user's correction becomes an active lesson without review
    fold_threshold: float = 0.6
    vector_enabled: bool = False
    embedder: str = "hashing"
    vector_fold_threshold: float = 0.92
    on_conflict: str = "supersede"  # or "review": a likely conflict queues the newer entry as a candidate


def _choice(value: object, allowed: tuple[str, ...], key: str) -> str:
    if value not in allowed:
        raise ValueError(f"{key} = {value!r}; use one of {', '.join(allowed)}")
    return str(value)


def load_config(root: Path) -> MemoryConfig:
    """Settings from ``root/.meta/config.toml`` (defaults when the file or section is absent)."""
    path = root / CONFIG_FILE
    if not path.is_file():
        return MemoryConfig()
    try:
        data = tomllib.loads(read_config_text(str(path)))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as exc:
        raise ConfigError(f"{path}: {exc}") from None
    memory = data.get("memory", {})
    vector = memory.get("vector", {}) if isinstance(memory, dict) else {}
    if not isinstance(memory, dict) or not isinstance(vector, dict):
        raise ConfigError(f"{path}: [memory] and [memory.vector] must be tables")
    try:
        return MemoryConfig(
            auto_accept=bool(memory.get("auto_accept", False)),
            accept_corrections=bool(memory.get("accept_corrections", False)),
            fold_threshold=float(memory.get("fold_threshold", 0.6)),
            vector_enabled=bool(vector.get("enabled", False)),
            embedder=str(vector.get("embedder", "hashing")),
            vector_fold_threshold=float(vector.get("fold_threshold", 0.92)),
            on_conflict=_choice(memory.get("on_conflict", "supersede"), ("supersede", "review"), "on_conflict"),
        )
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{path}: bad value in [memory]: {exc}") from None
