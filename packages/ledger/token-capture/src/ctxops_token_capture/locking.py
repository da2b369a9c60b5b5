"""One writer per DuckDB file: a short exclusive lock beside it, retried, never held long."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class LockBusy(TimeoutError):
    """Another process held the ledger lock for longer than we were willing to wait."""


@contextmanager
def exclusive(path: Path, timeout: float = 10.0) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (created if needed), retrying until ``timeout`` seconds."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    deadline = time.monotonic() + timeout
    delay = 0.01
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockBusy(f"{path} is held by another process (waited {timeout:.0f} s)") from None
                time.sleep(delay)
                delay = min(delay * 2, 0.2)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock
