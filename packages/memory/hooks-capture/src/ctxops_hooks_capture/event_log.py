# ruff: noqa: PTH108, PTH118, PTH208, SIM105
# os.path on the hook path: the capture command does without importing pathlib (nor contextlib: try/except).
"""The event store's write side: JSONL by day under ``.meta/events/``, whole lines only.

Appends go through ``ctxops_contracts.shared.files.append_lines`` (the file's lock, fsync, rolled back when
the disk fills). A hook never waits long for a lock: when another writer holds a day file past the
deadline, the lines go to a per-process spill file under ``.spill/`` instead, and the next capture that
gets the lock merges them in. A spill's name is parsed by a fixed grammar into one of the day files
ctxops names (never decoded into a path: a repository can commit files into ``.spill/``), and a merge is
idempotent by event id. Reading lives in ``events_reader`` so the capture path imports only this.
"""

from __future__ import annotations

import os
import time

from ctxops_contracts.shared.confine import UnsafePath, ensure_dir, open_regular
from ctxops_contracts.shared.files import append_lines, atomic_write, locked_append
from ctxops_contracts.shared.locks import LockBusy

from . import jsontext

TYPE_CHECKING = False  # typing is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    from .event_record import EventRecord

EVENTS_DIR = os.path.join(".meta", "events")
RAW_DIR = "raw"
SPILL_DIR = ".spill"
_SEP = "__"  # a spill file's name: [raw__]YYYY-MM-DD.jsonl.<pid>.<nanoseconds>.spill (see spill_target)
SPILL_LIMIT = 8 << 20  # one capture's lines are a few hundred KB at most; a bigger "spill" is not ours
TAIL_BYTES = 1 << 20  # how much of a day file a merge reads back to skip lines already merged
STALE_TMP_S = 3600.0  # a spill's temporary file older than this was left by a killed writer
MERGE_LIMIT = 64  # spills merged per capture: a directory of thousands never makes one hook slow


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
    if spill_target(_spill_name(relative, 0, 0)) != relative:
        raise ValueError(f"not an event log file: {relative!r}")  # only day files ever spill
    name = _spill_name(relative, os.getpid(), time.time_ns())
    path = os.path.join(ensure_dir(os.path.join(events_dir, SPILL_DIR)), name)
    atomic_write(path, payload, fsync=True)
    return path


def _spill_name(relative: str, pid: int, ns: int) -> str:
    return f"{relative.replace('/', _SEP)}.{pid}.{ns}.spill"


def _is_day(text: str) -> bool:
    """``YYYY-MM-DD`` in ASCII digits (``str.isdigit`` alone takes any script's digits)."""
    return (
        len(text) == 10
        and text[4] == "-"
        and text[7] == "-"
        and (text[:4] + text[5:7] + text[8:]).isascii()
        and (text[:4] + text[5:7] + text[8:]).isdigit()
    )


def spill_target(name: str) -> str | None:
    """The day file a spill file's name names (``YYYY-MM-DD.jsonl`` or ``raw/YYYY-MM-DD.jsonl``), or None.

    A fixed grammar, never a decoded path: ``[raw__]YYYY-MM-DD.jsonl.<pid>.<ns>.spill``, digits ASCII.
    Anything else in ``.spill/`` was not written by ctxops (a repository can commit files there).
    """
    if not name.endswith(".spill"):
        return None
    pieces = name[: -len(".spill")].rsplit(".", 2)
    if len(pieces) != 3:
        return None
    head, pid, ns = pieces
    if not (pid.isascii() and pid.isdigit() and ns.isascii() and ns.isdigit()):
        return None
    prefix = ""
    if head.startswith(RAW_DIR + _SEP):
        prefix, head = RAW_DIR + "/", head[len(RAW_DIR + _SEP) :]
    if not (head.endswith(".jsonl") and _is_day(head[: -len(".jsonl")])):
        return None
    return prefix + head


