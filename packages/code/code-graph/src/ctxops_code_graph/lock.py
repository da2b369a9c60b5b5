"""One index writer at a time: an advisory lock on `.meta/index/code.lock`, with retry."""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path
from types import TracebackType


class IndexBusy(TimeoutError):
    """Another process holds the index writer lock (a build, an update, the watcher)."""


class WriterLock:
    """`with WriterLock(path, timeout=...)`: held until exit; released by the OS if the process dies."""

    def __init__(self, path: Path, timeout: float = 30.0, poll: float = 0.05) -> None:
        self.path = path
        self.timeout = timeout
        self.poll = poll
        self._fd: int | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise IndexBusy(f"another process is writing the code index ({self.path}); retry shortly") from None
                time.sleep(self.poll)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> WriterLock:
        self.acquire()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()
