# ruff: noqa: PTH108, PTH118, PTH208
# os.path on the hook path: the capture command does without importing pathlib.
"""The event store's write side: JSONL by day under ``.meta/events/``, whole lines only.

Appends go through ``ctxops_contracts.shared.files.append_lines`` (the file's lock, fsync, rolled back when
the disk fills). A hook never waits long for a lock: when another writer holds a day file past the
deadline, the lines go to a per-process spill file under ``.spill/`` instead, and the next capture that
gets the lock merges them in. Reading lives in ``events_reader`` so the capture path imports only this.
"""

from __future__ import annotations

import os
import time

from ctxops_contracts.shared.files import append_lines, atomic_write
from ctxops_contracts.shared.locks import LockBusy

from . import jsontext

TYPE_CHECKING = False  # typing is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    from .event_record import EventRecord

EVENTS_DIR = os.path.join(".meta", "events")
RAW_DIR = "raw"
SPILL_DIR = ".spill"
_SEP = "__"  # a spill file's name: <target relative path with / as __>.<pid>.<nanoseconds>.spill


def day_file(events_dir: str, day: str) -> str:
    return os.path.join(events_dir, f"{day}.jsonl")


class Deadline:
    """One budget for every lock a capture waits on, so an event never waits more than ``seconds`` in all."""

    __slots__ = ("until",)

    def __init__(self, seconds: float) -> None:
        self.until = time.monotonic() + seconds

    def left(self) -> float:
        return max(0.0, self.until - time.monotonic())


def append_or_spill(events_dir: str, relative: str, payload: bytes, deadline: Deadline, *, fsync: bool = True) -> bool:
    """Append ``payload`` to ``events_dir/relative``; when its lock stays busy, spill it. True when appended."""
    try:
        append_lines(os.path.join(events_dir, relative), payload, lock_timeout=deadline.left(), fsync=fsync)
    except LockBusy:
        spill(events_dir, relative, payload)
        return False
    return True


def spill(events_dir: str, relative: str, payload: bytes) -> str:
    """Write ``payload`` to a spill file of this process (no lock needed: nobody else writes it)."""
    name = f"{relative.replace('/', _SEP)}.{os.getpid()}.{time.time_ns()}.spill"
    path = os.path.join(events_dir, SPILL_DIR, name)
    atomic_write(path, payload, fsync=True)
    return path


def merge_spills(events_dir: str) -> int:
    """Append spilled lines to their files (each spill whole, or left for later); return spills merged.

    A spill is removed only after its lines are appended; a crash between the two leaves a duplicate
    line (same event id), never a lost one.
    """
    directory = os.path.join(events_dir, SPILL_DIR)
    try:
        names = sorted(os.listdir(directory))
    except FileNotFoundError:
        return 0
    merged = 0
    for name in names:
        if not name.endswith(".spill"):
            continue
        relative = name[: -len(".spill")].rsplit(".", 2)[0].replace(_SEP, "/")
        path = os.path.join(directory, name)
        try:
            with open(path, "rb") as fh:
                payload = fh.read()
            if payload:
                append_lines(os.path.join(events_dir, relative), payload, lock_timeout=0.0)
            os.unlink(path)
            merged += 1
        except (LockBusy, FileNotFoundError):
            continue  # busy now, or merged by a concurrent capture
    return merged


def event_lines(events: list[EventRecord]) -> dict[str, bytes]:
    """The JSONL payload of ``events`` per day file (by the event's UTC date), relative to the events dir."""
    by_day: dict[str, list[bytes]] = {}
    for event in events:
        by_day.setdefault(f"{event['ts'][:10]}.jsonl", []).append(jsontext.line(event))
    return {name: b"".join(lines) for name, lines in by_day.items()}


def append_events(events_dir: str, events: list[EventRecord], deadline: Deadline | None = None) -> None:
    """Append ``events`` (``event_record.agent_event`` records) to their day files."""
    for name, payload in event_lines(events).items():
        append_or_spill(events_dir, name, payload, deadline or Deadline(0.2))


def append_raw(events_dir: str, day: str, line: bytes, deadline: Deadline | None = None) -> str:
    """Append one raw-payload line to ``raw/<day>.jsonl``; return its name relative to ``events_dir``."""
    relative = f"{RAW_DIR}/{day}.jsonl"
    # Not fsynced: the raw copy is a debugging aid behind the events, which are (an fsync costs ~3 ms here).
    append_or_spill(events_dir, relative, line, deadline or Deadline(0.2), fsync=False)
    return relative
