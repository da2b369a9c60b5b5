"""Token counts as providers report them, checked: whole, not negative, not absurd."""

from __future__ import annotations

# No single model call reads or writes this many tokens of one kind (context windows are ~1-2 M).
MAX_TOKENS_PER_CALL = 20_000_000


class CountError(ValueError):
    """A token count that cannot be true; the message says which field and why."""


def token_count(raw: object, field: str, *, required: bool = False) -> int:
    """``raw`` as a checked token count; ``None`` is 0 unless the field is required."""
    if type(raw) is int and 0 <= raw <= MAX_TOKENS_PER_CALL:  # the usual case, first
        return raw
    if raw is None:
        if required:
            raise CountError(f"{field} missing")
        return 0
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        raise CountError(f"{field} is not a number: {raw!r}")
    if isinstance(raw, float):
        if not raw.is_integer():
            raise CountError(f"{field} is not a whole number: {raw!r}")
        raw = int(raw)
    if raw < 0:
        raise CountError(f"{field} is negative: {raw}")
    if raw > MAX_TOKENS_PER_CALL:
        raise CountError(f"{field} is absurd: {raw} > {MAX_TOKENS_PER_CALL}")
    return int(raw)
