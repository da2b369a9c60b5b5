"""Beyond ccusage@17: streamed partials, replays without requestId, odd fields, `<synthetic>` lines.

The streamed-partials rule was established with the real client first (Claude Code 2.1.332 against the
scripted server, which streams `output_tokens` 1 in `message_start` and the final count in `message_delta`):
every transcript line of a message with a text block and a tool_use block carried the final count. Older
clients wrote lines as blocks finished, with a growing count (ccusage issues #901, #938); there the last line
is the truth, and `--compat ccusage` keeps the first, as ccusage does.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ctxops_token_capture.ingest import Sources, ingest
from ctxops_token_capture.totals import totals
from ledger_records import assistant_line as _assistant
from ledger_records import records_in as _records
from ledger_records import usage_dict as _usage
from ledger_records import write_transcript

TEXT = {"type": "text", "text": "Reading the file."}
THINK = {"type": "thinking", "thinking": "...", "signature": "x"}
TOOL = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/home/dev/shop/a.py"}}


def test_streamed_partials_the_last_line_counts_and_compat_keeps_the_first(tmp_path: Path) -> None:
    config = tmp_path / "claude"
    ts = "2026-11-29T10:00:0{}Z"
    write_transcript(
        config,
        "s-1.jsonl",
        [
            _assistant("msg_1", "req_1", _usage(50, 3, read=1000), ts=ts.format(1), block=THINK),
            _assistant("msg_1", "req_1", _usage(50, 41, read=1000), ts=ts.format(2), block=TEXT),
            _assistant("msg_1", "req_1", _usage(50, 777, read=1000), ts=ts.format(3), block=TOOL),
            _assistant("msg_2", "req_2", _usage(10, 20), ts=ts.format(4), block=TEXT),
        ],
    )
    exact, compat = tmp_path / "exact", tmp_path / "compat"
    report = ingest(Sources(claude_dirs=[config]), exact)
    assert report.grown_outputs == 2 and report.duplicates == 2
    assert totals(["model"], root=exact).total["output_tokens"] == 777 + 20
    assert totals(["model"], root=exact).total["calls"] == 2
    ingest(Sources(claude_dirs=[config]), compat, compat="ccusage")
    assert totals(["model"], root=compat).total["output_tokens"] == 3 + 20


def test_a_message_split_across_runs_still_takes_the_final_count(tmp_path: Path) -> None:
    config, root = tmp_path / "claude", tmp_path / "ledger"
    path = write_transcript(
        config, "s-1.jsonl", [_assistant("msg_1", "req_1", _usage(5, 2), ts="2026-11-29T10:00:01Z", block=TEXT)]
    )
    ingest(Sources(claude_dirs=[config]), root)
    with path.open("a") as handle:
        handle.write(_assistant("msg_1", "req_1", _usage(5, 90), ts="2026-11-29T10:00:02Z", block=TOOL) + "\n")
    ingest(Sources(claude_dirs=[config]), root)
    result = totals(["model"], root=root)
    assert (result.total["calls"], result.total["output_tokens"]) == (1, 90)


def test_a_replay_without_request_id_under_a_new_session_counts_once(tmp_path: Path) -> None:
    config, root = tmp_path / "claude", tmp_path / "ledger"
    original = _assistant("msg_9", None, _usage(100, 10), ts="2026-11-29T10:00:00Z", block=TEXT, session="s-1")
    write_transcript(config, "s-1.jsonl", [original])
    # Resuming copies the history into a new file with the new session id.
    replay = original.replace('"sessionId": "s-1"', '"sessionId": "s-2"')
    fresh = _assistant("msg_10", None, _usage(7, 3), ts="2026-11-29T11:00:00Z", block=TEXT, session="s-2")
    write_transcript(config, "s-2.jsonl", [replay, fresh])
    ingest(Sources(claude_dirs=[config]), root)
    result = totals(["model"], root=root)
    assert (result.total["calls"], result.total["input_tokens"]) == (2, 107)


def test_odd_fields_never_lose_a_calls_tokens(tmp_path: Path) -> None:
    config, root = tmp_path / "claude", tmp_path / "ledger"
    odd_input = {"type": "tool_use", "id": "toolu_x", "name": "Bash", "input": "ls -la"}  # a string input
    numeric_id = {"type": "tool_use", "id": 12345, "name": "Read", "input": {"file_path": 7}}
    surrogate = {"type": "text", "text": "\ud800 lone surrogate"}
    lines = [
        _assistant("msg_a", "req_a", _usage(11, 1), ts="2026-11-29T10:00:00Z", block=odd_input),
        _assistant("msg_b", "req_b", _usage(13, 1), ts="2026-11-29T10:00:01Z", block=numeric_id),
        _assistant("msg_c", "req_c", _usage(17, 1), ts="2026-11-29T10:00:02Z", block=surrogate),
    ]
    path = write_transcript(config, "s-1.jsonl", lines)
    # Invalid UTF-8 in cwd (bytes written raw).
    bad_cwd = _assistant("msg_d", "req_d", _usage(19, 1), ts="2026-11-29T10:00:03Z", block=TEXT).encode()
    bad_cwd = bad_cwd.replace(b"/home/dev/shop", b"/home/dev/\xff\xfeshop")
    with path.open("ab") as handle:
        handle.write(bad_cwd + b"\n")
    report = ingest(Sources(claude_dirs=[config]), root)
    assert report.invalid_json == 0 and report.rejected == 0
    assert totals(["model"], root=root).total["input_tokens"] == 11 + 13 + 17 + 19


def test_synthetic_lines_are_not_a_model_row(tmp_path: Path) -> None:
    config, root = tmp_path / "claude", tmp_path / "ledger"
    synthetic = _assistant("msg_s", None, _usage(0, 0), ts="2026-11-29T10:00:00Z", block=TEXT, model="<synthetic>")
    real = _assistant("msg_r", "req_r", _usage(5, 5), ts="2026-11-29T10:00:01Z", block=TEXT)
    write_transcript(config, "s-1.jsonl", [synthetic, real])
    ingest(Sources(claude_dirs=[config]), root)
    assert [r["model"] for r in totals(["model"], root=root).rows] == ["claude-opus-5-5"]
    assert all(r.model != "<synthetic>" for r in _records(root))


def test_same_size_rewrite_in_place_is_detected(tmp_path: Path) -> None:
    config, root = tmp_path / "claude", tmp_path / "ledger"
    first = _assistant("msg_1", "req_1", _usage(111, 1), ts="2026-11-29T10:00:00Z", block=TEXT)
    path = write_transcript(config, "s-1.jsonl", [first])
    ingest(Sources(claude_dirs=[config]), root)
    rewritten = (
        first.replace("msg_1", "msg_7").replace("req_1", "req_7").replace('"input_tokens": 111', '"input_tokens": 222')
    )
    assert len(rewritten) == len(first)
    with path.open("r+") as handle:  # same inode, same size, new content
        handle.write(rewritten + "\n")
    report = ingest(Sources(claude_dirs=[config]), root)
    assert report.files_restarted == 1
    assert totals(["model"], root=root).total["input_tokens"] == 111 + 222


def test_symlinked_project_directories_are_followed_once_without_looping(tmp_path: Path) -> None:
    config, root = tmp_path / "claude", tmp_path / "ledger"
    elsewhere = tmp_path / "elsewhere" / "-home-dev-other"
    elsewhere.mkdir(parents=True)
    (elsewhere / "s-9.jsonl").write_text(
        _assistant("msg_9", "req_9", _usage(9, 1), ts="2026-11-29T10:00:00Z", block=TEXT) + "\n"
    )
    write_transcript(
        config, "s-1.jsonl", [_assistant("msg_1", "req_1", _usage(1, 1), ts="2026-11-29T10:00:00Z", block=TEXT)]
    )
    (config / "projects" / "-home-dev-other").symlink_to(elsewhere, target_is_directory=True)
    (elsewhere / "loop").symlink_to(config / "projects", target_is_directory=True)  # a cycle back
    ingest(Sources(claude_dirs=[config]), root)
    result = totals(["model"], root=root)
    assert (result.total["calls"], result.total["input_tokens"]) == (2, 10)
    assert json.loads(json.dumps(result.as_dict()))["total"]["calls"] == 2


def test_stable_ulid_is_the_crockford_ulid_of_time_and_key_hash() -> None:
    """Against a plain bit-by-bit ULID writer: 48 bits of milliseconds, 80 bits of the key's blake2b."""
    import hashlib
    import random

    from ctxops_token_capture.ids import stable_ulid

    def reference(ts_ms: int, key: str) -> str:
        value = (max(ts_ms, 0) << 80) | int.from_bytes(hashlib.blake2b(key.encode(), digest_size=10).digest(), "big")
        return "".join("0123456789ABCDEFGHJKMNPQRSTVWXYZ"[(value >> (5 * i)) & 31] for i in reversed(range(26)))

    rng = random.Random(5)
    cases = [(rng.randrange(1 << 48), f"anthropic:msg_{n}:req_{n}") for n in range(2000)]
    cases += [(0, ""), (-1, "x"), ((1 << 48) - 1, "é")]
    assert all(stable_ulid(ts, key) == reference(ts, key) for ts, key in cases)
    assert len(stable_ulid(1_764_547_200_000, "k")) == 26


def test_timestamps_in_every_accepted_form() -> None:
    from datetime import UTC, datetime

    from ctxops_token_capture.timestamps import TimestampError, parse_timestamp

    utc = datetime(2026, 11, 29, 10, 0, 0, 123000, tzinfo=UTC)
    for text in ("2026-11-29T10:00:00.123Z", "2026-11-29T10:00:00.123z", " 2026-11-29T10:00:00.123+00:00 "):
        assert parse_timestamp(text) == (utc, False)
    assert parse_timestamp("2026-11-29T11:00:00.123+01:00") == (utc, False)
    assert parse_timestamp("2026-11-29T10:00:00.123") == (utc, True)  # no zone: UTC, and said so
    for bad in ("", "yesterday", 17, None):
        with pytest.raises(TimestampError):
            parse_timestamp(bad)
