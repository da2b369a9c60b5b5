"""Read only what was appended to a log file since last time, and notice when it was rotated or rewritten.

A file's state is (path, device, inode, size, offset, start and hash of the last line read). On the next
run the file is re-read from the start when its inode changed, it shrank, or the bytes of the last line
read are no longer the same (a rewrite); otherwise reading resumes at ``offset``. A last line without a
newline is taken only if it is a complete JSON object (a writer may still be in the middle of it).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

CHUNK = 8 << 20
MAX_LINE = 64 << 20  # a longer line is refused (file:offset) and skipped without being read into memory
NOT_JSON_AFTER = 1 << 20  # an unfinished line this long that does not begin with "{" is skipped the same way
MARK = 4096  # bytes that stand for a skipped line when noticing a rewrite


def line_hash(line: bytes) -> str:
    return hashlib.blake2b(line, digest_size=12).hexdigest()


class FileState(msgspec.Struct, kw_only=True):
    """What was read of one file; ``parser`` holds the line parser's own carry-over state."""

    path: str
    dev: int = 0
    inode: int = 0
    size: int = 0
    mtime_ns: int = 0
    offset: int = 0
    last_line_start: int = 0
    last_line_hash: str = ""
    parser: dict[str, Any] = msgspec.field(default_factory=dict)
    skipping: bool = False  # the read stopped inside a refused (over-long) line: skip on to its newline


@dataclass
class ReadResult:
    """New complete lines (with their byte offsets) and what happened to the file."""

    lines: list[tuple[int, bytes]] = field(default_factory=list)
    restarted: bool = False  # rotated or rewritten: read again from the start
    reason: str = ""
    pending_tail: int = 0  # bytes of an incomplete last line left for next time
    oversized: list[int] = field(default_factory=list)  # offsets of lines longer than the cap, skipped
    not_json: list[int] = field(default_factory=list)  # offsets of long lines that are no JSON object, skipped


def _unchanged(state: FileState, st: os.stat_result, handle: Any) -> tuple[bool, str]:
    if state.inode and (st.st_ino != state.inode or st.st_dev != state.dev):
        return False, "file replaced (new inode)"
    if st.st_size < state.offset:
        return False, "file shrank"
    if state.last_line_hash:
        handle.seek(state.last_line_start)
        tail = handle.read(state.offset - state.last_line_start)
        if line_hash(tail.rstrip(b"\r\n")) != state.last_line_hash:
            return False, "file rewritten (last line read has changed)"
    return True, ""


def _complete_json_object(data: bytes) -> bool:
    text = data.strip()
    if not (text.startswith(b"{") and text.endswith(b"}")):
        return False
    try:
        msgspec.json.decode(text)
    except msgspec.DecodeError:
        return False
    return True


def _may_be_json(parts: list[bytes]) -> bool:
    """Whether an unfinished line may still be a JSON object: its first non-blank byte is ``{``."""
    for part in parts:
        text = part.lstrip()
        if text:
            return text[:1] == b"{"
    return True


def iter_new_lines(
    path: Path, state: FileState | None, *, max_line: int = MAX_LINE
) -> tuple[Iterator[tuple[int, bytes]], ReadResult, FileState]:
    """Lines appended since ``state`` (all lines when ``state`` is None or the file was rewritten).

    Memory stays bounded whatever the file holds: a line longer than ``max_line`` bytes is not yielded but
    noted in ``ReadResult.oversized`` (its offset) and read past in chunks without being kept, and so is a
    line longer than ``NOT_JSON_AFTER`` bytes that does not begin as a JSON object (``ReadResult.not_json``).

    Returns an iterator of (offset, line bytes without the newline), a result filled in as the iterator is
    consumed, and the state to save once the caller has handled every line.
    """
    result = ReadResult()
    st = path.stat()
    new = FileState(path=str(path), dev=st.st_dev, inode=st.st_ino, size=st.st_size, mtime_ns=st.st_mtime_ns)
    handle = path.open("rb")
    start = 0
    if state is not None:
        same, reason = _unchanged(state, st, handle)
        if same:
            start = state.offset
            new.offset, new.last_line_start, new.last_line_hash = (
                state.offset,
                state.last_line_start,
                state.last_line_hash,
            )
            new.parser = state.parser
            new.skipping = state.skipping
        else:
            result.restarted, result.reason = True, reason

    def generate() -> Iterator[tuple[int, bytes]]:
        with handle:
            handle.seek(start)
            position = start  # file offset of ``chunk[0]``
            line_start = start  # file offset where the line being read begins
            parts: list[bytes] = []  # the unfinished line's bytes so far (never more than ``max_line``)
            held = 0
            skipping = new.skipping  # inside a refused line: read on to its newline, keep nothing
            last: tuple[int, bytes] | None = None  # the last line read (or the end of a skipped one): its start
            while True:
                chunk = handle.read(CHUNK)
                if not chunk:
                    break
                size = len(chunk)
                begin = 0
                while begin < size:
                    end = chunk.find(b"\n", begin)
                    if end < 0:
                        if skipping:
                            pass
                        elif held + size - begin > max_line:
                            result.oversized.append(line_start)
                            parts, held, skipping = [], 0, True
                        else:
                            parts.append(chunk[begin:] if begin else chunk)
                            was, held = held, held + size - begin
                            if was <= NOT_JSON_AFTER < held and not _may_be_json(parts):
                                result.not_json.append(line_start)
                                parts, held, skipping = [], 0, True
                        break
                    if skipping:
                        skipping = False
                        mark = max(begin, end - MARK)
                        last = (position + mark, chunk[mark:end])
                    elif held + end - begin > max_line:
                        result.oversized.append(line_start)
                        parts, held = [], 0
                        mark = max(begin, end - MARK)
                        last = (position + mark, chunk[mark:end])
                    else:
                        if parts:
                            parts.append(chunk[begin:end])
                            line = b"".join(parts)
                            parts, held = [], 0
                        else:
                            line = chunk[begin:end]
                        yield line_start, line
                        last = (line_start, line)
                    begin = end + 1
                    line_start = position + begin
                    new.offset = line_start
                if skipping:
                    # Past the bytes skipped: a later run goes on skipping this line to its newline. The end of
                    # what was skipped stands for the last line read (to notice a rewrite without reading it).
                    mark = max(0, size - MARK)
                    last = (position + mark, chunk[mark:])
                    new.offset = position + size
                position += size
            new.skipping = skipping
            if parts:
                carry = b"".join(parts)
                if _complete_json_object(carry):
                    yield line_start, carry
                    last = (line_start, carry)
                    new.offset = line_start + len(carry)
                else:
                    result.pending_tail = len(carry)
            if last is not None:  # only the last line read is remembered (to notice a rewrite)
                new.last_line_start, new.last_line_hash = last[0], line_hash(last[1].rstrip(b"\r\n"))
            new.size = max(new.size, new.offset)

    return generate(), result, new


def resume_matching(path: Path, state: FileState | None, expected: Path) -> FileState | None:
    """When everything appended to ``path`` since ``state`` is byte for byte the file ``expected`` (the lines
    this process itself appended, kept aside as it wrote them), the state after reading all of it; else None.

    So a loader can take those lines from ``expected`` without reading and checking them one by one again.
    The file must be the one ``state`` describes (same inode, not shrunk, same last line) and ``expected``
    must end with a newline.
    """
    try:
        st = path.stat()
        want = expected.stat().st_size
        handle = path.open("rb")
    except OSError:
        return None
    with handle, expected.open("rb") as mine:
        start = 0
        if state is not None:
            same, _ = _unchanged(state, st, handle)
            if not same:
                return None
            start = state.offset
        if want == 0 or st.st_size - start != want:
            return None
        handle.seek(start)
        last_start = 0  # where the last line starts: after the last newline before the final byte
        position = 0
        tail = b""
        while True:
            ours = mine.read(CHUNK)
            if not ours:
                break
            if handle.read(len(ours)) != ours:
                return None
            newline = ours.rfind(b"\n", 0, min(len(ours), want - 1 - position))
            if newline >= 0:
                last_start = position + newline + 1
            position += len(ours)
            tail = ours
        if not tail.endswith(b"\n"):
            return None
        mine.seek(last_start)
        last_line = mine.read(want - last_start).rstrip(b"\r\n")
    return FileState(
        path=str(path),
        dev=st.st_dev,
        inode=st.st_ino,
        size=st.st_size,
        mtime_ns=st.st_mtime_ns,
        offset=start + want,
        last_line_start=start + last_start,
        last_line_hash=line_hash(last_line),
        parser=state.parser if state is not None else {},
    )
