"""The one CLI grammar of ``ctx``, ``cq`` and every ``python -m`` entry point (docs/cli-reference.md).

- ``--root DIR`` and ``--json`` are accepted before or after the command (``cq --json def X`` and
  ``cq def X --json`` are the same); without ``--root`` the repository holding the working directory is
  used, and outside one the command fails with exit 2 naming the fix.
- ``--json`` prints one compact JSON document on stdout, errors included (``{"error": {...}}``).
- Exit codes: 0 an answer, 1 an empty answer, 2 a usage or environment error (the message names the
  fix), 3 a deadline expired (partial answer), 4 a check failed (a budget exceeded, a problem found) or
  the disk refused a write (full, over quota, read-only, no permission: one line naming the path and the
  fix, see :func:`disk_error`).
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
EXIT_PIPE_CLOSED = 141  # stdout's reader went away (``| head``): what a process killed by SIGPIPE returns
EXIT_DISK = 4  # the disk refused a write (full, over quota, read-only, no permission): one line names path and fix

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


# -- the disk refused a write ----------------------------------------------------------------------------

_DISK_ERRNOS = {
    "ENOSPC": ("no space left on the device", "free space on that filesystem (df -h) and run it again"),
    "EDQUOT": ("disk quota exceeded", "free space within your quota (quota -s) and run it again"),
    "EFBIG": ("file too large for this filesystem or limit", "raise the file size limit (ulimit -f) or move it"),
    "EROFS": ("read-only filesystem", "run it where the filesystem is writable (or remount it read-write)"),
    "EACCES": ("permission denied", "make it writable by you (ls -ld; chmod u+w or chown)"),
    "EPERM": ("operation not permitted", "make it writable by you (ls -ld; chmod u+w or chown)"),
}
# Libraries that wrap the OS error in their own type (DuckDB's IOException, sqlite3's OperationalError)
# keep its words in their message.
_DISK_WORDS = (
    ("No space left on device", "ENOSPC"),
    ("database or disk is full", "ENOSPC"),
    ("Disk quota exceeded", "EDQUOT"),
    ("Read-only file system", "EROFS"),
    ("File too large", "EFBIG"),
)


def disk_error(exc: BaseException) -> CliError | None:
    """A :class:`CliError` (exit 4) when ``exc``, or what caused it, is the disk refusing a write; else None.

    The message is one line: what the disk said, the path, and the fix. Every CLI entry point passes the
    exceptions it did not expect through this before letting a traceback out (:func:`run_guarded`).
    """
    import errno

    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        name = errno.errorcode.get(current.errno, "") if isinstance(current, OSError) and current.errno else ""
        path = getattr(current, "filename", None) if isinstance(current, OSError) else None
        if not name:
            text = str(current)
            name = next((code for words, code in _DISK_WORDS if words in text), "")
        if name in _DISK_ERRNOS:
            what, fix = _DISK_ERRNOS[name]
            named = os.fsdecode(path) if isinstance(path, (str, bytes, os.PathLike)) else None
            where = f" writing {named}" if named else _where(exc, name)
            return CliError(f"{what}{where} [{name}]; fix: {fix}", code=EXIT_DISK)
        current = current.__cause__ or current.__context__
    return None


def _where(exc: BaseException, name: str) -> str:
    """Where the write went, when the error does not say (``write(2)`` errors carry no file name): the
    innermost frame's local that is an absolute path, else the place ctxops writes whose filesystem is
    full (or not writable)."""
    tb, paths = exc.__traceback__, []
    while tb is not None:
        for local in tb.tb_frame.f_locals.values():
            value = os.fspath(local) if isinstance(local, os.PathLike) else local
            if isinstance(value, str) and value.startswith(os.sep) and "\n" not in value and len(value) < 4096:
                paths.append(value)
                break
        tb = tb.tb_next
    if paths:
        return f" writing {paths[-1]}"
    from .layout import user_data_dir

    candidates = [os.getcwd(), user_data_dir()]
    if name in ("ENOSPC", "EDQUOT"):
        free = {place: _free_bytes(place) for place in candidates}
        place = min(free, key=lambda p: free[p])
        return f" writing under {place} ({free[place] // 1024} kB free there)"
    place = next((p for p in candidates if not os.access(_existing(p), os.W_OK)), candidates[0])
    return f" writing under {place}"


def _existing(path: str) -> str:
    while path and not os.path.exists(path):
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    return path or os.sep


def _free_bytes(path: str) -> int:
    try:
        st = os.statvfs(_existing(path))
    except (OSError, AttributeError):
        return 1 << 62
    return st.f_bavail * st.f_frsize


def report_disk_error(exc: BaseException, *, prog: str, json_mode: bool = False) -> int | None:
    """Report ``exc`` in one line and return exit 4 when it is a disk error; None when it is not."""
    error = disk_error(exc)
    if error is None:
        return None
    if json_mode:
        emit_json(error.to_json())
    else:
        sys.stderr.write(f"{prog}: error: {error.message}\n")
    return error.code


def pipe_closed() -> int:
    """After a ``BrokenPipeError`` on stdout (``ctx ledger report | head -1``): point stdout at /dev/null, so
    neither the rest of the run nor the interpreter's final flush fails on it, and return exit 141 (as a
    process killed by SIGPIPE) without a traceback."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no stdout at all: nothing left to protect
        pass
    return EXIT_PIPE_CLOSED


def flush_stdout() -> None:
    """Flush stdout now (inside the caller's ``except BrokenPipeError``), not at interpreter exit."""
    if sys.stdout is not None:
        sys.stdout.flush()


def run_guarded(main: Any, argv: Sequence[str], *, prog: str) -> int:
    """``main(argv)``, with a disk refusing a write reported in one line (exit 4) instead of a traceback, and
    a reader that closed the pipe ending the run quietly (exit 141)."""
    try:
        result: int = main(argv)
        flush_stdout()
    except BrokenPipeError:
        return pipe_closed()
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:
        code = report_disk_error(exc, prog=prog, json_mode=json_requested(argv))
        if code is None:
            raise
        return code
    return result
