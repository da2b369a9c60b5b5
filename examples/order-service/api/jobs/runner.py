"""A small periodic job runner built on a stop event."""

from __future__ import annotations

import logging
import threading
from typing import Callable

log = logging.getLogger(__name__)


def run_periodically(job: Callable[[], object], interval_seconds: float,
                     stop: threading.Event, max_runs: int | None = None) -> int:
    """Call ``job`` every ``interval_seconds`` until ``stop`` is set.

    Exceptions are logged and do not stop the loop. Returns the number of
    runs, which makes the loop testable with ``max_runs``.
    """
    runs = 0
    while not stop.is_set():
        try:
            job()
        except Exception:  # a failing run must not kill the scheduler
            log.exception("periodic job %s failed", getattr(job, "__name__", job))
        runs += 1
        if max_runs is not None and runs >= max_runs:
            break
        stop.wait(interval_seconds)
    return runs


def start_in_background(job: Callable[[], object], interval_seconds: float) -> tuple[threading.Thread, threading.Event]:
    """Run ``job`` periodically in a daemon thread; set the event to stop it."""
    stop = threading.Event()
    thread = threading.Thread(target=run_periodically, args=(job, interval_seconds, stop),
                              name="periodic-job", daemon=True)
    thread.start()
    return thread, stop
