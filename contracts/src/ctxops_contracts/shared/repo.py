"""The repository a command is about: one answer for every line.

The root is the nearest directory at or above the start that holds ``.git`` or ``.meta``, with symlinks
resolved once (``os.path.realpath``), so the memory line, the code map and the ledger name a symlinked
checkout the same way and core can join their records. ``$CTXOPS_ROOT`` overrides the search.

:func:`find_root` (every CLI's) also refuses a root whose ``.meta`` is a symlink, not a directory, or
another user's (``confine.UnsafePath``, a :class:`NotARepository`: one line, exit 2).
"""

from __future__ import annotations

import os

ROOT_ENV = "CTXOPS_ROOT"
MARKERS = (".git", ".meta")


class NotARepository(Exception):
    """No repository at or above the start directory (and no ``--root`` given)."""

    def __init__(self, message: str, fix: str) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix

    def __str__(self) -> str:
        return f"{self.message} ({self.fix})"


def try_find_root(start: str | os.PathLike[str] | None = None) -> str | None:
    """The real path of the repository holding ``start`` (default: the working directory), or None."""
    override = os.environ.get(ROOT_ENV)
    if override:
        return os.path.realpath(os.path.expanduser(override))
    try:
        path = os.path.realpath(os.fspath(start) if start is not None else os.getcwd())
    except (OSError, ValueError):
        return None
    while True:
        if any(os.path.exists(os.path.join(path, marker)) for marker in MARKERS):
            return path
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent


def find_root(start: str | os.PathLike[str] | None = None, *, explicit: str | os.PathLike[str] | None = None) -> str:
    """The repository root as a real path.

    ``explicit`` (a ``--root`` option) is taken as given, once it names an existing directory: a plain
    directory works there, deliberately. Otherwise the search of :func:`try_find_root` runs and a miss
    raises :class:`NotARepository` naming the fix (commands exit 2 on it).
    """
    if explicit is not None:
        given = os.path.expanduser(os.fspath(explicit))
        if not os.path.exists(given):
            raise NotARepository(f"--root {given}: no such directory", "pass an existing repository path")
        if not os.path.isdir(given):
            raise NotARepository(f"--root {given}: not a directory", "pass the repository directory, not a file")
        real = os.path.realpath(given)
        found = try_find_root(real) if not os.environ.get(ROOT_ENV) else None
        # --root inside a repository names that repository; a plain directory is its own root.
        return _checked(found if found is not None else real)
    root = try_find_root(start)
    if root is None:
        where = os.fspath(start) if start is not None else os.getcwd()
        raise NotARepository(
            f"{where} is not inside a repository (no .git or .meta above it)",
            "run the command inside a git repository, or pass --root DIR",
        )
    return _checked(root)


def _checked(root: str) -> str:
    """``root``, once its ``.meta`` (when there is one) is a real directory the current user owns."""
    from .confine import check_meta  # confine imports this module

    check_meta(root)
    return root


def repo_relative(root: str | None, path: str, cwd: str | None = None) -> str:
    """``path`` relative to ``root`` with '/' separators; paths outside the repository stay absolute.

    A relative ``path`` is taken from ``cwd`` (default: ``root``). Both sides are compared as real paths
    when they exist, so a path given through a symlinked checkout still lands inside the root.
    """
    if not path:
        return path
    base = cwd or root or os.getcwd()
    absolute = os.path.normpath(path if os.path.isabs(path) else os.path.join(base, path))
    if root:
        for candidate in (absolute, os.path.realpath(absolute)):
            rel = os.path.relpath(candidate, root)
            if rel != ".." and not rel.startswith(".." + os.sep):
                return rel.replace(os.sep, "/")
    return absolute.replace(os.sep, "/")
