"""Bounded reading: an over-long line is refused with file:offset and skipped without being held in memory."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ctxops_token_capture.incremental import CHUNK, iter_new_lines
from ctxops_token_capture.ingest import Sources, ingest


def _call(message_id: str, ts: str, inp: int = 10) -> bytes:
    line = {
        "type": "assistant",
        "timestamp": ts,
        "sessionId": "s-1",
        "requestId": f"r-{message_id}",
        "cwd": "/tmp/x",
        "message": {
            "id": message_id,
            "model": "claude-sonnet-4-5",
            "usage": {"input_tokens": inp, "output_tokens": 5},
        },
    }
    return json.dumps(line).encode() + b"\n"


def test_a_line_over_the_cap_is_refused_and_the_next_lines_are_read(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    long = b'{"x":"' + b"a" * (3 * CHUNK) + b'"}\n'
    path.write_bytes(_call("m1", "2026-01-01T00:00:00Z") + long + _call("m2", "2026-01-01T00:01:00Z"))
    lines, result, state = iter_new_lines(path, None, max_line=CHUNK)
    got = list(lines)
    first = len(_call("m1", "2026-01-01T00:00:00Z"))
    assert [offset for offset, _ in got] == [0, first + len(long)]
    assert result.oversized == [first]
    assert state.offset == path.stat().st_size
    # A re-run finds nothing new, and the file is not taken for rewritten.
    lines, result, _ = iter_new_lines(path, state, max_line=CHUNK)
    assert list(lines) == [] and not result.restarted


def test_a_refused_line_still_being_written_is_skipped_on_to_its_newline_next_time(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(_call("m1", "2026-01-01T00:00:00Z") + b'{"x":"' + b"a" * (2 * CHUNK))
    lines, result, state = iter_new_lines(path, None, max_line=CHUNK)
    assert len(list(lines)) == 1 and len(result.oversized) == 1
    assert state.skipping and state.offset == path.stat().st_size
    with path.open("ab") as handle:
        handle.write(b"b" * 1000 + b'"}\n' + _call("m2", "2026-01-01T00:01:00Z"))
    lines, result, state = iter_new_lines(path, state, max_line=CHUNK)
    got = list(lines)
    assert not result.restarted and result.oversized == []
    assert len(got) == 1 and b'"m2"' in got[0][1]
    assert not state.skipping


def test_a_long_line_that_is_no_json_object_is_dropped_after_a_megabyte(tmp_path: Path) -> None:
    path = tmp_path / "zeros.jsonl"
    with path.open("wb") as handle:
        handle.write(_call("m1", "2026-01-01T00:00:00Z"))
        handle.truncate(3 * CHUNK)  # NUL bytes, no newline: what `truncate -s` makes
    lines, result, state = iter_new_lines(path, None)
    assert len(list(lines)) == 1
    assert result.not_json == [len(_call("m1", "2026-01-01T00:00:00Z"))]
    assert result.pending_tail == 0 and state.offset == 3 * CHUNK


def test_ingest_reports_the_refused_line_with_file_and_offset(tmp_path: Path, data_root: Path) -> None:
    config = tmp_path / "claude"
    project = config / "projects" / "p"
    project.mkdir(parents=True)
    path = project / "s.jsonl"
    with path.open("wb") as handle:
        handle.write(_call("m1", "2026-01-01T00:00:00Z"))
        handle.truncate(40 << 20)
    report = ingest(Sources(claude_dirs=[config], codex_homes=[], gemini_dirs=[]), data_root)
    assert report.records == 1
    assert report.invalid_json == 1
    offset = len(_call("m1", "2026-01-01T00:00:00Z"))
    assert report.examples[0].startswith(f"{path}:{offset}: not a JSON object")
    assert report.examples[0].endswith("skipped unread")


def test_memory_stays_flat_on_a_file_without_newlines(tmp_path: Path) -> None:
    """A 160 MB file without a newline (over the 64 MB cap) costs the reader tens of MB, not the file's size."""
    path = tmp_path / "big.jsonl"
    with path.open("wb") as handle:
        handle.write(b'{"x":"')
        handle.truncate(160 << 20)
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from ctxops_token_capture.incremental import iter_new_lines\n"
        "lines, result, state = iter_new_lines(Path(sys.argv[1]), None)\n"
        "assert list(lines) == [] and result.oversized == [0], result\n"
        # The peak of this process's own memory (ru_maxrss would carry the parent's over fork and exec).
        "print(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    peak_mb = int(out.stdout) / 1024
    assert peak_mb < 64 + 2 * CHUNK / (1 << 20) + 80, peak_mb  # the cap, a chunk in flight, the interpreter
    path.unlink()
