"""Deterministic ULIDs: the same call ingested twice gets the same id."""

from __future__ import annotations

import hashlib

_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def stable_ulid(ts_ms: int, key: str) -> str:
    """A ULID whose time part is ``ts_ms`` and whose random part is derived from ``key``."""
    rand = int.from_bytes(hashlib.blake2b(key.encode(), digest_size=10).digest(), "big")
    value = (max(ts_ms, 0) << 80) | rand
    chars = []
    for _ in range(26):
        chars.append(_ALPHABET[value & 31])
        value >>= 5
    return "".join(reversed(chars))
