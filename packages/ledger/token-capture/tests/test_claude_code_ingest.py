"""Claude Code transcripts: dedupe, sidechains, attribution, incremental reads, rewrites and bad lines."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from ctxops_contracts import UsageRecord, decode
from ctxops_token_capture.ingest import Sources, ingest
from ctxops_token_capture.totals import totals
from ledger_synthetic import write_claude_sessions

REPO = Path(__file__).resolve().parents[4]
RECORDED = REPO / "examples" / "sessions" / "claude-code-2.1.332"


def _records(root: Path) -> list[UsageRecord]:
    return [
        decode(UsageRecord, line)
        for path in sorted((root / "usage").glob("*.jsonl"))
        for line in path.read_bytes().splitlines()
        if line.strip()
    ]


def _assistant(
    message_id: str,
    request_id: str | None,
    usage: dict[str, Any],
    *,
    ts: str,
    block: dict[str, Any],
    session: str = "s-1",
    sidechain: bool = False,
    model: str = "claude-opus-5-5",
) -> str:
    line: dict[str, Any] = {
        "parentUuid": None,
        "isSidechain": sidechain,
        "type": "assistant",
        "uuid": f"u-{message_id}-{block.get('type')}",
        "timestamp": ts,
        "cwd": "/home/dev/shop",
        "sessionId": session,
        "gitBranch": "main",
        "message": {"id": message_id, "role": "assistant", "model": model, "content": [block], "usage": usage},
    }
    if request_id:
        line["requestId"] = request_id
    return json.dumps(line)


def _usage(inp: int, out: int, write: int = 0, read: int = 0, one_hour: int = 0) -> dict[str, Any]:
    return {
        "input_tokens": inp,
        "output_tokens": out,
        "cache_creation_input_tokens": write,
        "cache_read_input_tokens": read,
        "cache_creation": {"ephemeral_1h_input_tokens": one_hour, "ephemeral_5m_input_tokens": write - one_hour},
    }


def _tool_result(tool_id: str, content: str, ts: str, session: str = "s-1") -> str:
    return json.dumps(
        {
            "type": "user",
            "isSidechain": False,
            "timestamp": ts,
            "sessionId": session,
            "uuid": f"r-{tool_id}",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": content}],
            },
            "toolUseResult": {"type": "text", "file": {"filePath": "/x", "content": content}},
        }
    )


def _write(path: Path, lines: list[str], *, end: str = "\n") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + end)


def test_recorded_claude_code_session_matches_the_server_log(tmp_path: Path) -> None:
    config = tmp_path / "claude"
    shutil.copytree(RECORDED / "transcripts", config / "projects")
    report = ingest(Sources(claude_dirs=[config]), tmp_path / "ledger")
    sent = [json.loads(line) for line in (RECORDED / "server-log.jsonl").read_text().splitlines()]
    # Compaction replies are not written to transcripts; every other response is, exactly once.
    expected = {r["message_id"]: r for r in sent if r.get("kind") == "response" and r["role"] != "compact"}
    records = _records(tmp_path / "ledger")
    assert report.records == len(records) == len(expected)
    for record in records:
        usage = expected[record.message_id]["usage"]
        assert record.request_id == expected[record.message_id]["request_id"]
        assert (record.input_tokens, record.output_tokens) == (usage["input_tokens"], usage["output_tokens"])
        assert record.cache_creation_tokens == usage["cache_creation_input_tokens"]
        assert record.cache_creation_1h_tokens == usage["cache_creation"]["ephemeral_1h_input_tokens"]
        assert record.cache_read_tokens == usage["cache_read_input_tokens"]
    sidechain = [r for r in records if r.is_sidechain]
    assert {expected[r.message_id]["role"] for r in sidechain} == {"subagent"}
    assert {r.session_id for r in records} == {records[0].session_id}  # the subagent counts for its parent
    reads = [a for r in records for a in r.attribution if a.tool == "Read"]
    assert reads and reads[0].files and reads[0].files[0].endswith("app.py") and reads[0].bytes > 0


def test_content_block_lines_count_once_and_attribution_follows_tool_results(tmp_path: Path) -> None:
    config = tmp_path / "claude"
    usage = _usage(100, 50, write=300, read=9000, one_hour=100)
    _write(
        config / "projects" / "-home-dev-shop" / "s-1.jsonl",
        [
            _assistant(
                "msg_1", "req_1", usage, ts="2026-11-29T10:00:00.000Z", block={"type": "text", "text": "Reading."}
            ),
            _assistant(
                "msg_1",
                "req_1",
                usage,
                ts="2026-11-29T10:00:00.100Z",
                block={
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "Read",
                    "input": {"file_path": "/home/dev/shop/app.py"},
                },
            ),
            _tool_result("toolu_1", "def f():\n    return 1\n" * 50, "2026-11-29T10:00:01.000Z"),
            _assistant(
                "msg_2", "req_2", _usage(7, 3), ts="2026-11-29T10:00:02.000Z", block={"type": "text", "text": "Done."}
            ),
        ],
    )
    ingest(Sources(claude_dirs=[config]), tmp_path / "ledger")
    first, second = sorted(_records(tmp_path / "ledger"), key=lambda r: r.ts)
    assert (first.input_tokens, first.output_tokens, first.cache_creation_1h_tokens) == (100, 50, 100)
    assert first.attribution == []
    (fed,) = second.attribution
    assert fed.tool == "Read" and fed.files == ["/home/dev/shop/app.py"]
    assert fed.bytes == len("def f():\n    return 1\n" * 50) and 150 <= fed.tokens <= 450


def test_incremental_reads_only_appended_lines_and_idempotent_totals(tmp_path: Path) -> None:
    config, root = tmp_path / "claude", tmp_path / "ledger"
    truth = write_claude_sessions(config, sessions=3, turns=5)
    first = ingest(Sources(claude_dirs=[config]), root)
    assert first.records == truth.calls
    again = ingest(Sources(claude_dirs=[config]), root)
    assert again.files_read == 0 and again.records == 0 and again.lines_read == 0
    session = next((config / "projects").rglob("*.jsonl"))
    size = session.stat().st_size
    with session.open("a") as handle:
        handle.write(
            _assistant(
                "msg_new", "req_new", _usage(11, 22), ts="2026-11-30T01:00:00.000Z", block={"type": "text", "text": "x"}
            )
            + "\n"
        )
    third = ingest(Sources(claude_dirs=[config]), root)
    assert third.files_read == 1 and third.lines_read == 1 and third.records == 1
    assert third.bytes_read == session.stat().st_size - size
    result = totals(["model"], root=root)
    assert result.total["calls"] == truth.calls + 1
    assert result.total["input_tokens"] == truth.total()["input_tokens"] + 11


def test_rewritten_or_replaced_file_is_reread_without_double_counting(tmp_path: Path) -> None:
    config, root = tmp_path / "claude", tmp_path / "ledger"
    path = config / "projects" / "p" / "s-1.jsonl"
    lines = [
        _assistant("msg_1", "req_1", _usage(1, 2), ts="2026-11-29T10:00:00.000Z", block={"type": "text", "text": "a"}),
        _assistant("msg_2", "req_2", _usage(3, 4), ts="2026-11-29T10:00:01.000Z", block={"type": "text", "text": "b"}),
    ]
    _write(path, lines)
    ingest(Sources(claude_dirs=[config]), root)
    # Rewritten in place with the same first line and a different last line (same length or longer).
    _write(
        path,
        [
            lines[0],
            lines[1].replace('"b"', '"c"'),
            _assistant(
                "msg_3", "req_3", _usage(5, 6), ts="2026-11-29T10:00:02.000Z", block={"type": "text", "text": "d"}
            ),
        ],
    )
    report = ingest(Sources(claude_dirs=[config]), root)
    assert report.files_restarted == 1
    assert totals(["day"], root=root).total["input_tokens"] == 1 + 3 + 5
    # Replaced by a new file (new inode), e.g. rotation by a sync tool.
    replacement = path.with_suffix(".new")
    replacement.write_bytes(path.read_bytes())
    replacement.replace(path)
    report = ingest(Sources(claude_dirs=[config]), root)
    assert report.files_restarted == 1 and report.loaded == 0
    assert totals(["day"], root=root).total["calls"] == 3


def test_bad_lines_are_counted_with_reasons_and_never_fatal(tmp_path: Path) -> None:
    config, root = tmp_path / "claude", tmp_path / "ledger"
    good = _assistant(
        "msg_ok", "req_ok", _usage(10, 20), ts="2026-11-29T10:00:00.000Z", block={"type": "text", "text": "ok"}
    )
    _write(
        config / "projects" / "p" / "s.jsonl",
        [
            good,
            '{"type":"assistant","message":{"id":"msg_broken","usage":{"input_tokens":',  # invalid JSON
            "not json at all",
            _assistant(
                "msg_neg", "req_neg", _usage(-5, 20), ts="2026-11-29T10:00:00.000Z", block={"type": "text", "text": ""}
            ),
            _assistant(
                "msg_big",
                "req_big",
                _usage(10, 10**12),
                ts="2026-11-29T10:00:00.000Z",
                block={"type": "text", "text": ""},
            ),
            _assistant(
                "msg_float",
                "req_float",
                _usage(1.5, 2),
                ts="2026-11-29T10:00:00.000Z",
                block={"type": "text", "text": ""},
            ),  # type: ignore[arg-type]
            json.dumps(
                {
                    "type": "assistant",
                    "timestamp": "2026-11-29T10:00:00Z",
                    "message": {"id": "msg_nousage", "role": "assistant", "content": [{"type": "text", "text": "hi"}]},
                }
            ),
            _assistant("msg_notime", "req_notime", _usage(1, 1), ts="yesterday", block={"type": "text", "text": ""}),
            _assistant(
                "msg_naive", "req_naive", _usage(2, 2), ts="2026-11-29T23:30:00", block={"type": "text", "text": ""}
            ),
            _assistant(
                "msg_early",
                "req_early",
                _usage(3, 3),
                ts="2026-11-28T09:00:00.000Z",
                block={"type": "text", "text": ""},
                model="claude-future-9",
            ),
        ],
        end="\n" + good[:40],  # a truncated last line: a writer may still be writing it
    )
    report = ingest(Sources(claude_dirs=[config]), root)
    assert report.invalid_json == 2
    assert report.rejected == 4
    assert report.no_usage == 1
    assert report.naive_timestamps == 1
    assert report.incomplete_tails == 1
    assert report.records == 3
    joined = " ".join(report.examples)
    assert "negative" in joined and "absurd" in joined and "whole number" in joined and "timestamp" in joined
    by_model = {r["model"]: r for r in totals(["model"], root=root).rows}
    assert by_model["claude-future-9"]["calls"] == 1  # unknown models are kept as they are
    # The truncated tail is completed later: it is read then, once.
    path = config / "projects" / "p" / "s.jsonl"
    path.write_bytes(
        path.read_bytes()[:-40] + good.replace("msg_ok", "msg_tail").replace("req_ok", "req_tail").encode() + b"\n"
    )
    later = ingest(Sources(claude_dirs=[config]), root)
    assert later.records == 1 and later.incomplete_tails == 0


def test_same_session_in_two_config_dirs_counts_once(tmp_path: Path) -> None:
    first, second, root = tmp_path / "a", tmp_path / "b", tmp_path / "ledger"
    truth = write_claude_sessions(first, sessions=2, turns=4)
    shutil.copytree(first, second)
    report = ingest(Sources(claude_dirs=[first, second]), root)
    assert report.records == truth.calls and report.duplicates >= truth.calls
    assert totals(["session"], root=root).total["calls"] == truth.calls


def test_per_session_and_per_day_totals_equal_the_generated_truth(tmp_path: Path) -> None:
    config, root = tmp_path / "claude", tmp_path / "ledger"
    truth = write_claude_sessions(config, sessions=4, turns=6)
    ingest(Sources(claude_dirs=[config]), root)
    rows = totals(["session"], root=root).rows
    assert {r["session"]: (r["calls"], r["output_tokens"]) for r in rows} == {
        s: (v["calls"], v["output_tokens"]) for s, v in truth.by_session.items()
    }
    day_model = {(r["day"], r["model"]): r["cache_read_tokens"] for r in totals(["day", "model"], root=root).rows}
    assert day_model == {k: v["cache_read_tokens"] for k, v in truth.by_day_model.items()}
    # Days follow --tz: the sessions straddle midnight UTC, so Tokyo days differ.
    tokyo = {r["day"] for r in totals(["day"], tz="Asia/Tokyo", root=root).rows}
    assert tokyo != {k[0] for k in truth.by_day_model}


def test_a_file_that_vanishes_before_it_is_read_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ctxops_token_capture import ingest as ingest_module
    from ctxops_token_capture.file_ingest import SourceFile

    config, root = tmp_path / "claude", tmp_path / "ledger"
    truth = write_claude_sessions(config, sessions=2, turns=3)
    listed = ingest_module.discover(Sources(claude_dirs=[config]))
    gone = SourceFile("claude-code", config / "projects" / "p" / "gone.jsonl")
    # deleted after listing
    monkeypatch.setattr(ingest_module, "discover", lambda sources, keep=None, found=None: [gone, *listed])
    report = ingest(Sources(claude_dirs=[config]), root)
    assert report.records == truth.calls and report.rejected == 1
    assert "unreadable file" in report.examples[0]


def test_a_no_op_reingest_opens_no_transcript(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ctxops_token_capture import claude_code

    config, root = tmp_path / "claude", tmp_path / "ledger"
    write_claude_sessions(config, sessions=4, turns=3)
    ingest(Sources(claude_dirs=[config]), root)
    state = root / "state" / "sources.json"
    written = state.stat().st_mtime_ns
    heads: list[Path] = []
    real_first = claude_code.first_timestamp
    monkeypatch.setattr(claude_code, "first_timestamp", lambda path: heads.append(path) or real_first(path))
    again = ingest(Sources(claude_dirs=[config]), root)
    assert again.files_seen > 0 and again.files_read == 0 and heads == []
    assert state.stat().st_mtime_ns == written  # the state file is not rewritten when nothing changed
    touched = next((config / "projects").rglob("*.jsonl"))
    with touched.open("ab") as handle:
        handle.write(b'{"type":"user","timestamp":"2026-11-30T00:00:00Z"}\n')
    third = ingest(Sources(claude_dirs=[config]), root)
    assert third.files_read == 1 and heads == [touched]


def test_web_searches_and_inference_geo_are_recorded_and_an_odd_count_keeps_the_tokens(tmp_path: Path) -> None:
    config = tmp_path / "claude"
    searched = {**_usage(100, 20), "server_tool_use": {"web_search_requests": 3}, "inference_geo": "us"}
    odd = {**_usage(50, 10), "server_tool_use": {"web_search_requests": "many"}, "inference_geo": ""}
    text = {"type": "text", "text": "ok"}
    _write(
        config / "projects" / "p" / "s-1.jsonl",
        [
            _assistant("m1", "r1", searched, ts="2026-11-28T09:00:00Z", block=text),
            _assistant("m2", "r2", odd, ts="2026-11-28T09:01:00Z", block=text),
        ],
    )
    ingest(Sources(claude_dirs=[config]), tmp_path / "ledger")
    by_id = {r.message_id: r for r in _records(tmp_path / "ledger")}
    assert (by_id["m1"].web_search_requests, by_id["m1"].inference_geo) == (3, "us")
    assert (by_id["m2"].input_tokens, by_id["m2"].web_search_requests, by_id["m2"].inference_geo) == (50, 0, None)


def test_first_timestamp_reads_past_a_long_first_line_and_skips_a_value_cut_by_its_line(tmp_path: Path) -> None:
    from ctxops_token_capture.claude_code import first_timestamp

    long_head = tmp_path / "long.jsonl"
    summary = json.dumps({"type": "summary", "summary": "x" * 9000})
    long_head.write_text(summary + '\n{"type":"user","timestamp":"2026-11-02T10:00:00Z"}\n')  # compact, as Claude Code
    assert first_timestamp(long_head) == "2026-11-02T10:00:00Z"
    cut = tmp_path / "cut.jsonl"  # a line ending inside a value (a torn write), then a whole one
    cut.write_bytes(b'{"timestamp":"2026-11-0\n{"timestamp":"2026-11-03T08:00:00Z"}\n')
    assert first_timestamp(cut) == "2026-11-03T08:00:00Z"
    none = tmp_path / "none.jsonl"
    none.write_text(json.dumps({"type": "summary"}) + "\n")
    assert first_timestamp(none) == "~" and first_timestamp(tmp_path / "missing.jsonl") == "~"


def test_the_no_op_signature_never_hides_a_change(tmp_path: Path) -> None:
    """A re-run with nothing new compares one signature; each kind of change still takes the usual path."""
    from ctxops_token_capture.jsonl_store import append_records
    from ledger_records import record

    config, root = tmp_path / "claude", tmp_path / "ledger"
    truth = write_claude_sessions(config, sessions=3, turns=3)
    files = sorted((config / "projects").rglob("*.jsonl"))
    assert ingest(Sources(claude_dirs=[config]), root).files_read == len(files)
    assert (root / "state" / "sources.sig").exists()
    assert ingest(Sources(claude_dirs=[config]), root).files_read == 0
    # The state file gone: every file is read again (loading is idempotent).
    (root / "state" / "sources.json").unlink()
    again = ingest(Sources(claude_dirs=[config]), root)
    assert again.files_read == len(files) and again.loaded == 0
    # Touched without a change of size: read again (from where it stopped; nothing new in it).
    os.utime(files[0], ns=(files[0].stat().st_atime_ns, files[0].stat().st_mtime_ns + 1_000_000))
    assert ingest(Sources(claude_dirs=[config]), root).files_read == 1
    # A file removed: nothing to read, and the next run is a no-op again.
    files[-1].unlink()
    assert ingest(Sources(claude_dirs=[config]), root).files_read == 0
    assert ingest(Sources(claude_dirs=[config]), root).files_read == 0
    # Another origin's records since the last run: no transcript to read, but they reach the ledger.
    append_records([record(datetime(2026, 11, 30, tzinfo=UTC), origin="proxy", dedupe_key="proxy-1")], "proxy", root)
    assert ingest(Sources(claude_dirs=[config]), root).loaded == 1
    assert totals(["day"], root=root).total["calls"] == truth.calls + 1
    # Another source directory: its files are found and read.
    other = tmp_path / "other"
    write_claude_sessions(other, sessions=1, turns=2, seed=77)
    both = ingest(Sources(claude_dirs=[config, other]), root)
    assert both.files_read == len(list((other / "projects").rglob("*.jsonl")))


@pytest.mark.skipif(bool(os.environ.get("COVERAGE_PROCESS_CONFIG")), reason="coverage tracing loads modules of its own")
def test_a_no_op_reingest_imports_no_parser_msgspec_or_duckdb(tmp_path: Path) -> None:
    config, root = tmp_path / "claude", tmp_path / "ledger"
    write_claude_sessions(config, sessions=2, turns=3)
    ingest(Sources(claude_dirs=[config]), root)
    probe = (
        "import sys\n"
        "from ctxops_token_capture.cli import main\n"
        f"code = main(['ingest', '--claude-dir', {str(config)!r}, '--data-dir', {str(root)!r}, '--json'])\n"
        "heavy = ('msgspec', 'duckdb', '_duckdb', 'dataclasses', 'ctxops_token_capture.claude_code',"
        " 'ctxops_contracts.records')\n"
        "print(code, sorted(name for name in heavy if name in sys.modules), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stderr.strip() == "0 []"
    assert json.loads(done.stdout)["files_read"] == 0
