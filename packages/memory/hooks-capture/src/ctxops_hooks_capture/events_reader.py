"""Reading the event store: tolerant of a truncated last line (a killed writer) and of garbage lines."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import msgspec
from ctxops_contracts import AgentEvent, ContractError, UnsupportedSchemaVersion, decode
from ctxops_contracts.shared.confine import UnsafePath, checked_dir, open_regular

from .event_log import EVENTS_DIR, spill_target


@dataclass
class ReadReport:
    """What a read found besides events: lines it could not decode, by file and line number."""

    bad_lines: list[str] = field(default_factory=list)


def iter_file(path: Path, report: ReadReport | None = None) -> Iterator[AgentEvent]:
    """Events of one JSONL file; undecodable lines (a truncated tail, garbage) are skipped and reported.

    Only a regular file is read: a symlink (to ``/dev/zero``, say), a FIFO or a device is reported and
    skipped."""
    try:
        fd = open_regular(str(path))
    except UnsafePath as exc:
        if report is not None:
            report.bad_lines.append(str(exc))
        return
    with os.fdopen(fd, "rb") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                yield decode(AgentEvent, line, where=f"{path}:{number}")
            except (ContractError, UnsupportedSchemaVersion) as exc:
                if report is not None:
                    report.bad_lines.append(str(exc))


def read_events(
    root: str | Path, *, days: Iterable[str] | None = None, report: ReadReport | None = None
) -> Iterator[AgentEvent]:
    """Every captured event of the repository at ``root`` (optionally only the given ``YYYY-MM-DD`` days)."""
    events_dir = Path(root) / EVENTS_DIR
    if not checked_dir(events_dir):  # a symlinked .meta or .meta/events raises UnsafePath
        return
    wanted = set(days) if days is not None else None
    for path in sorted(events_dir.glob("*.jsonl")):
        if wanted is None or path.stem in wanted:
            yield from iter_file(path, report)


def read_raw(root: str | Path, raw_ref: str) -> dict[str, object] | None:
    """The stored raw payload behind an event's ``raw_ref`` (``raw/<day>.jsonl#<event id>``)."""
    name, _, event_id = raw_ref.partition("#")
    # raw_ref is read from an event line: only ``raw/YYYY-MM-DD.jsonl`` names a file (never a path).
    if not event_id or spill_target(f"{name.replace('/', '__')}.0.0.spill") != name or not name.startswith("raw/"):
        return None
    path = Path(root) / EVENTS_DIR / name
    try:
        fd = open_regular(str(path))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        for line in fh:
            try:
                record = msgspec.json.decode(line)
            except msgspec.DecodeError:
                continue
            if isinstance(record, dict) and record.get("id") == event_id:
                payload = record.get("payload")
                return payload if isinstance(payload, dict) else {"value": payload}
    return None


def read_new(path: Path, offset: int, report: ReadReport | None = None) -> tuple[list[AgentEvent], int]:
    """Events in ``path`` after byte ``offset``, up to the last complete line; returns them and the new offset.

    A line still being written (no newline yet) is left for the next call.
    """
    with os.fdopen(open_regular(str(path)), "rb") as fh:  # never a FIFO or a symlink to /dev/zero
        fh.seek(offset)
        data = fh.read()
    end = data.rfind(b"\n") + 1
    events: list[AgentEvent] = []
    for number, line in enumerate(data[:end].splitlines(), 1):
        if not line.strip():
            continue
        try:
            events.append(decode(AgentEvent, line, where=f"{path}@{offset}+{number}"))
        except (ContractError, UnsupportedSchemaVersion) as exc:
            if report is not None:
                report.bad_lines.append(str(exc))
    return events, offset + end


def main(argv: list[str] | None = None) -> int:
    """``python -m ctxops_hooks_capture.events_reader [ROOT]``: one line per captured event."""
    import sys

    args = sys.argv[1:] if argv is None else argv
    report = ReadReport()
    for event in read_events(args[0] if args else ".", report=report):
        detail = event.command or event.text or " ".join(event.files)
        print(f"{event.ts:%Y-%m-%d %H:%M:%S}  {event.kind:<18} {(detail or '').splitlines()[0][:80] if detail else ''}")
    for bad in report.bad_lines:
        print(f"skipped {bad}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
