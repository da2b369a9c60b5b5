# ruff: noqa: PTH108, PTH118
# os.path: the store hands directories around as strings here, as snapshot.py does.
"""Whether a store writer died mid-write, without listing the memory directory (issue 23, item 4).

A killed writer can leave a temporary file (``.NAME.PID.NS.tmp`` of ``atomic_write``) in the memory directory;
finding one means listing every file (~0.1 s of CPU at 50,000). Every writer holds the store's write lock
while it writes and marks that time with ``memory-writing`` in the index directory: created when it takes
the lock, removed before it lets go. A marker found by the next holder means the last one never finished:
only then does a quick write list the memory directory to sweep what it left.
"""

from __future__ import annotations

import contextlib
import os

from ctxops_contracts.shared.confine import open_regular

MARKER = "memory-writing"


def begin(index_dir: str) -> bool:
    """Mark this writer's turn (under the write lock); True when the last writer's mark is still there (it
    died mid-write) or the mark cannot be made (then nothing is vouched for: sweep)."""
    path = os.path.join(index_dir, MARKER)
    if os.path.lexists(path):
        return True
    try:
        os.close(open_regular(path, os.O_WRONLY | os.O_CREAT, 0o600))  # never through a planted symlink
    except OSError:
        return True
    return False


def end(index_dir: str) -> None:
    """This writer finished (still under the write lock): no temporary file of it remains."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(os.path.join(index_dir, MARKER))
