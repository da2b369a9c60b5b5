"""Where the memory line keeps things under the repository's ``.meta/``."""

from __future__ import annotations

from pathlib import Path

from ctxops_contracts.shared.repo import try_find_root as find_root

MEMORY_DIR = Path(".meta") / "memory"
INDEX_DIR = Path(".meta") / "index"
CONFIG_FILE = Path(".meta") / "config.toml"


class NotARepository(RuntimeError):
    """No ``.git`` or ``.meta`` at or above the directory a command ran in."""


def repository_root(start: Path | str | None = None) -> Path:
    """The repository root at or above ``start`` (default: the current directory)."""
    found = find_root(str(start or Path.cwd()))
    if found is None:
        raise NotARepository(
            f"no .git or .meta at or above {start or Path.cwd()}; run inside a repository or pass --root"
        )
    return Path(found)
