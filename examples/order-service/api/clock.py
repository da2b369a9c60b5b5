"""Clocks: the real one and a controllable one for jobs and tests."""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """Anything that tells the current time as Unix seconds."""

    def now(self) -> float: ...


class SystemClock:
    """Wall-clock time from the operating system."""

    def now(self) -> float:
        """Return ``time.time()``."""
        return time.time()


class FixedClock:
    """A clock that only moves when told to; used by tests and replays."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._now = start

    def now(self) -> float:
        """Return the current frozen time."""
        return self._now

    def advance(self, seconds: float) -> float:
        """Move the clock forward by ``seconds`` and return the new time."""
        if seconds < 0:
            raise ValueError("a clock cannot go backwards")
        self._now += seconds
        return self._now
