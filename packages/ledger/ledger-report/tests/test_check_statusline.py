"""Budgets and alerts (`ctx ledger check`), and the status line (documented stdin shape, no DuckDB)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from ctxops_ledger_report.cli import main
from ctxops_ledger_report.config import LedgerConfig
from ctxops_ledger_report.statusline import status_line
from ledger_records import record, write

NOW = datetime.now(UTC)


def earlier_today(minutes: float) -> datetime:
    """NOW minus ``minutes``, squeezed after midnight (UTC and local) so a run just past midnight stays in 'today'."""
    midnight = max(
        NOW.replace(hour=0, minute=0, second=0, microsecond=0),
        NOW.astimezone().replace(hour=0, minute=0, second=0, microsecond=0).astimezone(UTC),
    )
    since_midnight = NOW - midnight
    if since_midnight > timedelta(hours=1):
        return NOW - timedelta(minutes=minutes)
    return NOW - since_midnight * (minutes / 60)


def _config(tmp_path: Path, text: str) -> None:
    Path(os.environ["CTXOPS_CONFIG"]).write_text(text)


def test_check_passes_without_budgets_and_fails_with_what_burned_it(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(
        data_dir,
        [
            record(earlier_today(30), session_id="big", model="claude-opus-4-8", output_tokens=200_000),
            record(earlier_today(20), session_id="small", output_tokens=1_000),
        ],
    )
    assert main(["check"]) == 0
    assert "ok: within budgets (no budgets configured)" in capsys.readouterr().out
    _config(tmp_path, "[ledger.budgets]\nday = 2.0\nsession = 4.0\ntask = 100\n")
    assert main(["check", "--json"]) == 4  # EXIT_CHECK_FAILED
    result = json.loads(capsys.readouterr().out)
    assert not result["ok"]
    kinds = {f["kind"]: f for f in result["findings"]}
    assert set(kinds) == {"day", "session"}  # $5.03 today > $2; session big $5 > $4; no task over $100
    assert kinds["session"]["name"] == "big" and kinds["session"]["value"] == pytest.approx(100 * 5e-6 + 5.0)
    burned = [(b["by"], b["name"]) for b in kinds["day"]["burned_by"]]
    assert burned[0] == ("session", "big") and ("model", "claude-opus-4-8") in burned
    assert main(["check"]) == 4
    text = capsys.readouterr().out
    assert "over the day budget $2.00" in text and "session  big" in text
    _config(tmp_path, "[ledger.budgets]\nweek = 1\n")
    assert main(["check"]) == 2
    assert "'week' is not one of" in capsys.readouterr().err


def test_cache_hit_rate_drop_alert(data_dir: Path) -> None:
    from ctxops_ledger_report.check import cache_hit_alert
    from ctxops_ledger_report.store import open_view

    base = NOW - timedelta(days=3)
    records = []
    for n in range(20):  # a steady 90% cache hit rate...
        records.append(
            record(base + timedelta(hours=n), session_id=f"old-{n}", input_tokens=100, cache_read_tokens=900)
        )
    for n in range(5):  # ...then five sessions at 40%
        records.append(
            record(NOW - timedelta(hours=5 - n), session_id=f"new-{n}", input_tokens=600, cache_read_tokens=400)
        )
    write(data_dir, records)
    config = LedgerConfig(cache_hit_drop=0.15, recent_sessions=5, baseline_sessions=20)
    with open_view(data_dir) as view:
        alert = cache_hit_alert(view, config)
        assert alert is not None and alert.value == pytest.approx(0.4) and alert.threshold == pytest.approx(0.75)
        assert all(item["name"].startswith("new-") for item in alert.burned_by)
        assert cache_hit_alert(view, LedgerConfig(cache_hit_drop=0.6)) is None  # a drop of 0.5 is within 0.6


STATUS_PAYLOAD = {
    "hook_event_name": "Status",
    "session_id": "abc123",
    "transcript_path": "/nonexistent/transcript.jsonl",
    "cwd": "/home/dev/shop",
    "model": {"id": "claude-opus-4-8", "display_name": "Opus"},
    "workspace": {"current_dir": "/home/dev/shop", "project_dir": "/home/dev/shop"},
    "version": "2.1.332",
    "output_style": {"name": "default"},
    "cost": {"total_cost_usd": 0.4213, "total_duration_ms": 45000, "total_api_duration_ms": 2300},
}


def test_statusline_line_from_the_documented_payload_and_the_snapshot(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert status_line(STATUS_PAYLOAD, refresh=False) == "ctx session $0.42"
    _config(tmp_path, "[ledger.budgets]\nday = 10.0\n")
    write(data_dir, [record(earlier_today(50), output_tokens=100_000), record(earlier_today(10))])
    assert main(["report", "day", "--json"]) == 0  # any ledger command refreshes the snapshot
    capsys.readouterr()
    line = status_line(STATUS_PAYLOAD, refresh=False)
    today = (100 * 3e-6 + 100_000 * 15e-6) + (100 * 3e-6 + 50 * 15e-6)
    assert line.startswith("ctx session $0.42 · today $")
    assert f"today ${today:,.2f}" in line and f"budget ${10 - today:,.2f} left" in line
    assert "/h," in line and "left" in line  # the active block's burn rate


def test_statusline_prices_the_transcript_when_claude_code_gives_no_cost(data_dir: Path, tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    usage = {"input_tokens": 1000, "output_tokens": 100, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
    lines = [
        {"type": "assistant", "requestId": "r1", "message": {"id": "m1", "model": "claude-opus-4-8", "usage": usage}},
        {"type": "assistant", "requestId": "r1", "message": {"id": "m1", "model": "claude-opus-4-8", "usage": usage}},
        {"type": "user", "message": {"content": "hi"}},
    ]
    transcript.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    payload = {**STATUS_PAYLOAD, "transcript_path": str(transcript)}
    payload.pop("cost")
    assert status_line(payload, refresh=False) == f"ctx session ${1000 * 5e-6 + 100 * 25e-6:,.2f}"


def test_statusline_fresh_process_reads_stdin_prints_one_line_without_duckdb(data_dir: Path) -> None:
    probe = (
        "import sys, runpy\n"
        "sys.argv = ['ctxops_ledger_report', 'statusline']\n"
        "try:\n    runpy.run_module('ctxops_ledger_report', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "sys.stderr.write('duckdb' if {'duckdb', '_duckdb'} & set(sys.modules) else 'clean')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], input=json.dumps(STATUS_PAYLOAD), capture_output=True, text=True, check=True
    )
    assert done.stdout == "ctx session $0.42\n" and done.stderr == "clean"
    broken = subprocess.run(
        [sys.executable, "-m", "ctxops_ledger_report", "statusline"],
        input="{not json",
        capture_output=True,
        text=True,
        check=False,
    )
    assert broken.returncode == 0 and broken.stdout.startswith("ctx ")  # never breaks the agent's screen


def test_statusline_starts_at_most_one_background_refresh_a_minute(data_dir: Path) -> None:
    from ctxops_ledger_report.statusline import REFRESH_STARTED, STALE_SECONDS, _claim_refresh

    now = NOW.timestamp()
    assert _claim_refresh(str(data_dir), now)  # no snapshot, no refresh started yet: this one starts it
    assert not _claim_refresh(str(data_dir), now + 1)  # the next updates answer from what they have
    assert not _claim_refresh(str(data_dir), now + STALE_SECONDS - 1)
    assert _claim_refresh(str(data_dir), now + STALE_SECONDS + 1)  # a minute later: another try
    assert (data_dir / REFRESH_STARTED).stat().st_mtime == pytest.approx(now + STALE_SECONDS + 1)


def test_statusline_without_a_snapshot_starts_a_detached_refresh_that_writes_it(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    from ctxops_ledger_report.statusline import SNAPSHOT, read_snapshot

    monkeypatch.delenv("CTXOPS_STATUSLINE_NO_REFRESH")
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME"):
        (tmp_path / name).mkdir()
        monkeypatch.setenv(name, str(tmp_path / name))  # no real transcripts are read
    done = subprocess.run(
        [sys.executable, "-m", "ctxops_ledger_report", "statusline"],
        input=json.dumps(STATUS_PAYLOAD),
        capture_output=True,  # returns at once: the refresh does not hold the status line's pipes
        text=True,
        check=True,
        timeout=60,
    )
    assert done.stdout == "ctx session $0.42\n"
    deadline = time.monotonic() + 60
    while not (data_dir / SNAPSHOT).exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    snapshot = read_snapshot(data_dir)
    assert isinstance(snapshot.get("updated_epoch"), float) and "days" in snapshot


def test_statusline_transcript_price_counts_web_searches_and_us_only_inference(data_dir: Path, tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    usage = {
        "input_tokens": 100_000,
        "output_tokens": 100,
        "inference_geo": "us",
        "server_tool_use": {"web_search_requests": 2},
    }
    line = {"type": "assistant", "requestId": "r1", "message": {"id": "m1", "model": "claude-opus-4-8", "usage": usage}}
    transcript.write_text(json.dumps(line) + "\n")
    payload = {**STATUS_PAYLOAD, "transcript_path": str(transcript)}
    payload.pop("cost")
    expected = (100_000 * 5e-6 + 100 * 25e-6) * 1.1 + 2 * 0.01  # $0.57; $0.52 without the 1.1x
    assert status_line(payload, refresh=False) == f"ctx session ${expected:,.2f}"
