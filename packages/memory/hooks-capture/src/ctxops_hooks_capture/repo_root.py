# ruff: noqa: PTH100, PTH109, PTH110, PTH117, PTH118, PTH120
# os.path on the hook path: the capture command does without importing pathlib.
"""Find the repository root from a working directory, and express paths relative to it."""

from __future__ import annotations

import os

MARKERS = (".meta", ".git")


def find_root(cwd: str | None) -> str | None:
    """The nearest directory at or above ``cwd`` holding ``.meta`` or ``.git``; None when there is none.

    ``CTXOPS_ROOT`` overrides the search (tests, unusual layouts). Walking up costs a few ``stat`` calls,
    far cheaper than opening the repository with a git library.
    """
    override = os.environ.get("CTXOPS_ROOT")
    if override:
        return os.path.abspath(override)
    if not cwd:
        return None
    path = os.path.abspath(cwd)
    while True:
        if any(os.path.exists(os.path.join(path, marker)) for marker in MARKERS):
            return path
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent


def repo_relative(root: str | None, path: str, cwd: str | None = None) -> str:
    """``path`` relative to ``root`` with '/' separators; paths outside the repository stay absolute."""
    if not path:
        return path
    base = cwd or root or os.getcwd()
    absolute = os.path.normpath(path if os.path.isabs(path) else os.path.join(base, path))
    if root:
        rel = os.path.relpath(absolute, root)
        if rel != ".." and not rel.startswith(".." + os.sep):
            return rel.replace(os.sep, "/")
    return absolute.replace(os.sep, "/")
