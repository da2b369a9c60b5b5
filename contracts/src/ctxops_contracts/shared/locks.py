"""An exclusive advisory lock on a file, with a deadline, on POSIX (flock) and Windows (msvcrt).

The lock belongs to the open descriptor, so the operating system releases it when the process dies: a
``kill -9`` never leaves a stale lock behind.

The ``with`` helpers are small classes rather than ``contextlib.contextmanager`` generators: every hook
takes a lock, and contextlib (with functools and collections) costs ~2 ms of a fresh process.
"""

from __future__ import annotations

import os
import sys
import time

from .confine import ensure_dir, open_regular, read_regular

TYPE_CHECKING = False  # typing is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    from types import TracebackType


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


class locked_fd:
    """Hold an exclusive lock on an open descriptor for the ``with`` block."""

    __slots__ = ("fd", "path", "timeout")

    def __init__(self, fd: int, *, timeout: float = 2.0, path: str = "") -> None:
        self.fd, self.timeout, self.path = fd, timeout, path

    def __enter__(self) -> None:
        acquire_fd(self.fd, timeout=self.timeout, path=self.path)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        _unlock(self.fd)


class file_lock:
    """Hold an exclusive lock on the file at ``path`` (created 0600 with its parents, 0700, when missing;
    never through a symlink or into a FIFO: ``confine``).

    With ``write_pid`` the holder's pid is written into the file, so ``ctx doctor`` and error messages
    can say who holds it (:func:`holder_pid`). ``with`` gives the descriptor.
    """

    __slots__ = ("fd", "max_poll", "name", "timeout", "write_pid")

    def __init__(
        self, path: str | os.PathLike[str], *, timeout: float = 2.0, write_pid: bool = False, max_poll: float = 0.05
    ) -> None:
        self.name = os.fspath(path)
        self.timeout = timeout
        self.write_pid = write_pid
        self.max_poll = max_poll  # the longest sleep between two tries
        self.fd = -1

    def __enter__(self) -> int:
        _HELD[id(self)] = self  # before the lock is taken: a fork meanwhile must not inherit it either
        parent = os.path.dirname(self.name)
        if parent:
            ensure_dir(parent)
        fd = open_regular(self.name, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            acquire_fd(fd, timeout=self.timeout, path=self.name, max_poll=self.max_poll)
        except BaseException:
            _HELD.pop(id(self), None)
            os.close(fd)
            raise
        self.fd = fd
        try:
            if self.write_pid:
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        except BaseException:
            self.fd = -1
            _HELD.pop(id(self), None)
            _release_and_close(fd, self.write_pid)
            raise
        return fd

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        fd, self.fd = self.fd, -1
        _HELD.pop(id(self), None)
        if fd < 0:
            return  # a forked child's copy: its descriptor was closed at the fork, the parent holds the lock
        _release_and_close(fd, self.write_pid)


# Locks held by this process, by id: a forked child (a scan worker) closes its copies of their descriptors
# at once, so it never holds a lock past its parent (an flock belongs to the open file, which a fork
# shares; closing a copy releases nothing while the parent keeps its own).
_HELD: dict[int, file_lock] = {}


def _forget_in_child() -> None:
    for lock in list(_HELD.values()):
        fd, lock.fd = lock.fd, -1
        if fd >= 0:
            try:  # noqa: SIM105 - no contextlib on the hook path
                os.close(fd)
            except OSError:
                pass
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)


def _release_and_close(fd: int, clear_pid: bool) -> None:
    try:
        try:
            if clear_pid:
                os.ftruncate(fd, 0)
        finally:
            _unlock(fd)
    finally:
        os.close(fd)


def holder_pid(path: str | os.PathLike[str]) -> int | None:
    """The pid written by the current holder of a ``write_pid`` lock, if any (best effort)."""
    try:
        text = read_regular(os.fspath(path), 32).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None
