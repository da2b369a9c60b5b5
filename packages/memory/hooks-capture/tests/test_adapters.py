"""Each adapter on its payloads: kinds, fields, repo-relative paths, unknown events kept."""

from __future__ import annotations

import json
from pathlib import Path

from ctxops_hooks_capture.adapters import get_adapter
from ctxops_hooks_capture.capture import capture


def test_claude_code_recorded_payloads(repo: Path, kit, capture_all) -> None:
    events = capture_all("claude-code", kit.load_payloads("claude-code-2.1.197-hook-payloads.jsonl", repo))
    assert [e.kind for e in events] == ["session_start", "file_read", "file_modification", "command_execution"]
    start, read, edit, bash = events
    assert start.agent == "claude-code" and start.text == "startup" and start.event_name == "SessionStart"
    assert read.files == ["app.py"] and read.tool_name == "Read"
    assert edit.files == ["app.py"] and edit.text == "Edit (+1 -1)"
    assert bash.exit_status == 0 and bash.text == "2"
    assert "sk-proj-" not in (bash.command or "") and "[REDACTED:openai-key]" in (bash.command or "")
    assert all(e.session_id == "2a1b4a76-0e6f-497e-9504-9b56aa21c9cb" for e in events)
    assert read.task_id == "3b924c55-f1a7-4836-a7a9-f2e20787108e"
    assert all(e.repo == str(repo) for e in events)


def test_claude_code_failure_stop_compaction_end(repo: Path, capture_all) -> None:
    base = {"session_id": "s", "cwd": str(repo), "transcript_path": "/t.jsonl"}
    events = capture_all(
        "claude-code",
        [
            {
                **base,
                "hook_event_name": "PostToolUseFailure",
                "tool_name": "Bash",
                "tool_use_id": "t1",
                "tool_input": {"command": "make build"},
                "error": "Exit code 2\nmake: *** [build] Error 2",
            },
            {**base, "hook_event_name": "Stop", "last_assistant_message": "Build fixed.", "stop_hook_active": False},
            {**base, "hook_event_name": "SubagentStop", "agent_type": "Explore", "last_assistant_message": "Found it."},
            {**base, "hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": ""},
            {**base, "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"},
        ],
    )
    assert [e.kind for e in events] == [
        "command_execution",
        "agent_message",
        "agent_message",
        "compaction",
        "session_end",
    ]
    assert events[0].exit_status == 2 and "Error 2" in (events[0].text or "")
    assert events[2].tool_name == "Explore"
    assert events[3].text == "auto" and events[4].text == "prompt_input_exit"


def test_unknown_events_are_stored_not_dropped(repo: Path, capture_all) -> None:
    payload = {"session_id": "s", "cwd": str(repo), "hook_event_name": "TeleportRequested", "destination": "mars"}
    (event,) = capture_all("claude-code", [payload])
    assert event.kind == "unknown" and event.event_name == "TeleportRequested"
    assert "mars" in (event.text or "")


def test_unknown_fields_are_kept_in_the_raw_reference(repo: Path, capture_all) -> None:
    from ctxops_hooks_capture.events_reader import read_raw

    payload = {
        "session_id": "s",
        "cwd": str(repo),
        "hook_event_name": "SessionStart",
        "source": "startup",
        "brand_new_field": {"x": 1},
        "api_key": "abcdef123456",
    }
    (event,) = capture_all("claude-code", [payload])
    raw = read_raw(repo, event.raw_ref or "")
    assert raw is not None and raw["brand_new_field"] == {"x": 1}
    assert raw["api_key"] == "[REDACTED:secret]"


def test_codex_hooks(repo: Path, kit, capture_all) -> None:
    events = capture_all("codex", kit.load_payloads("codex-hooks.jsonl", repo))
    kinds = [e.kind for e in events]
    assert kinds == ["session_start", "user_message", "test_result", "file_modification", "agent_message"]
    assert events[0].agent == "codex" and "gpt-5-codex" in (events[0].text or "")
    test = events[2]
    assert (test.tests_passed, test.tests_failed, test.exit_status) == (1, 1, 1)
    assert test.task_id == "turn-1"
    assert events[3].files == ["api/orders/refunds.py"]


def test_codex_0_171_recorded_hooks(repo: Path, kit, capture_all) -> None:
    """Payloads a real Codex 0.171 sent (tests/e2e/test_codex_e2e.py): a shell command's PostToolUse
    carries its output as a bare string with no exit code, so the status is unknown, not 0."""
    events = capture_all("codex", kit.load_payloads("codex-0.171.0-hook-payloads.jsonl", repo))
    kinds = [e.kind for e in events]
    assert kinds == [
        "session_start",
        "user_message",
        "tool_call",
        "command_execution",
        "command_execution",
        "file_modification",
        "agent_message",
    ]
    assert "gpt-5.5" in (events[0].text or "")
    assert len({e.session_id for e in events}) == 1 and events[1].task_id == events[-1].task_id
    assert events[2].tool_name == "mcp__ctxops__code_def"
    assert "api/orders/state_machine.py:103" in (events[2].text or "")  # the MCP result's content
    assert [e.exit_status for e in events[3:5]] == [None, None]
    assert events[3].command == "git log --oneline | head -3" and "boom" in (events[4].text or "")
    assert events[5].tool_name == "apply_patch" and events[5].files == ["NOTES.md"]
    assert events[6].text == "Done."


