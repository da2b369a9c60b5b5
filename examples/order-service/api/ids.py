"""Identifier generation for orders, reservations and events."""

from __future__ import annotations

import itertools
import secrets
import threading


class IdGenerator:
    """Produces ids like ``ord_3f9a1c2b``; sequential mode makes tests readable."""

    def __init__(self, sequential: bool = False) -> None:
        self._sequential = sequential
        self._counters: dict[str, itertools.count] = {}
        self._lock = threading.Lock()

    def new(self, prefix: str) -> str:
        """Return a new id with the given prefix."""
        if not self._sequential:
            return f"{prefix}_{secrets.token_hex(6)}"
        with self._lock:
            counter = self._counters.setdefault(prefix, itertools.count(1))
            return f"{prefix}_{next(counter):04d}"
