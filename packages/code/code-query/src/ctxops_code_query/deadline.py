"""Deadlines: every query has one (default 2 s) and answers with what it has when it expires."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TypeVar

DEFAULT_DEADLINE_S = 2.0

T = TypeVar("T")


class Deadline:
    """A point in time after which work stops and partial results are returned."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self._end = None if seconds is None or seconds <= 0 else time.monotonic() + seconds

    def remaining(self) -> float | None:
        """Seconds left (never negative), or ``None`` without a deadline."""
        if self._end is None:
            return None
        return max(0.0, self._end - time.monotonic())

    def expired(self) -> bool:
        return self._end is not None and time.monotonic() >= self._end


class DeadlineExpired(Exception):
    """Raised inside an operation that chooses to stop early; the caller keeps what was collected."""


def run_with_deadline(work: Callable[[], T], deadline: Deadline) -> tuple[T | None, bool]:
    """Run ``work`` in a worker thread; return ``(result, finished)``.

    Operations check the deadline themselves where they loop; the thread is the backstop for a call
    that cannot be interrupted (a slow database read). On expiry the caller renders what the operation
    collected so far; the daemon thread's leftover work is discarded.
    """
    remaining = deadline.remaining()
    if remaining is None:
        return work(), True
    box: dict[str, object] = {}

    def target() -> None:
        try:
            box["result"] = work()
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc

    worker = threading.Thread(target=target, name="cq-query", daemon=True)
    worker.start()
    worker.join(remaining)
    if worker.is_alive():
        return None, False
    if "error" in box:
        error = box["error"]
        if isinstance(error, DeadlineExpired):
            return None, False
        assert isinstance(error, BaseException)
        raise error
    return box.get("result"), True  # type: ignore[return-value]
