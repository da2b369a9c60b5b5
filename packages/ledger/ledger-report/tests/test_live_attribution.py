"""Issue 25: live reports, projects without git, week starts, merged server-tool counts, closed pipes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest
from ctxops_ledger_report.cli import main
from ctxops_token_capture.jsonl_store import append_records
from ledger_records import record, write


def _line(message_id: str, ts: str, cwd: str, session: str = "s1", **usage: object) -> str:
    body = {"input_tokens": 100, "output_tokens": 20, **usage}
    line = {
        "type": "assistant",
        "timestamp": ts,
        "sessionId": session,
        "requestId": f"r-{message_id}",
        "cwd": cwd,
        "message": {"id": message_id, "model": "claude-sonnet-4-5", "usage": body},
    }
    return json.dumps(line) + "\n"


def _report(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _config(tmp_path: Path) -> Path:
    config = tmp_path / "claude"
    (config / "projects" / "p").mkdir(parents=True)
    return config


def test_a_call_appended_after_the_ingest_is_in_the_next_report(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(tmp_path)
    transcript = config / "projects" / "p" / "a.jsonl"
    transcript.write_text(_line("m1", "2026-11-01T10:00:00Z", "/tmp/x"))
    assert main(["ingest", "--claude-dir", str(config)]) == 0
    capsys.readouterr()
    with transcript.open("a") as handle:
        handle.write(_line("m2", "2026-11-02T10:00:00Z", "/tmp/x"))
    stale = _report(capsys, ["report", "day", "--no-ingest"])
    assert [r["day"] for r in stale["rows"]] == ["2026-11-01"]
    assert stale["notes"] == ["1 transcript file(s) changed since the last ingest (not read: --no-ingest)"]
    live = _report(capsys, ["report", "day"])
    assert [r["day"] for r in live["rows"]] == ["2026-11-01", "2026-11-02"]
    assert live["notes"] == ["ingested 1 new call(s) from 1 changed transcript file(s) first"]
    assert _report(capsys, ["report", "day"])["notes"] == []  # nothing changed since: nothing to say
    with transcript.open("a") as handle:
        handle.write(_line("m3", "2026-11-03T10:00:00Z", "/tmp/x"))
    assert main(["totals", "--json"]) == 0
    totals = json.loads(capsys.readouterr().out)
    assert totals["total"]["calls"] == 3 and "ingested 1 new call" in totals["note"]


def test_the_project_is_the_git_root_else_the_cwd_even_once_deleted(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    plain = tmp_path / "plain"
    plain.mkdir()
    gone = tmp_path / "gone"  # never created: a directory deleted before the ingest
    config = _config(tmp_path)
    (config / "projects" / "p" / "a.jsonl").write_text(
        _line("m1", "2026-11-01T10:00:00Z", str(repo / "sub"))
        + _line("m2", "2026-11-01T10:01:00Z", str(plain))
        + _line("m3", "2026-11-01T10:02:00Z", str(gone))
    )
    assert main(["ingest", "--claude-dir", str(config)]) == 0
    capsys.readouterr()
    projects = {r["repo"]: r["calls"] for r in _report(capsys, ["report", "project"])["rows"]}
    assert projects == {str(repo.resolve()): 1, str(plain): 1, str(gone): 1}
    assert main(["totals", "--by", "project", "--json"]) == 0
    assert {r["project"]: r["calls"] for r in json.loads(capsys.readouterr().out)["rows"]} == projects
    cwds = {r["cwd"] for r in _report(capsys, ["report", "cwd"])["rows"]}
    assert cwds == {str(repo / "sub"), str(plain), str(gone)}
    out = tmp_path / "export"
    assert main(["export", "--parquet", str(out)]) == 0
    rows = duckdb.sql(
        f"SELECT cwd, project FROM read_parquet('{out}/**/*.parquet', hive_partitioning=true) ORDER BY cwd"
    ).fetchall()
    assert rows == sorted([(str(repo / "sub"), str(repo.resolve())), (str(plain), str(plain)), (str(gone), str(gone))])


def test_week_start_sunday_or_monday(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 2026-11-01 is a Sunday: a week of its own from Sunday, the end of the week of Monday 10-26 otherwise.
    write(data_dir, [record(datetime(2026, 11, 1, 12, tzinfo=UTC)), record(datetime(2026, 11, 2, 12, tzinfo=UTC))])
    monday = [r["week"] for r in _report(capsys, ["report", "week"])["rows"]]
    sunday = [r["week"] for r in _report(capsys, ["report", "week", "--week-start", "sunday"])["rows"]]
    assert monday == ["2026-10-26", "2026-11-02"]
    assert sunday == ["2026-11-01"]


def test_a_zero_or_nothing_from_the_proxy_never_replaces_the_transcripts_searches_or_geography(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    at = datetime(2026, 11, 1, 12, tzinfo=UTC)
    common = {"message_id": "msg_1", "request_id": "req_1", "dedupe_key": "anthropic:msg_1:req_1"}
    write(data_dir, [record(at, origin="transcript", web_search_requests=2, inference_geo="us", **common)])
    append_records([record(at, origin="proxy", web_search_requests=0, **common)], "proxy", data_dir)
    row = _report(capsys, ["report", "session"])["rows"][0]
    tokens = 100 * 3e-6 + 50 * 15e-6
    assert row["calls"] == 1
    assert row["cost_usd"] == pytest.approx(tokens * 1.1 + 2 * 0.01)  # "us" inference: 1.1x the tokens


def test_a_closed_pipe_ends_the_report_quietly(data_dir: Path) -> None:
    write(data_dir, [record(datetime(2026, 1, 1, tzinfo=UTC), session_id=f"s{n:05d}") for n in range(3000)])
    env = {**os.environ, "CTXOPS_DATA_DIR": str(data_dir)}
    command = [sys.executable, "-m", "ctxops_ledger_report", "report", "session"]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert child.stdout is not None and child.stderr is not None
    first = child.stdout.readline()  # like `| head -1`: one line, then the reader goes away
    child.stdout.close()
    error = child.stderr.read().decode()
    assert child.wait(timeout=120) == 141
    assert first.startswith(b"session")
    assert "Traceback" not in error and "BrokenPipeError" not in error, error


def test_the_latency_report_has_percentiles_time_to_first_token_errors_and_retries(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    at = datetime(2026, 11, 1, 12, tzinfo=UTC)
    calls = [
        record(at, origin="proxy", latency_ms=float(ms), ttft_ms=float(ms) / 10, status=200) for ms in range(1, 101)
    ]
    calls.append(record(at, origin="proxy", latency_ms=5.0, status=529, error="upstream error: overloaded_error"))
    calls.append(record(at, origin="sdk", latency_ms=7.0, status=None, error="upstream closed mid-stream"))
    calls.append(record(at, origin="transcript"))  # no telemetry: not in this report
    append_records(calls, "proxy", data_dir)
    report = _report(capsys, ["report", "latency"])
    (row,) = report["rows"]
    assert (row["provider"], row["model"], row["calls"]) == ("anthropic", "claude-sonnet-4-5", 102)
    assert row["errors"] == 2 and row["retryable"] == 1
    assert row["error_rate"] == pytest.approx(2 / 102)
    assert row["ttft_p50_ms"] == pytest.approx(5.05) and row["ttft_p95_ms"] == pytest.approx(9.505)
    assert 45 < row["latency_p50_ms"] < 55 and 90 < row["latency_p95_ms"] < 100
    assert main(["report", "proxy"]) == 0
    table = capsys.readouterr().out
    assert "first token p50 ms" in table and "errors %" in table


def test_a_report_with_gemini_cli_calls_says_what_their_chat_files_leave_out(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    at = datetime(2026, 11, 1, 12, tzinfo=UTC)
    write(data_dir, [record(at)])
    assert not any("Gemini" in n for n in _report(capsys, ["report", "day"])["notes"])
    write(data_dir, [record(at, provider="google", model="gemini-2.5-pro")])
    notes = _report(capsys, ["report", "day"])["notes"]
    assert any(n.startswith("Gemini CLI chat files leave out its router") for n in notes), notes
