"""Where things live: the ``.meta/`` layout of a repository and the per-user data directory.

Every package calls :func:`ensure_meta` before its first write under ``.meta/`` (and
:func:`~ctxops_contracts.shared.confine.ensure_dir`, which every directory under ``.meta/`` is made with,
writes the ignore file too), so a repository that never ran ``ctx init`` still keeps captured events,
indexes, logs and saved outputs out of ``git status``, while ``.meta/memory/`` (reviewed, committed) stays
tracked.
"""

from __future__ import annotations

import os
import sys

from .confine import check_meta, ensure_dir

META_DIR = ".meta"
MEMORY_DIR = "memory"
EVENTS_DIR = "events"
INDEX_DIR = "index"
LOGS_DIR = "logs"
OUTPUTS_DIR = "outputs"
STATE_DIR = ".state"
CONFIG_FILE = "config.toml"

# Written to .meta/.gitignore: what must never be committed. Memories and config stay tracked. The file
# ignores itself: every ctxops package writes it before its first write under .meta/, so a clone needs no
# committed copy, and `cq def X` in a fresh clone leaves `git status` clean (issue 22). A copy committed
# earlier stays tracked (ignore rules do not apply to tracked files).
IGNORED = (EVENTS_DIR, INDEX_DIR, LOGS_DIR, OUTPUTS_DIR, STATE_DIR, "*.lock", "*.tmp")
GITIGNORE_TEXT = (
    "# written by ctxops: derived and captured data stays out of git; memory/ and config.toml are tracked\n"
    + "".join(f"/{entry}/\n" if "*" not in entry else f"{entry}\n" for entry in IGNORED)
    + "/.gitignore\n"
)

DATA_DIR_ENV = "CTXOPS_DATA_DIR"

# Modes: what ctxops creates under .meta/ and the per-user data directory is private (0600 files, 0700
# directories); the files meant to be committed and shared (.meta/memory/*.md, .meta/config.toml,
# .meta/.gitignore) are 0644, as git would check them out. git records no other mode bit than +x.
PRIVATE_FILE_MODE = 0o600
PRIVATE_DIR_MODE = 0o700
COMMITTED_FILE_MODE = 0o644


def meta_dir(root: str) -> str:
    return os.path.join(root, META_DIR)


def meta_path(root: str, *parts: str) -> str:
    return os.path.join(root, META_DIR, *parts)


def ensure_meta(root: str) -> str:
    """Create ``<root>/.meta`` (mode 0700) and its ``.gitignore`` when missing; return the ``.meta`` path.

    ``.meta`` must be a real directory owned by the current user: a symlink (``ln -s ~ .meta`` in a cloned
    repository), a file, or another user's directory raises
    :class:`~ctxops_contracts.shared.confine.UnsafePath` and nothing is written. An existing
    ``.meta/.gitignore`` is left as the user has it (a symlink there is left too, never written through).
    """
    meta = check_meta(root, create=True)
    write_ignore(meta)
    return meta


def write_ignore(meta: str) -> None:
    """Write ``<meta>/.gitignore`` unless something is there already (a file, a symlink: left alone)."""
    ignore = os.path.join(meta, ".gitignore")
    if os.path.lexists(ignore):
        return
    try:  # exclusive create: a file another process or the user wrote meanwhile is never overwritten
        # 0644: .meta/.gitignore is meant to be committed, like memory/*.md and config.toml.
        fd = os.open(ignore, os.O_WRONLY | os.O_CREAT | os.O_EXCL, COMMITTED_FILE_MODE)
    except FileExistsError:
        return
    try:
        os.write(fd, GITIGNORE_TEXT.encode())
    finally:
        os.close(fd)


def meta_subdir(root: str, *parts: str) -> str:
    """``<root>/.meta/<parts...>`` created (0700) and checked: no symlink or foreign directory on the way.

    ``parts`` are ctxops's own layout names (``events``, ``index``, ...), never content: join a name read
    from a repository with :func:`~ctxops_contracts.shared.confine.confined`.
    """
    ensure_meta(root)
    return ensure_dir(os.path.join(root, META_DIR, *parts))


def user_data_dir() -> str:
    """The per-user data directory (the ledger, context records): ``$CTXOPS_DATA_DIR`` or the platform's.

    Linux: ``$XDG_DATA_HOME/ctxops`` (default ``~/.local/share/ctxops``); macOS:
    ``~/Library/Application Support/ctxops``; Windows: ``%LOCALAPPDATA%\\ctxops``. The same places as
    ``platformdirs.user_data_dir("ctxops")``, without the import.
    """
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return os.path.expanduser(override)
    if sys.platform == "win32":  # pragma: no cover
        base = os.environ.get("LOCALAPPDATA") or os.path.expanduser("~\\AppData\\Local")
    elif sys.platform == "darwin":  # pragma: no cover
        base = os.path.expanduser("~/Library/Application Support")
    else:
        base = os.environ.get("XDG_DATA_HOME", "").strip() or os.path.expanduser("~/.local/share")
    return os.path.join(base, "ctxops")


def context_records_dir() -> str:
    """Where memory-inject appends ``ContextRecord`` lines (memories injected or recalled, tool outputs
    summarized) for the ledger to read: ``<user data dir>/context/``."""
    return os.path.join(user_data_dir(), "context")