def test_codex_notify_takes_json_from_the_last_argument(repo: Path, kit) -> None:
    (payload,) = kit.load_payloads("codex-notify.json", repo)
    done = kit.run_hook("codex-notify", b"", cwd=repo, args=[json.dumps(payload)])
    assert done.returncode == 0 and done.stdout == b""
    events = kit.events_of(repo)
    assert [e.kind for e in events] == ["user_message", "agent_message"]
    assert events[0].session_id == "019a-codex-thread" and events[0].task_id == "turn-7"
    assert events[1].text and "retry.go" in events[1].text


def test_gemini_hooks(repo: Path, kit, capture_all) -> None:
    events = capture_all("gemini", kit.load_payloads("gemini-hooks.jsonl", repo))
    kinds = [e.kind for e in events]
    # BeforeModel is a per-request heartbeat and is dropped.
    assert kinds == [
        "session_start",
        "user_message",
        "file_read",
        "test_result",
        "agent_message",
        "compaction",
        "session_end",
    ]
    assert events[2].files == ["api/orders/models.py"]
    assert (events[3].tests_passed, events[3].tests_failed) == (1, 1)
    assert events[0].ts.isoformat().startswith("2026-11-29T10:00:00")


def test_gemini_cli_0_61_recorded_hooks(repo: Path, kit, capture_all) -> None:
    """Payloads a real Gemini CLI 0.61 sent (tests/e2e/test_gemini_e2e.py): a shell result's exit status is
    the "Exit Code: N" line inside ``llmContent`` (written only for a failure), followed by a PGID line."""
    events = capture_all("gemini", kit.load_payloads("gemini-cli-0.61.0-hook-payloads.jsonl", repo))
    kinds = [e.kind for e in events]
    assert kinds == [
        "session_start",
        "user_message",
        "tool_call",
        "command_execution",
        "command_execution",
        "session_end",
    ]
    assert events[2].tool_name == "mcp_ctxops_code_def" and "api/orders/state_machine.py:" in (events[2].text or "")
    assert [e.exit_status for e in events[3:5]] == [0, 3]
    assert events[3].command == "git log --oneline | head -3"
    assert len({e.session_id for e in events}) == 1


def test_gemini_auto_precompress_is_not_a_compaction(repo: Path, capture_all) -> None:
    """Gemini CLI 0.61 fires PreCompress "auto" before every model turn (seen with the real client)."""
    base = {"session_id": "g", "cwd": str(repo), "hook_event_name": "PreCompress", "timestamp": "2026-12-01T01:05:53Z"}
    events = capture_all("gemini", [{**base, "trigger": "auto"}, {**base, "trigger": "manual"}])
    assert [(e.kind, e.text) for e in events] == [("compaction", "manual")]


def test_cursor_hooks(repo: Path, kit, capture_all) -> None:
    events = capture_all("cursor", kit.load_payloads("cursor-hooks.jsonl", repo))
    kinds = [e.kind for e in events]
    # beforeShellExecution is pending (kept until the matching after-hook), postToolUse for Shell duplicates
    # afterShellExecution, afterAgentThought is a stream, and a completed stop repeats afterAgentResponse.
    assert kinds == ["user_correction", "test_result", "file_modification", "agent_message"]
    assert events[0].session_id == "cur-1" and events[0].task_id == "gen-1"
    assert (events[1].tests_passed, events[1].tests_failed) == (11, 1)
    assert events[2].files == ["web/src/cart.ts"]


def test_generic_form(repo: Path, capture_all) -> None:
    events = capture_all(
        "generic",
        [
            {
                "kind": "command_execution",
                "cwd": str(repo),
                "session_id": "g",
                "command": "make lint",
                "exit_status": 2,
                "output": "lint failed",
            },
            {"prompt": "please use the logger", "cwd": str(repo), "session_id": "g"},
            {"kind": "mystery", "cwd": str(repo), "session_id": "g", "detail": 1},
        ],
    )
    assert [e.kind for e in events] == ["command_execution", "user_message", "unknown"]
    assert events[0].exit_status == 2 and events[0].agent == "generic"
    assert events[2].event_name == "mystery"


def test_every_agent_name_has_an_adapter() -> None:
    from ctxops_hooks_capture import AGENTS

    for agent in AGENTS:
        assert callable(get_adapter(agent))


def test_unknown_agent_is_refused_with_the_list(repo: Path) -> None:
    import pytest

    with pytest.raises(ValueError, match="claude-code, codex"):
        capture("vim", b"{}")


def test_generic_kinds_are_the_contract_kinds() -> None:
    # The hook path cannot import the msgspec records, so the generic adapter keeps its own list: pin it.
    from typing import get_args

    from ctxops_contracts.records import EventKind
    from ctxops_hooks_capture.adapters.generic import KINDS

    assert set(get_args(EventKind)) - {"unknown"} == KINDS
