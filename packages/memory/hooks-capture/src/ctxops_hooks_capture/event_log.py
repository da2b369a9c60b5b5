# ruff: noqa: PTH103, PTH118
# os.path on the hook path: the capture command does without importing pathlib.
"""The event store's write side: JSONL by day under ``.meta/events/``, appended under a lock, whole lines only.

Reading lives in ``events_reader`` so the capture path imports only what it writes with.
"""

from __future__ import annotations

import os

from . import jsontext
from .locking import locked

TYPE_CHECKING = False  # typing is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    from collections.abc import Iterable

    from .event_record import EventRecord

EVENTS_DIR = os.path.join(".meta", "events")
RAW_DIR = "raw"


def day_file(events_dir: str, day: str) -> str:
    return os.path.join(events_dir, f"{day}.jsonl")


def append_lines(path: str, lines: Iterable[bytes], *, timeout: float = 2.0) -> None:
    """Append whole lines to ``path`` under an exclusive lock, in one write where the OS allows.

    If a killed writer left a partial last line, a newline is written first so the damage stays on
    that one line.
    """
    data = b"".join(lines)
    if not data:
        return
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        with locked(fd, timeout=timeout):
            size = os.fstat(fd).st_size
            if size:
                with open(path, "rb") as fh:
                    fh.seek(size - 1)
                    if fh.read(1) != b"\n":
                        data = b"\n" + data
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
    finally:
        os.close(fd)


def append_events(events_dir: str, events: list[EventRecord]) -> None:
    """Append ``events`` (``event_record.agent_event`` records) to their day files, by the event's UTC date."""
    by_day: dict[str, list[bytes]] = {}
    for event in events:
        by_day.setdefault(event["ts"][:10], []).append(jsontext.line(event))  # ts is RFC 3339 UTC: YYYY-MM-DD...
    os.makedirs(events_dir, exist_ok=True)
    for day, lines in by_day.items():
        append_lines(day_file(events_dir, day), lines)


def append_raw(events_dir: str, day: str, line: bytes) -> str:
    """Append one raw-payload line to ``raw/<day>.jsonl``; return its name relative to ``events_dir``."""
    raw_dir = os.path.join(events_dir, RAW_DIR)
    os.makedirs(raw_dir, exist_ok=True)
    append_lines(os.path.join(raw_dir, f"{day}.jsonl"), [line])
    return f"{RAW_DIR}/{day}.jsonl"
