"""Deterministic ULIDs: the same call ingested twice gets the same id."""

from __future__ import annotations

import hashlib

_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
# Two ULID digits (10 bits) per step: 13 steps instead of 26 (an ingest makes one id per call).
_PAIRS = [a + b for a in _ALPHABET for b in _ALPHABET]


def stable_ulid(ts_ms: int, key: str) -> str:
    """A ULID whose time part is ``ts_ms`` and whose random part is derived from ``key``."""
    rand = int.from_bytes(hashlib.blake2b(key.encode(), digest_size=10).digest(), "big")
    value = (max(ts_ms, 0) << 80) | rand
    pairs = []
    for _ in range(13):
        pairs.append(_PAIRS[value & 1023])
        value >>= 10
    return "".join(reversed(pairs))
