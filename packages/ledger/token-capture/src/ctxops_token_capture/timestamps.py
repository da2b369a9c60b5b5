"""Timestamps from agent logs: RFC 3339, with or without a zone (no zone means UTC, and is reported)."""

from __future__ import annotations

from datetime import UTC, datetime


class TimestampError(ValueError):
    """A timestamp that cannot be read."""


def parse_timestamp(value: object) -> tuple[datetime, bool]:
    """Parse ``value`` into an aware UTC datetime; the flag says the zone was missing and UTC assumed."""
    if type(value) is str:  # the usual case first: RFC 3339 in UTC ("Z" or "+00:00"), read as it is
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            pass
        else:
            if parsed.tzinfo is UTC:
                return parsed, False
    if not isinstance(value, str) or not value:
        raise TimestampError(f"timestamp missing or not a string: {value!r}")
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise TimestampError(f"unreadable timestamp {value!r}") from None
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=UTC), True
    return parsed.astimezone(UTC), False
