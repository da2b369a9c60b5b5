# ruff: noqa: SIM105
# try/except, not contextlib.suppress: contextlib costs the hook path ~2 ms of imports.
"""Atomic writes and whole-line appends: a reader never sees half a file or half a line.

``append_lines`` writes under the file's own lock and fsyncs; when the disk fills mid-write the file is
cut back to its previous length, so the result is every line or none (the caller decides where to log).
A partial last line left by a killed writer gets a newline first, so it never swallows the new lines.
``atomic_write`` writes a temporary file beside the target and renames it over; the temporary file is
removed on any failure, so a full disk leaves no orphan behind.
"""

from __future__ import annotations

import os
import time

from .locks import acquire_fd, release_fd


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
    name = os.fspath(path)
    parent = os.path.dirname(name)
    if parent:
        os.makedirs(parent, exist_ok=True)
    fd = os.open(name, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        acquire_fd(fd, timeout=lock_timeout, path=name)
        try:
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
        finally:
            release_fd(fd)
    finally:
        os.close(fd)
    return len(payload)


def _last_byte(fd: int, size: int) -> bytes:
    os.lseek(fd, size - 1, os.SEEK_SET)  # writes still go to the end: the file is opened with O_APPEND
    return os.read(fd, 1)


def _truncate_quietly(fd: int, size: int) -> None:
    try:
        os.ftruncate(fd, size)
    except OSError:  # the original error is the one worth reporting
        pass


def atomic_write(path: str | os.PathLike[str], data: bytes | str, *, mode: int = 0o644, fsync: bool = True) -> None:
    """Replace the file at ``path`` with ``data`` in one step (temporary file + ``os.replace``)."""
    name = os.fspath(path)
    directory = os.path.dirname(name) or "."
    os.makedirs(directory, exist_ok=True)
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
