"""The cheap staleness check a reader runs before answering: stat calls only, no hashing, no parsing.

A file is suspect when its (mtime_ns, size) differs from the snapshot's; a directory (or an ignore
file) whose mtime changed means files may have appeared or gone, which only a walk can tell.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Staleness:
    modified: list[str] = field(default_factory=list)  # indexed files whose stat changed (or vanished)
    dirs_changed: list[str] = field(default_factory=list)  # directories / ignore files whose mtime changed
    head_changed: bool = False

    @property
    def fresh(self) -> bool:
        return not (self.modified or self.dirs_changed or self.head_changed)


def check(root: Path, con: sqlite3.Connection, indexed_head: str | None, current_head: str | None) -> Staleness:
    out = Staleness(head_changed=indexed_head != current_head)
    base = str(root)
    stat = os.stat
    for path, size, mtime_ns in con.execute("SELECT path, size, mtime_ns FROM files"):
        try:
            st = stat(f"{base}/{path}", follow_symlinks=False)
        except OSError:
            out.modified.append(path)
            continue
        if st.st_mtime_ns != mtime_ns or st.st_size != size:
            out.modified.append(path)
    for path, mtime_ns in con.execute("SELECT path, mtime_ns FROM dirs"):
        try:
            st = stat(f"{base}/{path}" if path else base, follow_symlinks=False)
        except OSError:
            out.dirs_changed.append(path)
            continue
        if st.st_mtime_ns != mtime_ns:
            out.dirs_changed.append(path)
    return out
