"""Idempotency store for payment callbacks: each provider event is applied once."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from api.clock import Clock, SystemClock

DEFAULT_RETENTION_SECONDS = 7 * 24 * 3600


@dataclass
class _Entry:
    claimed_at: float
    result: dict[str, Any] | None = None


class IdempotencyStore:
    """Remembers which callback event ids were processed and what they returned.

    ``claim`` is atomic: of two concurrent deliveries of one event only the
    first gets ``True``. If processing fails, ``release`` lets the provider's
    retry try again; on success ``complete`` stores the response to replay.
    """

    def __init__(self, clock: Clock | None = None,
                 retention_seconds: int = DEFAULT_RETENTION_SECONDS) -> None:
        self._clock = clock or SystemClock()
        self._retention = retention_seconds
        self._entries: dict[str, _Entry] = {}
        self._lock = threading.Lock()

    def claim(self, key: str) -> bool:
        """Reserve ``key``; return False if it was already claimed or completed."""
        with self._lock:
            if key in self._entries:
                return False
            self._entries[key] = _Entry(claimed_at=self._clock.now())
            return True

    def complete(self, key: str, result: dict[str, Any]) -> None:
        """Store the outcome of a claimed key so duplicates can replay it."""
        with self._lock:
            entry = self._entries.setdefault(key, _Entry(claimed_at=self._clock.now()))
            entry.result = dict(result)

    def release(self, key: str) -> None:
        """Forget a claim whose processing failed."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and entry.result is None:
                del self._entries[key]

    def result_for(self, key: str) -> dict[str, Any] | None:
        """Return the stored outcome for ``key``, if processing completed."""
        with self._lock:
            entry = self._entries.get(key)
            return dict(entry.result) if entry and entry.result is not None else None

    def purge_expired(self) -> int:
        """Drop entries older than the retention window; return how many."""
        cutoff = self._clock.now() - self._retention
        with self._lock:
            stale = [key for key, entry in self._entries.items() if entry.claimed_at < cutoff]
            for key in stale:
                del self._entries[key]
        return len(stale)
