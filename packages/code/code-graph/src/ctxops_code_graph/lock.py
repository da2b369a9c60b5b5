"""One index writer at a time: the shared file lock on `.meta/index/code.lock`, with a deadline.

`ctxops_contracts.shared.locks` does the locking (flock on POSIX, msvcrt on Windows); this module only
turns its `LockBusy` into the code map's `IndexBusy` and says who holds the lock.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from types import TracebackType

from ctxops_contracts.shared import locks


class IndexBusy(TimeoutError):
    """Another process holds the index writer lock (a build, an update, the watcher) or the build store."""


class WriterLock:
    """`with WriterLock(path, timeout=...)`: held until exit; released by the OS if the process dies."""

    def __init__(self, path: Path, timeout: float = 30.0) -> None:
        self.path = path
        self.timeout = timeout
        self._stack: contextlib.ExitStack | None = None

    def acquire(self) -> None:
        stack = contextlib.ExitStack()
        try:
            stack.enter_context(locks.file_lock(self.path, timeout=self.timeout, write_pid=True))
        except locks.LockBusy as exc:
            stack.close()
            who = f" (process {exc.holder})" if exc.holder else ""
            raise IndexBusy(f"another process{who} is writing the code index ({self.path}); retry shortly") from None
        self._stack = stack

    def release(self) -> None:
        if self._stack is not None:
            self._stack.close()
            self._stack = None

    def held_elsewhere(self) -> bool:
        """True when another process holds the lock right now (a non-blocking probe)."""
        try:
            with locks.file_lock(self.path, timeout=0.0):
                return False
        except locks.LockBusy:
            return True

    def __enter__(self) -> WriterLock:
        self.acquire()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()
