"""Codex shell exit codes read from the rollout Codex names in its hook payload (recorded from Codex 0.171)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from ctxops_hooks_capture.adapters.codex_rollout import TAIL_BYTES, rollout_exit_code

RECORDED = Path(__file__).parent / "payloads" / "codex-0.171.0-rollout-commands.jsonl"
OK_CALL, FAILED_CALL = "call_0dbbdb8d866240f88245a29e", "call_c3fb33c51cfd47b795bd7b58"
MCP_CALL, PATCH_CALL = "call_c0113bef4c124d79ac91ca6a", "call_ff05c3b675c449e9a7337475"


@pytest.fixture
def rollout(tmp_path: Path) -> Path:
    path = tmp_path / "sessions" / "2026" / "12" / "02" / "rollout-2026-12-02T00-28-41-01a23427.jsonl"
    path.parent.mkdir(parents=True)
    shutil.copy(RECORDED, path)
    return path


def test_exit_codes_of_the_recorded_commands(rollout: Path) -> None:
    assert rollout_exit_code(str(rollout), OK_CALL) == 0
    assert rollout_exit_code(str(rollout), FAILED_CALL) == 3
    # not a shell command, or not there: unknown
    assert rollout_exit_code(str(rollout), MCP_CALL) is None
    assert rollout_exit_code(str(rollout), PATCH_CALL) is None
    assert rollout_exit_code(str(rollout), "call_missing") is None
    assert rollout_exit_code(str(rollout), None) is None
    assert rollout_exit_code(None, OK_CALL) is None


def test_only_a_regular_rollout_file_is_read(rollout: Path, tmp_path: Path) -> None:
    other = tmp_path / "notes.jsonl"
    shutil.copy(rollout, other)
    assert rollout_exit_code(str(other), FAILED_CALL) is None  # not named rollout-*.jsonl
    link = rollout.with_name("rollout-link.jsonl")
    link.symlink_to(rollout)
    assert rollout_exit_code(str(link), FAILED_CALL) is None  # a symlink is not followed
    fifo = rollout.with_name("rollout-fifo.jsonl")
    os.mkfifo(fifo)
    assert rollout_exit_code(str(fifo), FAILED_CALL) is None  # a FIFO never blocks the hook
    assert rollout_exit_code(str(tmp_path / "rollout-absent.jsonl"), FAILED_CALL) is None


def test_a_lookalike_line_does_not_count(rollout: Path) -> None:
    fake = {"type": "event_msg", "payload": {"type": "item_completed", "item": {"type": "AgentMessage", "id": "x",
            "text": f'"{FAILED_CALL}" exit_code 9'}}}  # fmt: skip
    with rollout.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(fake) + "\n{broken json " + FAILED_CALL + ' "item_completed"\n')
    assert rollout_exit_code(str(rollout), FAILED_CALL) == 3


def test_only_the_tail_is_read(rollout: Path) -> None:
    recorded = rollout.read_text(encoding="utf-8")
    padding = json.dumps({"type": "response_item", "payload": {"type": "message", "content": "x" * 1000}})
    rollout.write_text(recorded + (padding + "\n") * (TAIL_BYTES // 1000 + 10), encoding="utf-8")
    assert rollout_exit_code(str(rollout), FAILED_CALL) is None  # more than TAIL_BYTES back: not looked for


def test_capture_takes_the_exit_code_from_the_rollout(repo: Path, rollout: Path) -> None:
    from ctxops_hooks_capture.capture import capture
    from ctxops_hooks_capture.events_reader import read_events

    for call, command, output in ((FAILED_CALL, "pytest -q", "1 failed"), (OK_CALL, "pytest -q", "1 passed")):
        payload = {
            "session_id": "s",
            "turn_id": "t",
            "transcript_path": str(rollout),
            "cwd": str(repo),
            "hook_event_name": "PostToolUse",
            "model": "gpt-5.5",
            "permission_mode": "bypassPermissions",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_response": output,
            "tool_use_id": call,
        }
        capture("codex", json.dumps(payload).encode())
    assert [(e.kind, e.exit_status) for e in read_events(repo)] == [("test_result", 3), ("test_result", 0)]
    payload["tool_use_id"] = "call_unknown"
    capture("codex", json.dumps(payload).encode())
    assert [e.exit_status for e in read_events(repo)][-1] is None  # not in the rollout: unknown, not 0
