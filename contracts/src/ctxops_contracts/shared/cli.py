"""The one CLI grammar of ``ctx``, ``cq`` and every ``python -m`` entry point (docs/cli-reference.md).

- ``--root DIR`` and ``--json`` are accepted before or after the command (``cq --json def X`` and
  ``cq def X --json`` are the same); without ``--root`` the repository holding the working directory is
  used, and outside one the command fails with exit 2 naming the fix.
- ``--json`` prints one compact JSON document on stdout, errors included (``{"error": {...}}``).
- Exit codes: 0 an answer, 1 an empty answer, 2 a usage or environment error (the message names the
  fix), 3 a deadline expired (partial answer), 4 a check failed (a budget exceeded, a problem found).
- ``--since``/``--until`` take RFC 3339, a date, or an age (``90m``, ``12h``, ``7d``, ``2w``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import IO, Any, NoReturn

EXIT_OK = 0
EXIT_EMPTY = 1
EXIT_USAGE = 2
EXIT_TIMEOUT = 3
EXIT_CHECK_FAILED = 4

TIME_FORMATS = "RFC 3339 (2026-11-30T14:00:00Z), a date (2026-11-30), an age (90m, 12h, 7d, 2w), today or yesterday"


PROG_ENV = "CTXOPS_PROG"


def typed_prog(default: str) -> str:
    """The command name the user typed, for usage lines: ``ctx`` sets ``$CTXOPS_PROG`` (``ctx code``)
    before it runs a package's command; run directly (``cq``), the package's own name is used."""
    return os.environ.get(PROG_ENV) or default


class CliError(Exception):
    """A usage or environment error: what went wrong, and the command or change that fixes it."""

    def __init__(self, message: str, fix: str = "", code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix
        self.code = code

    def to_json(self) -> dict[str, Any]:
        return {"error": {"message": self.message, "fix": self.fix, "code": self.code}}


def dumps(value: Any) -> str:
    """Compact JSON, the one form every ``--json`` output takes."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)


def emit_json(value: Any, stream: IO[str] | None = None) -> None:
    out = stream or sys.stdout
    out.write(dumps(value) + "\n")
    out.flush()


def report_error(error: CliError, *, prog: str, json_mode: bool) -> int:
    """Print ``error`` the grammar's way and return its exit code.

    JSON mode: the error document on stdout (a script parses one stream). Text mode: two lines on stderr.
    """
    if json_mode:
        emit_json(error.to_json())
    else:
        sys.stderr.write(f"{prog}: error: {error.message}\n")
        if error.fix:
            sys.stderr.write(f"  fix: {error.fix}\n")
    return error.code


class Parser(argparse.ArgumentParser):
    """argparse with the grammar's error handling: exit 2, JSON on stdout when ``--json`` was given."""

    def __init__(self, *args: Any, json_errors: bool | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        self._json_errors = json_errors

    def error(self, message: str) -> NoReturn:
        json_mode = self._json_errors if self._json_errors is not None else "--json" in sys.argv[1:]
        if json_mode:
            emit_json(CliError(message, fix=f"see {self.prog} --help").to_json())
        else:
            self.print_usage(sys.stderr)
            sys.stderr.write(f"{self.prog}: error: {message}\n  fix: see {self.prog} --help\n")
        sys.exit(EXIT_USAGE)


def add_common_options(parser: argparse.ArgumentParser, *, subcommand: bool) -> None:
    """``--root`` and ``--json``, on the top-level parser and on each subcommand's.

    On subcommands the defaults are suppressed so a value given before the command is not overwritten by
    the subcommand's default: both orders give the same namespace.
    """
    default: Any = argparse.SUPPRESS if subcommand else None
    parser.add_argument(
        "--root",
        metavar="DIR",
        default=default,
        help="the repository (default: the one holding the working directory, or $CTXOPS_ROOT)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        default=argparse.SUPPRESS if subcommand else False,
        help="print one compact JSON document on stdout (errors too)",
    )


def json_requested(argv: Sequence[str]) -> bool:
    """Whether ``--json`` appears among the options (before a ``--`` end-of-options marker)."""
    for arg in argv:
        if arg == "--":
            return False
        if arg == "--json":
            return True
    return False


_AGE = re.compile(r"^(\d+)\s*(m|min|h|d|w)$", re.IGNORECASE)
_AGE_UNIT = {"m": "minutes", "min": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_time(value: str, *, option: str = "--since", now: datetime | None = None) -> datetime:
    """A time given on the command line, as an aware UTC datetime.

    Bare dates mean local midnight (the day a user sees on their calendar); an age counts back from now.
    """
    text = value.strip()
    current = now or datetime.now(UTC)
    local_tz = datetime.now().astimezone().tzinfo
    lowered = text.lower()
    if lowered == "now":
        return current
    if lowered in ("today", "yesterday"):
        day = current.astimezone(local_tz).date() - timedelta(days=1 if lowered == "yesterday" else 0)
        return datetime(day.year, day.month, day.day, tzinfo=local_tz).astimezone(UTC)
    age = _AGE.match(text)
    if age:
        return current - timedelta(**{_AGE_UNIT[age.group(2).lower()]: int(age.group(1))})
    if re.fullmatch(r"\d{8}", text):  # ccusage's YYYYMMDD
        text = f"{text[:4]}-{text[4:6]}-{text[6:]}"
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise CliError(f"{option} {value!r}: not a time", fix=f"use {TIME_FORMATS}") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=local_tz)
    return parsed.astimezone(UTC)


def plural(count: int, noun: str, plural_form: str | None = None) -> str:
    """``1 hit``, ``2 hits``: counts in plain words."""
    return f"{count} {noun if count == 1 else (plural_form or noun + 's')}"
