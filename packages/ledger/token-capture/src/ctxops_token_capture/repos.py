"""The repository a transcript's working directory belongs to: the shared answer, cached per path."""

from __future__ import annotations

from functools import lru_cache

from ctxops_contracts.shared.repo import try_find_root


@lru_cache(maxsize=4096)
def repo_of(cwd: str | None) -> str | None:
    """The repository root holding ``cwd`` (symlinks resolved, as every line names it), or None."""
    if not cwd:
        return None
    return try_find_root(cwd)
