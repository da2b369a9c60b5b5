"""``--since``/``--until`` as a half-open UTC range, in the toolchain's time formats.

A bare date is midnight in the report's time zone (the day a user sees), and ``--until DATE`` includes that
whole day, as ``ccusage --until`` does. Everything else goes through the shared ``parse_time``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ctxops_contracts.shared.cli import CliError, parse_time

_DATE = re.compile(r"^(\d{4})-?(\d{2})-?(\d{2})$")


def check_tz(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise CliError(f"unknown time zone {name!r}", "use an IANA name such as UTC or Europe/Paris") from None


def _bound(value: str, option: str, tz: str, *, end: bool) -> datetime:
    match = _DATE.match(value.strip())
    if match:
        try:
            day = date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
        except ValueError:
            return parse_time(value, option=option)  # an impossible date: the shared message names the formats
        start = datetime(day.year, day.month, day.day, tzinfo=check_tz(tz))
        return (start + timedelta(days=1) if end else start).astimezone(UTC)
    return parse_time(value, option=option)


@dataclass(frozen=True)
class TimeRange:
    """``since <= ts < until``; either end may be open."""

    since: datetime | None = None
    until: datetime | None = None

    @classmethod
    def parse(cls, since: str | None, until: str | None, *, tz: str = "UTC") -> TimeRange:
        lo = _bound(since, "--since", tz, end=False) if since else None
        hi = _bound(until, "--until", tz, end=True) if until else None
        if lo is not None and hi is not None and hi <= lo:
            raise CliError(f"--until ({hi:%Y-%m-%d %H:%M}Z) is not after --since ({lo:%Y-%m-%d %H:%M}Z)", "swap them")
        return cls(lo, hi)

    def sql(self, column: str = "ts") -> tuple[list[str], list[object]]:
        """WHERE clauses and their parameters."""
        where: list[str] = []
        params: list[object] = []
        if self.since is not None:
            where.append(f"{column} >= ?")
            params.append(self.since)
        if self.until is not None:
            where.append(f"{column} < ?")
            params.append(self.until)
        return where, params

    def describe(self) -> str:
        parts = []
        if self.since is not None:
            parts.append(f" since {self.since:%Y-%m-%d %H:%M}Z")
        if self.until is not None:
            parts.append(f" before {self.until:%Y-%m-%d %H:%M}Z")
        return "".join(parts)
