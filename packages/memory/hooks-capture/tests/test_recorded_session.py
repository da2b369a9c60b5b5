"""The adapter on a whole recorded Claude Code 2.1.332 session (examples/sessions, made by the real client)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

RECORDING = Path(__file__).resolve().parents[4] / "examples" / "sessions" / "claude-code-2.1.332"
RECORDED_PROJECT = "/tmp/ctxops-record/project"

pytestmark = pytest.mark.skipif(not RECORDING.is_dir(), reason="examples/sessions is not in this checkout")


@pytest.fixture
def session(repo: Path, capture_all):
    text = (RECORDING / "hook-payloads.jsonl").read_text(encoding="utf-8").replace(RECORDED_PROJECT, str(repo))
    payloads = [json.loads(line) for line in text.splitlines() if line.strip()]
    return payloads, capture_all("claude-code", payloads)


def test_every_payload_is_accounted_for(session) -> None:
    payloads, events = session
    names = Counter(p["hook_event_name"] for p in payloads)
    assert names["PreToolUse"] > 0 and names["PostToolBatch"] > 0
    kinds = Counter(e.kind for e in events)
    assert "unknown" not in kinds
    # PreToolUse only marks a tool as started and PostToolBatch repeats PostToolUse: neither adds events.
    assert len(events) == len(payloads) - names["PreToolUse"] - names["PostToolBatch"]
    assert not [e for e in events if e.event_name == "ToolNotCompleted"]  # every started tool finished


def test_kinds_files_and_failures(session, repo: Path) -> None:
    _, events = session
    reads = [e for e in events if e.kind == "file_read"]
    assert {f for e in reads for f in e.files} == {"app.py", "missing.py", "result.txt"}
    missing = next(e for e in reads if e.files == ["missing.py"])
    assert missing.exit_status == 1 and "failed" in (missing.text or "")
    edits = [e for e in events if e.kind == "file_modification"]
    assert [e.files for e in edits] == [["app.py"], ["NOTES.md"]]
    commands = [e for e in events if e.kind == "command_execution"]
    assert [e.exit_status for e in commands][:3] == [1, 0, 143]
    assert "timed out" in (commands[2].text or "")
    assert [e.text for e in events if e.kind == "session_start"][:2] == ["startup", "resume"]
    assert [e.kind for e in events].count("compaction") == 2


def test_the_secret_is_redacted(session) -> None:
    payloads, events = session
    secret = next(p for p in payloads if "OPENAI_API_KEY" in json.dumps(p))["tool_input"]["command"]
    value = secret.split("OPENAI_API_KEY=", 1)[1].split()[0]
    stored = [e for e in events if e.command and "OPENAI_API_KEY" in e.command]
    assert stored and value not in (stored[0].command or "") and "[REDACTED:" in (stored[0].command or "")


def test_the_correction_prompt(session) -> None:
    _, events = session
    (correction,) = [e for e in events if e.kind == "user_correction"]
    assert correction.text == "no, don't print the result, instead write it to result.txt"
    corrected = next(e for e in events if e.id == correction.corrects)
    assert corrected.kind == "agent_message"  # the answer the user pushed back on
