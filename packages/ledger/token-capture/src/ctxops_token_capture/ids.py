"""Deterministic ULIDs: the same call ingested twice gets the same id."""

from __future__ import annotations

from hashlib import blake2b

_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
# Two ULID digits (10 bits) per step: 13 steps instead of 26 (an ingest makes one id per call).
_PAIRS = [a + b for a in _ALPHABET for b in _ALPHABET]


def stable_ulid(ts_ms: int, key: str) -> str:
    """A ULID whose time part is ``ts_ms`` and whose random part is derived from ``key``."""
    v = (max(ts_ms, 0) << 80) | int.from_bytes(blake2b(key.encode(), digest_size=10).digest(), "big")
    p = _PAIRS  # the 13 ten-bit digit pairs from the top, unrolled (no loop, no list)
    return (
        p[v >> 120 & 1023]
        + p[v >> 110 & 1023]
        + p[v >> 100 & 1023]
        + p[v >> 90 & 1023]
        + p[v >> 80 & 1023]
        + p[v >> 70 & 1023]
        + p[v >> 60 & 1023]
        + p[v >> 50 & 1023]
        + p[v >> 40 & 1023]
        + p[v >> 30 & 1023]
        + p[v >> 20 & 1023]
        + p[v >> 10 & 1023]
        + p[v & 1023]
    )
