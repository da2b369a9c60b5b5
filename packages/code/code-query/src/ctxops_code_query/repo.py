"""The repository a query is about: finding its root and keeping every path inside it."""

from __future__ import annotations

import os
from pathlib import Path

from ctxops_contracts.shared import repo as shared_repo

from .errors import PathRefused, UsageError

META_DIR = ".meta"
INDEX_DIR = Path(META_DIR) / "index"


def alias_root_env() -> None:
    """``$CQ_ROOT`` is kept as an alias of the toolchain's ``$CTXOPS_ROOT`` (which wins when both are set)."""
    alias = os.environ.get("CQ_ROOT")
    if alias and not os.environ.get(shared_repo.ROOT_ENV):
        os.environ[shared_repo.ROOT_ENV] = alias


def find_root(given: str | os.PathLike[str] | None = None) -> Path:
    """The repository root, the same answer every line gives (`ctxops_contracts.shared.repo`): ``--root``
    (``given``), else ``$CTXOPS_ROOT`` (or its alias ``$CQ_ROOT``), else the nearest ancestor of the
    working directory holding ``.git`` or ``.meta``. Outside any repository: a usage error (exit 2)."""
    alias_root_env()
    try:
        return Path(shared_repo.find_root(explicit=given))
    except shared_repo.NotARepository as exc:
        raise UsageError(exc.message, fix=exc.fix) from None


def index_dir(root: Path) -> Path:
    return root / INDEX_DIR


def safe_path(root: Path, given: str) -> tuple[Path, str]:
    """Resolve a user-given path inside ``root``; return ``(absolute path, repo-relative path)``.

    Refused (exit 2): absolute paths, any ``..`` component, and paths whose real location (symlinks
    followed) is outside the repository.
    """
    if not given or given.strip() != given:
        raise UsageError(f"bad path {given!r}", fix="give a repository-relative path such as src/app.py")
    if "\x00" in given:
        raise PathRefused("path contains a NUL byte", fix="give a repository-relative path")
    normal = given.replace("\\", "/")
    if Path(given).is_absolute() or normal.startswith("/") or (len(normal) > 1 and normal[1] == ":"):
        raise PathRefused(
            f"refused {given}: absolute paths are outside the query's scope",
            fix="give the path relative to the repository root",
        )
    parts = [p for p in normal.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise PathRefused(f"refused {given}: '..' leaves the repository", fix="give a path inside the repository")
    candidate = root.joinpath(*parts)
    real_root = root.resolve()
    try:
        real = candidate.resolve(strict=False)
    except (OSError, RuntimeError) as exc:  # symlink loop
        raise PathRefused(f"refused {given}: cannot resolve ({exc})", fix="fix the symlink") from exc
    if real != real_root and real_root not in real.parents:
        raise PathRefused(
            f"refused {given}: it resolves outside the repository (symlink to {real})",
            fix="open the target inside the repository instead",
        )
    return candidate, "/".join(parts)


def relative(root: Path, path: str | os.PathLike[str]) -> str:
    """``path`` relative to ``root`` with '/' separators (unchanged if it is already relative)."""
    p = Path(path)
    if not p.is_absolute():
        return p.as_posix()
    try:
        return p.relative_to(root).as_posix()
    except ValueError:
        return p.as_posix()
