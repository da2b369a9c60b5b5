# os.path on the hook path: the capture command does without importing pathlib.
"""An exclusive advisory file lock (``fcntl.flock``) with a deadline, for appends and state updates."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager


class LockTimeout(OSError):
    """The lock was not acquired before the deadline."""


@contextmanager
def locked(fd: int, *, timeout: float = 2.0) -> Iterator[None]:
    """Hold an exclusive lock on ``fd``; give up with LockTimeout after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    delay = 0.001
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise LockTimeout(f"lock busy for {timeout:.1f} s") from None
            time.sleep(delay)
            delay = min(delay * 2, 0.05)
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)


@contextmanager
def lock_file(path: str, *, timeout: float = 2.0) -> Iterator[None]:
    """Hold an exclusive lock on the file at ``path`` (created when missing)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        with locked(fd, timeout=timeout):
            yield
    finally:
        os.close(fd)
