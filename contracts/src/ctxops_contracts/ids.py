"""ULID ids: 128-bit, time-ordered, Crockford base32 (26 characters)."""

from __future__ import annotations

import _thread  # not threading: the hook path does not pay for importing it
import os
import time

_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_DECODE = {c: i for i, c in enumerate(_ALPHABET)}
_RANDOM_MAX = (1 << 80) - 1

_lock = _thread.allocate_lock()
_last_ms = -1
_last_random = 0


def _encode(value: int) -> str:
    chars = []
    for _ in range(26):
        chars.append(_ALPHABET[value & 31])
        value >>= 5
    return "".join(reversed(chars))


def new_ulid(now_ms: int | None = None) -> str:
    """Return a new ULID; ids made by this process sort in creation order, even within a millisecond.

    ``now_ms`` fixes the timestamp (for replaying events with their own time); such ids skip the
    per-process ordering.
    """
    global _last_ms, _last_random
    if now_ms is not None:
        return _encode((now_ms << 80) | int.from_bytes(os.urandom(10), "big"))
    ms = time.time_ns() // 1_000_000
    with _lock:
        if ms <= _last_ms and _last_random < _RANDOM_MAX:
            # Monotonic within a millisecond (and across small backwards clock steps).
            ms = _last_ms
            rand = _last_random + 1
        else:
            rand = int.from_bytes(os.urandom(10), "big")
        _last_ms, _last_random = ms, rand
    return _encode((ms << 80) | rand)


def is_ulid(text: str) -> bool:
    """True when ``text`` is a well-formed ULID (26 Crockford base32 characters, first <= '7')."""
    return len(text) == 26 and text[0] in "01234567" and all(c in _DECODE for c in text)


def ulid_timestamp_ms(ulid: str) -> int:
    """The millisecond timestamp carried by ``ulid``."""
    if not is_ulid(ulid):
        raise ValueError(f"not a ULID: {ulid!r}")
    value = 0
    for c in ulid:
        value = (value << 5) | _DECODE[c]
    return value >> 80
