"""An exclusive advisory lock on a file, with a deadline, on POSIX (flock) and Windows (msvcrt).

The lock belongs to the open descriptor, so the operating system releases it when the process dies: a
``kill -9`` never leaves a stale lock behind.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager


class LockBusy(TimeoutError):
    """Another process held the lock past the deadline."""

    def __init__(self, path: str, waited: float, holder: int | None = None) -> None:
        who = f" by process {holder}" if holder else ""
        super().__init__(f"{path} is locked{who} (waited {waited:.1f} s)")
        self.path = path
        self.waited = waited
        self.holder = holder


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


def acquire_fd(fd: int, *, timeout: float, path: str = "", max_poll: float = 0.05) -> None:
    """Lock the open descriptor ``fd``, polling with backoff; raise :class:`LockBusy` after ``timeout`` s."""
    started = time.monotonic()
    delay = 0.001
    while not _try_lock(fd):
        waited = time.monotonic() - started
        if waited >= timeout:
            raise LockBusy(path or f"fd {fd}", waited, holder_pid(path) if path else None)
        time.sleep(min(delay, max(0.0, timeout - waited)))
        delay = min(delay * 2, max_poll)


def release_fd(fd: int) -> None:
    _unlock(fd)


@contextmanager
def locked_fd(fd: int, *, timeout: float = 2.0, path: str = "") -> Iterator[None]:
    """Hold an exclusive lock on an open descriptor for the ``with`` block."""
    acquire_fd(fd, timeout=timeout, path=path)
    try:
        yield
    finally:
        _unlock(fd)


@contextmanager
def file_lock(path: str | os.PathLike[str], *, timeout: float = 2.0, write_pid: bool = False) -> Iterator[int]:
    """Hold an exclusive lock on the file at ``path`` (created with its parents when missing).

    With ``write_pid`` the holder's pid is written into the file, so ``ctx doctor`` and error messages
    can say who holds it (:func:`holder_pid`). Yields the descriptor.
    """
    name = os.fspath(path)
    parent = os.path.dirname(name)
    if parent:
        os.makedirs(parent, exist_ok=True)
    fd = os.open(name, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        acquire_fd(fd, timeout=timeout, path=name)
        try:
            if write_pid:
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            yield fd
        finally:
            if write_pid:
                os.ftruncate(fd, 0)
            _unlock(fd)
    finally:
        os.close(fd)


def holder_pid(path: str | os.PathLike[str]) -> int | None:
    """The pid written by the current holder of a ``write_pid`` lock, if any (best effort)."""
    try:
        with open(path, "rb") as fh:
            text = fh.read(32).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None
