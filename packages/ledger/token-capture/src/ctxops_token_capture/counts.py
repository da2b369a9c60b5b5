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


def field_count(raw: object, field: str, dropped: list[str]) -> int:
    """``raw`` as a checked token count, or 0 with the reason added to ``dropped`` when it cannot be one.

    For the counts a call has beside its required input and output: one odd field must not cost the call
    its valid counts (the caller reports what it dropped).
    """
    try:
        return token_count(raw, field)
    except CountError as exc:
        dropped.append(str(exc))
        return 0
