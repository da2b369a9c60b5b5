# ruff: noqa: SIM105
# try/except, not contextlib.suppress: contextlib costs the hook path ~2 ms of imports.
"""Atomic writes and whole-line appends: a reader never sees half a file or half a line.

Both create what they write private to the user (files 0600, directories 0700) and refuse a symlinked
directory under ``.meta`` (``confine``); ``append_lines`` never writes through a symlink or into a FIFO or
device. ``append_lines`` writes under the file's own lock and fsyncs; when the disk fills mid-write the file is
cut back to its previous length, so the result is every line or none (the caller decides where to log).
A partial last line left by a killed writer gets a newline first, so it never swallows the new lines.
``atomic_write`` writes a temporary file beside the target and renames it over; the temporary file is
removed on any failure, so a full disk leaves no orphan behind.
"""

from __future__ import annotations

import os
import time

from .confine import FILE_MODE, ensure_dir, open_regular
from .locks import acquire_fd, release_fd

_CAN_CHMOD = hasattr(os, "fchmod")


def append_lines(path: str | os.PathLike[str], payload: bytes, *, lock_timeout: float = 2.0, fsync: bool = True) -> int:
    """Append ``payload`` (one or more whole lines, ending in a newline) to ``path``; return bytes written.

    The parent directory is created when missing. Raises :class:`~ctxops_contracts.shared.locks.LockBusy`
    when another writer holds the file past ``lock_timeout``, and ``OSError`` (after rolling the file back)
    when the write fails.
    """
    if not payload:
        return 0
    if not payload.endswith(b"\n"):
        raise ValueError("append_lines takes whole lines: the payload must end with a newline")
    with locked_append(path, lock_timeout=lock_timeout) as out:
        return out.append(payload, fsync=fsync)


class locked_append:
    """A JSONL file opened for appending and held under its lock for a ``with`` block.

    For appends that must decide what to write while no other writer can (the event log's spill merge
    reads the file's tail to skip lines already there). ``append`` has ``append_lines``' guarantees.
    """

    __slots__ = ("fd", "name", "timeout")

    def __init__(self, path: str | os.PathLike[str], *, lock_timeout: float = 2.0) -> None:
        self.name = os.fspath(path)
        self.timeout = lock_timeout
        self.fd = -1

    def __enter__(self) -> locked_append:
        parent = os.path.dirname(self.name)
        if parent:
            ensure_dir(parent)
        # Never through a symlink, never blocking on a FIFO, only into a regular file; created private.
        fd = open_regular(self.name, os.O_RDWR | os.O_APPEND | os.O_CREAT, FILE_MODE)
        try:
            acquire_fd(fd, timeout=self.timeout, path=self.name)
        except BaseException:
            os.close(fd)
            raise
        self.fd = fd
        try:
            if os.fstat(fd).st_mode & 0o077 and _CAN_CHMOD:
                _chmod_quietly(fd, FILE_MODE)  # a log or event file an older version left world-readable
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, kind: object, exc: object, tb: object) -> None:
        fd, self.fd = self.fd, -1
        try:
            release_fd(fd)
        finally:
            os.close(fd)

    def tail(self, size: int) -> bytes:
        """The last ``size`` bytes of the file (all of it when shorter)."""
        end = os.fstat(self.fd).st_size
        start = max(0, end - size)
        return os.pread(self.fd, end - start, start) if end > start else b""

    def append(self, payload: bytes, *, fsync: bool = True) -> int:
        """Append whole lines; on a failed write the file is cut back to its length before. Bytes written."""
        if not payload:
            return 0
        if not payload.endswith(b"\n"):
            raise ValueError("append_lines takes whole lines: the payload must end with a newline")
        fd = self.fd
        start = os.fstat(fd).st_size
        if start and _last_byte(fd, start) != b"\n":
            payload = b"\n" + payload  # a killed writer's partial line stays alone on its line
        try:
            view = memoryview(payload)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            if fsync:
                os.fsync(fd)
        except OSError:
            _truncate_quietly(fd, start)
            raise
        return len(payload)


def _chmod_quietly(fd: int, mode: int) -> None:
    try:
        os.fchmod(fd, mode)
    except OSError:  # not ours to change (another owner): the write goes on
        pass


def _last_byte(fd: int, size: int) -> bytes:
    os.lseek(fd, size - 1, os.SEEK_SET)  # writes still go to the end: the file is opened with O_APPEND
    return os.read(fd, 1)


def _truncate_quietly(fd: int, size: int) -> None:
    try:
        os.ftruncate(fd, size)
    except OSError:  # the original error is the one worth reporting
        pass


def atomic_write(path: str | os.PathLike[str], data: bytes | str, *, mode: int = FILE_MODE, fsync: bool = True) -> None:
    """Replace the file at ``path`` with ``data`` in one step (temporary file + ``os.replace``).

    Private (0600) unless ``mode`` says otherwise (files meant to be committed pass 0644). Missing
    directories are created 0700 through :func:`~ctxops_contracts.shared.confine.ensure_dir`, so a
    symlinked directory under ``.meta`` is refused; a symlink at ``path`` itself is replaced, never
    written through.
    """
    name = os.fspath(path)
    directory = os.path.dirname(name) or "."
    ensure_dir(directory)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    # A name no other writer uses (pid + clock), created exclusively; no ``tempfile`` import (it pulls in
    # ``random``, ``shutil`` and friends, ~5 ms on the hook path).
    tmp = os.path.join(directory, f".{os.path.basename(name)}.{os.getpid()}.{time.time_ns()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        try:
            view = memoryview(raw)
            while view:
                view = view[os.write(fd, view) :]
            if fsync:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.chmod(tmp, mode)
        os.replace(tmp, name)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
