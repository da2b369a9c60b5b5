"""The cheap staleness check a reader runs before answering: stat calls only, no hashing, no parsing,
no directory walk.

A file is suspect when its (mtime_ns, size) differs from the snapshot's. New, removed or renamed files
are found through the directories: a directory's mtime changes exactly when entries are added, removed
or renamed in it, so each indexed directory (and ignore file) is stat-ed against the mtime recorded at
index time, and only the directories that changed need a rescan. Stdlib only (`os`): a fresh `cq def`
runs this on every call.
"""

from __future__ import annotations

import os
import sqlite3

TYPE_CHECKING = False  # not `from typing import ...`: typing costs a fresh process milliseconds

if TYPE_CHECKING:
    from pathlib import Path


class Staleness:
    """What changed since the snapshot was written."""

    __slots__ = ("dirs_changed", "head_changed", "modified")

    def __init__(
        self,
        modified: list[str] | None = None,
        dirs_changed: list[str] | None = None,
        head_changed: bool = False,
    ) -> None:
        self.modified: list[str] = modified if modified is not None else []  # indexed files whose stat changed
        self.dirs_changed: list[str] = dirs_changed if dirs_changed is not None else []  # entries added/removed
        self.head_changed = head_changed

    @property
    def fresh(self) -> bool:
        return not (self.modified or self.dirs_changed or self.head_changed)

    def __repr__(self) -> str:
        return (
            f"Staleness(modified={self.modified!r}, dirs_changed={self.dirs_changed!r},"
            f" head_changed={self.head_changed!r})"
        )


def check(root: str | Path, con: sqlite3.Connection, indexed_head: str | None, current_head: str | None) -> Staleness:
    out = Staleness(head_changed=indexed_head != current_head)
    base = f"{root}/"
    stat = os.stat
    modified = out.modified
    # One fetchall and a bare loop: at 15k files the Python overhead per file is what costs, not the syscall.
    for path, size, mtime_ns in con.execute("SELECT path, size, mtime_ns FROM files").fetchall():
        try:
            st = stat(base + path, follow_symlinks=False)
        except OSError:
            modified.append(path)
            continue
        if st.st_mtime_ns != mtime_ns or st.st_size != size:
            modified.append(path)
    changed = out.dirs_changed
    for path, mtime_ns in con.execute("SELECT path, mtime_ns FROM dirs").fetchall():
        try:
            st = stat(base + path if path else str(root), follow_symlinks=False)
        except OSError:
            changed.append(path)
            continue
        if st.st_mtime_ns != mtime_ns:
            changed.append(path)
    return out
