"""The repository a working directory belongs to (nearest ancestor with ``.git``), cached per path."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=4096)
def repo_of(cwd: str | None) -> str | None:
    """The repository root holding ``cwd`` on this machine, or None (unknown or not a repository)."""
    if not cwd:
        return None
    try:
        path = Path(cwd)
        for candidate in (path, *path.parents):
            if (candidate / ".git").exists():
                return str(candidate)
    except OSError:
        return None
    return None