def merge_spills(events_dir: str, *, limit: int = MERGE_LIMIT) -> int:
    """Append spilled lines to their day files; return spills merged (at most ``limit``
    tried, and ``limit`` foreign names removed, per call).

    Each spill is read, checked against the tail of its day file and removed while that file's lock is
    held, so two captures never merge one spill twice, and lines a merge killed between append and
    removal already wrote are skipped by event id next time: no duplicate line, no lost one. A name that
    is not a spill ctxops writes (see :func:`spill_target`), or a spill that is not a regular file or is
    larger than ``SPILL_LIMIT``, is removed unread (never followed: unlink removes a symlink itself).
    """
    directory = os.path.join(events_dir, SPILL_DIR)
    try:
        os.lstat(directory)
    except FileNotFoundError:
        return 0
    ensure_dir(directory)  # a symlinked .spill is refused (UnsafePath): nothing read, nothing written
    names = sorted(os.listdir(directory))
    merged = tried = discarded = 0
    for name in names:
        if tried >= limit and discarded >= limit:
            break
        path = os.path.join(directory, name)
        if name.startswith(".") and name.endswith(".tmp") and spill_target(name[1:].rsplit(".", 3)[0]):
            _discard_stale(path)  # atomic_write's temporary file of a spill being written right now
            continue
        relative = spill_target(name)
        if relative is None:
            # Counted apart: a repository's junk (directories cannot even be removed) never crowds out spills.
            if discarded < limit:
                discarded += 1
                _discard(path)
            continue
        if tried >= limit:
            continue
        tried += 1
        try:
            with locked_append(os.path.join(events_dir, relative), lock_timeout=0.0) as out:
                try:
                    payload = _read_spill(path)
                except FileNotFoundError:
                    continue  # merged by a concurrent capture
                except (UnsafePath, _TooLarge):
                    _discard(path)
                    continue
                fresh = unseen_lines(payload, out.tail(max(TAIL_BYTES, 4 * len(payload))))
                if fresh:
                    out.append(fresh)
                os.unlink(path)
            merged += 1
        except LockBusy:
            continue  # busy now: a later capture merges it
    return merged


class _TooLarge(Exception):
    pass


def _read_spill(path: str) -> bytes:
    fd = open_regular(path)  # lstat semantics: O_NOFOLLOW, O_NONBLOCK, regular files only
    try:
        if os.fstat(fd).st_size > SPILL_LIMIT:
            raise _TooLarge(path)
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)[:SPILL_LIMIT]
    finally:
        os.close(fd)


def _discard(path: str) -> None:
    """Remove what is not a spill of ours (a symlink is removed, not followed); leave a directory."""
    try:
        os.unlink(path)
    except OSError:
        pass


def _discard_stale(path: str) -> None:
    """Remove a temporary file left by a writer killed mid-spill (an hour old), never a live one."""
    try:
        if time.time() - os.lstat(path).st_mtime > STALE_TMP_S:
            os.unlink(path)
    except OSError:
        pass


_ID = b'"id":"'


def _line_id(line: bytes) -> bytes | None:
    at = line.find(_ID, 0, 96)  # events and raw lines carry their id among the first fields
    if at < 0:
        return None
    end = line.find(b'"', at + len(_ID), at + len(_ID) + 64)
    return line[at + len(_ID) : end] if end > 0 else None


def unseen_lines(payload: bytes, tail: bytes) -> bytes:
    """The whole lines of ``payload`` whose event id is not in ``tail`` (nor earlier in ``payload``)."""
    kept: list[bytes] = []
    seen: set[bytes] = set()
    for line in payload.splitlines(keepends=True):
        if not line.endswith(b"\n"):
            break  # a cut-off last line is not a whole event
        ident = _line_id(line)
        if ident is not None:
            if ident in seen or (_ID + ident + b'"') in tail:
                continue
            seen.add(ident)
        kept.append(line)
    return b"".join(kept)


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
