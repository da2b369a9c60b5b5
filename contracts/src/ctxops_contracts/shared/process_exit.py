"""Start and end a short-lived hook process cheaply: no cyclic garbage collection, no interpreter teardown.

A hook process is done once its output is flushed and its exit handlers have run; what Python does after
that (clearing every module and collecting every object it created) is ~4 ms of a ~40 ms hook run and
changes nothing on disk. ``exit_now`` flushes stdout and stderr, runs the ``atexit`` handlers (the regex
cache's writer, logging's shutdown, coverage's data file under test), then leaves with ``os._exit``.
Only process entry points call it, never library code: a caller in the same process would be cut short.

``short_lived`` turns the cyclic garbage collector off for the rest of the process: importing the hook's
modules allocates enough objects to trigger a dozen collections that find nothing (~2.5 ms of CPU, measured
side by side); a hook lives for milliseconds, and reference counting still frees everything acyclic.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    from typing import NoReturn


def short_lived() -> None:
    """For a hook process's entry point: no cyclic garbage collection from here on."""
    import gc

    gc.disable()


def exit_now(status: int = 0) -> NoReturn:
    """Flush, run the exit handlers, and end the process with ``status`` (no module teardown)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # the reader went away or the stream is closed: nothing to keep
            pass
    import atexit

    run_handlers = getattr(atexit, "_run_exitfuncs", None)
    if run_handlers is None:  # pragma: no cover - an interpreter without it: the ordinary exit
        sys.exit(status)
    try:
        run_handlers()  # each handler's exception is printed to stderr and the rest still run
    finally:
        os._exit(status)
