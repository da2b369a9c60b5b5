"""The ledger against a real Claude Code: ingest totals equal ccusage@17's, per-session totals equal what the
scripted server sent, and the proxy's records equal the server's responses when Claude Code goes through it."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from agent_harness import Scenario, ScriptedModelServer, run_claude, subagent, tool_use, turn
from agent_harness.fixtures import AgentWorkspace
from ctxops_contracts import UsageRecord, decode
from ctxops_token_capture.ingest import Sources, ingest
from ctxops_token_capture.totals import totals
from ledger_peers import ccusage_daily, ccusage_daily_totals

pytestmark = pytest.mark.e2e

TOKENS = ("input_tokens", "output_tokens", "cache_creation_tokens", "cache_read_tokens")
SECOND_MODEL = "claude-sonnet-4-5"


def _first_session(ws: AgentWorkspace, executable: Path, url: str, server: ScriptedModelServer) -> str:
    notes = ws.project / "notes.md"
    notes.write_text("# Orders\nTotals are rounded per line.\n")
    server.set_scenario(
        Scenario(
            [
                turn("Reading the notes.", tool_use("Read", {"file_path": str(notes)})),
                turn(subagent("Summarise notes.md in one line.", [turn("Totals are rounded per line.")])),
                turn(tool_use("Bash", {"command": "ls", "description": "list files"})),
                turn("The notes say totals are rounded per line."),
            ]
        )
    )
    return run_claude(ws.project, ws.home, "what do the notes say?", url, executable=executable).check().session_id


def _run_sessions(ws: AgentWorkspace, executable: Path, url: str, server: ScriptedModelServer) -> list[str]:
    """Three sessions (two models), one with a subagent, then the first one resumed."""
    first = _first_session(ws, executable, url, server)
    server.set_scenario(Scenario([turn(tool_use("Bash", {"command": "pwd", "description": "where"})), turn("Here.")]))
    second = (
        run_claude(
            ws.project, ws.home, "where are we?", url, extra_args=["--model", SECOND_MODEL], executable=executable
        )
        .check()
        .session_id
    )
    server.set_scenario(Scenario([turn("Nothing to do.")]))
    third = run_claude(ws.project, ws.home, "anything?", url, executable=executable).check().session_id
    server.set_scenario(
        Scenario([turn(tool_use("Bash", {"command": "echo resumed", "description": "echo"})), turn("Resumed.")])
    )
    resumed = (
        run_claude(ws.project, ws.home, "continue", url, extra_args=["--resume", first], executable=executable)
        .check()
        .session_id
    )
    return [first, second, third, resumed]


def _transcript_responses(server: ScriptedModelServer) -> list[dict[str, Any]]:
    # Compaction and other side requests (titles, quota checks) are not written to transcripts.
    return [r for r in server.responses() if r.get("role") in ("main", "subagent")]


def test_ingest_equals_ccusage_and_the_server_log(
    agent_workspace: AgentWorkspace, claude_executable: Path, tmp_path: Path
) -> None:
    ws = agent_workspace
    with ScriptedModelServer(Scenario([turn("hi")]), seed=23, log_path=ws.server_log) as server:
        sessions = _run_sessions(ws, claude_executable, server.url, server)
    config, root = ws.home / ".claude", tmp_path / "ledger"
    report = ingest(Sources(claude_dirs=[config]), root)
    assert report.invalid_json == 0 and report.rejected == 0

    ours = {(r["day"], r["model"]): {k: r[k] for k in TOKENS} for r in totals(["day", "model"], root=root).rows}
    assert ours == ccusage_daily([config])
    assert {m for _, m in ours} >= {SECOND_MODEL}
    by_day = {r["day"]: {k: r[k] for k in TOKENS} for r in totals(["day"], root=root).rows}
    assert by_day == ccusage_daily_totals([config])

    # Per session: what the server sent for that session's main and subagent threads.
    sent = _transcript_responses(server)
    assert {r["role"] for r in sent} == {"main", "subagent"} and len(sent) >= 8
    records = [
        decode(UsageRecord, line)
        for path in (root / "usage").glob("*.jsonl")
        for line in path.read_bytes().splitlines()
        if line.strip()
    ]
    by_message = {r.message_id: r for r in records}
    assert set(by_message) == {r["message_id"] for r in sent}
    expected: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for response in sent:
        session = by_message[response["message_id"]].session_id
        assert session is not None
        usage = response["usage"]
        bucket = expected[session]
        bucket["calls"] += 1
        bucket["input_tokens"] += usage["input_tokens"]
        bucket["output_tokens"] += usage["output_tokens"]
        bucket["cache_creation_tokens"] += usage["cache_creation_input_tokens"]
        bucket["cache_read_tokens"] += usage["cache_read_input_tokens"]
        assert by_message[response["message_id"]].request_id == response["request_id"]
        assert by_message[response["message_id"]].is_sidechain == (response["role"] == "subagent")
    got = {r["session"]: {k: r[k] for k in ("calls", *TOKENS)} for r in totals(["session"], root=root).rows}
    assert got == {s: dict(v) for s, v in expected.items()}
    assert set(got) >= set(sessions[:3])  # the resumed run is in the first session's file and id

    # Nothing new: a second ingest reads nothing and changes nothing.
    again = ingest(Sources(claude_dirs=[config]), root)
    assert again.files_read == 0 and again.loaded == 0


def test_proxy_records_equal_what_the_server_sent(
    agent_workspace: AgentWorkspace, claude_executable: Path, tmp_path: Path
) -> None:
    ws = agent_workspace
    root = tmp_path / "ledger"
    with ScriptedModelServer(Scenario([turn("hi")]), seed=31, log_path=ws.server_log) as server:
        proxy = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "ctxops_token_capture",
                "proxy",
                "--upstream",
                server.url,
                "--port",
                "0",
                "--data-dir",
                str(root),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert proxy.stdout is not None
            banner = proxy.stdout.readline()
            port = int(banner.split("http://127.0.0.1:")[1].split()[0])
            _first_session(ws, claude_executable, f"http://127.0.0.1:{port}", server)
        finally:
            proxy.terminate()
            proxy.wait(15)
        _, errors = proxy.communicate()
    assert "sk-ant-test-not-a-real-key" not in errors
    model_calls = [r for r in server.responses() if r.get("kind") == "response"]
    records = [
        decode(UsageRecord, line)
        for path in (root / "usage").glob("proxy-*.jsonl")
        for line in path.read_bytes().splitlines()
        if line.strip()
    ]
    assert len(records) == len(model_calls) >= 5
    assert any(r.is_sidechain is False and r.message_count and r.message_count > 1 for r in records)
    by_request = {r.request_id: r for r in records}
    for response in model_calls:
        record = by_request[response["request_id"]]
        usage = response["usage"]
        assert record.message_id == response["message_id"] and record.model == response["model"]
        assert (record.input_tokens, record.output_tokens) == (usage["input_tokens"], usage["output_tokens"])
        assert record.cache_creation_tokens == usage["cache_creation_input_tokens"]
        assert record.cache_creation_1h_tokens == usage["cache_creation"]["ephemeral_1h_input_tokens"]
        assert record.cache_read_tokens == usage["cache_read_input_tokens"]
        assert record.status == 200 and record.source == "provider-reported" and record.error is None
    for path in root.rglob("*"):
        if path.is_file():
            assert b"sk-ant-test-not-a-real-key" not in path.read_bytes()
    # The proxy's records and the transcript's copies of the same calls are one call each in totals.
    ingest(Sources(claude_dirs=[ws.home / ".claude"]), root)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and totals(["origin"], root=root).total["calls"] != len(model_calls):
        time.sleep(0.1)
    result = totals(["origin"], root=root)
    assert result.total["calls"] == len(model_calls)
    assert result.total["output_tokens"] == sum(r["usage"]["output_tokens"] for r in model_calls)
    assert json.dumps(result.as_dict())  # serialisable for --json
