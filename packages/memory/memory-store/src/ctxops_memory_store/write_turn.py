# ruff: noqa: PTH108, PTH118
# os.path: the fast `ctx mem add` (fastadd.py) takes a writer's turn without importing pathlib.
"""One writer's turn under the store's write lock: the lock itself, the sweep of what a killed writer left,
the store's generation. Shared by ``MemoryStore`` and the fast ``ctx mem add`` (``fastadd``), so both take
the same lock the same way and leave the same marks (issue 23, items 4 and 5)."""

from __future__ import annotations

import os
import time
from contextlib import contextmanager

from ctxops_contracts.shared.confine import open_regular, read_regular
from ctxops_contracts.shared.lazylog import get_logger

from . import write_marker

TYPE_CHECKING = False  # typing is not imported on the fast add's path; type checkers treat this name as True
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

log = get_logger(__name__)

GENERATION = "memory-generation"
WRITE_LOCK = "memory-write.lock"  # in the index directory (``snapshot.WRITE_LOCK`` names the same file)
WRITE_WAIT_S = 300.0  # how long a writer queues for the store's write lock before it gives up
WRITE_POLL_S = 0.01  # the longest sleep between two tries (a short one: waiters get their turn soon after a put)


@contextmanager
def locked(index_dir: str) -> Iterator[bool]:
    """The store's write lock, queued for (``WRITE_WAIT_S``), with this writer's mark (``write_marker``);
    gives whether the last holder died mid-write. ``LockBusy`` only when a holder never lets go."""
    from ctxops_contracts.shared.locks import file_lock

    with file_lock(os.path.join(index_dir, WRITE_LOCK), timeout=WRITE_WAIT_S, write_pid=True, max_poll=WRITE_POLL_S):
        unfinished = write_marker.begin(index_dir)
        yield unfinished
        write_marker.end(index_dir)  # only after a write that ended: one that raised may have left a file


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists (0: unknown, taken as gone)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists, someone else's
    return True


def sweep_temp(directories: Iterable[str]) -> None:
    """Remove the temporary files a killed writer left (``.NAME.PID.NS.tmp`` of ``atomic_write``) in these
    directories: every one whose process is gone or that is older than a minute. Under the write lock."""
    now = time.time()
    for directory in directories:
        try:
            # os.scandir, not Path.iterdir: no Path object per memory file (~100 ms at 50,000 on a busy machine)
            with os.scandir(directory) as listing:
                names = [e.name for e in listing if e.name.startswith(".") and e.name.endswith(".tmp")]
        except OSError:
            continue
        for name in names:
            path = os.path.join(directory, name)
            parts = name.rsplit(".", 3)
            pid = int(parts[1]) if len(parts) == 4 and parts[1].isdigit() else 0
            try:
                if alive(pid) and pid != os.getpid() and now - os.lstat(path).st_mtime < 60:
                    continue
                os.unlink(path)
                log.info("removed %s, left by a writer that was killed", path)
            except OSError:
                continue


def generation(index_dir: str) -> str:
    """The store's generation: what the last write under the lock left ("" when none)."""
    try:
        return read_regular(os.path.join(index_dir, GENERATION), 256).decode("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return ""


def bump_generation(index_dir: str) -> str:
    """A new generation (read and written only under the write lock: an in-place write is never seen half done)."""
    value = f"{os.getpid()}-{time.monotonic_ns()}"
    fd = open_regular(os.path.join(index_dir, GENERATION), os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        data = value.encode("ascii")
        os.pwrite(fd, data, 0)
        os.ftruncate(fd, len(data))
    finally:
        os.close(fd)
    return value
