"""Start a background process that outlives its parent and holds none of the parent's pipes.

Hooks and status lines start follow-up work (a snapshot sync, a ledger refresh) and must exit at once: the
agent waits for its hook's stdout to close, so the child gets its own session and the null device for
stdin, stdout and stderr. ``posix_spawn`` costs far less than importing ``subprocess`` on a hook path.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # collections.abc (~1.5 ms with collections) is not imported on a hook path
if TYPE_CHECKING:
    from collections.abc import Sequence


def spawn_detached(argv: Sequence[str]) -> None:
    """Run ``argv`` (``argv[0]`` an executable path) detached; raises OSError when it cannot start."""
    if hasattr(os, "posix_spawn"):
        null = os.devnull
        actions = [
            (os.POSIX_SPAWN_OPEN, 0, null, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, null, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_OPEN, 2, null, os.O_WRONLY, 0),
        ]
        os.posix_spawn(argv[0], list(argv), os.environ, file_actions=actions, setsid=True)
        return
    import subprocess  # pragma: no cover - Windows

    subprocess.Popen(  # pragma: no cover - Windows
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        close_fds=True,
        creationflags=getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0),
    )


def python_module_argv(module: str, *args: str) -> list[str]:
    """``[this interpreter, "-P", "-m", module, *args]``: the detached child runs in the same environment.

    ``-P``: the working directory (a hook's is the repository) is not put on ``sys.path``, so a cloned
    repository's ``ctxops_memory_inject/`` cannot stand in for the installed package.
    """
    return [sys.executable, "-P", "-m", module, *args]


BACKGROUND_NICENESS = 10  # what a detached follow-up job yields to the agent's next hook (``lower_priority``)


def lower_priority(step: int = BACKGROUND_NICENESS) -> None:
    """Make this (detached, derived-data) process yield the CPU to the foreground: a token precount or a code
    index update started by one hook or ``git pull`` must not stretch the agent's next hook (issue 23). Only
    for jobs no writer waits on; best effort (no ``os.nice``, or not allowed: unchanged)."""
    nice = getattr(os, "nice", None)
    if nice is None:
        return
    import contextlib  # in the detached job only: hooks import this module, and contextlib pulls collections

    with contextlib.suppress(OSError):
        nice(step)


def start_module_at_most_every(marker: str, every_s: float, module: str, *args: str) -> bool:
    """Start ``python -m module ARGS`` detached unless ``marker`` (touched at each start) says one started
    less than ``every_s`` ago; False when not started. The caller never waits for it. Raises OSError when the
    marker cannot be written (never through a planted symlink) or the process cannot start."""
    import time

    from .confine import open_regular

    now = time.time()
    try:
        if now - os.stat(marker).st_mtime < every_s:
            return False
    except OSError:
        pass
    os.close(open_regular(marker, os.O_WRONLY | os.O_CREAT, 0o600))
    os.utime(marker, (now, now))
    spawn_detached(python_module_argv(module, *args))
    return True
