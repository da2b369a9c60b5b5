"""The harness drives a real Claude Code: tools run, hooks fire, transcripts record the usage the server sent."""

from __future__ import annotations

import shlex
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from agent_harness import (
    Scenario,
    ScriptedModelServer,
    Usage,
    hook_recorder_command,
    read_hook_payloads,
    run_claude,
    subagent,
    tool_use,
    transcript_usages,
    transcripts,
    turn,
    write_hooks,
)
from agent_harness.fixtures import AgentWorkspace

pytestmark = pytest.mark.e2e

PY = shlex.quote(sys.executable)
USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def _assert_transcript_usage_matches(home: Path, responses: list[dict[str, Any]]) -> None:
    recorded: dict[str, dict[str, Any]] = {}
    for path in transcripts(home):
        recorded |= transcript_usages(path)
    for sent in responses:
        assert sent["message_id"] in recorded, f"{sent['message_id']} ({sent['role']}) not in any transcript"
        got = recorded[sent["message_id"]]
        for field in USAGE_FIELDS:
            assert got["usage"][field] == sent["usage"][field], (sent["message_id"], field)
        assert got["usage"]["cache_creation"] == sent["usage"]["cache_creation"]
        assert got["model"] == sent["model"]
        assert got["request_id"] == sent["request_id"]


def test_tools_hooks_and_transcript_usage(agent_workspace: AgentWorkspace, claude_executable: Path) -> None:
    ws = agent_workspace
    app = ws.project / "app.py"
    app.write_text("def f():\n    return 1\n")
    write_hooks(ws.project, hook_recorder_command(ws.hooks_log))
    explicit = Usage(
        input_tokens=11, output_tokens=222, cache_creation_5m=333, cache_creation_1h=44, cache_read_input_tokens=5555
    )
    scenario = Scenario(
        [
            turn("Let me look.", tool_use("Read", {"file_path": str(app)})),
            turn(tool_use("Edit", {"file_path": str(app), "old_string": "return 1", "new_string": "return 2"})),
            turn(tool_use("Bash", {"command": f"{PY} -c 'import sys; sys.exit(3)'", "description": "failing check"})),
            turn(
                tool_use(
                    "Bash",
                    {"command": f"{PY} -c \"open('ran.txt', 'w').write('ok')\"", "description": "passing check"},
                ),
                usage=explicit,
                model="claude-scripted-override",
            ),
            turn("f now returns 2."),
        ]
    )
    with ScriptedModelServer(scenario, seed=7, log_path=ws.server_log) as server:
        run = run_claude(ws.project, ws.home, "make f return 2", server.url, executable=claude_executable).check()

    assert run.output["result"] == "f now returns 2."
    assert app.read_text() == "def f():\n    return 2\n"
    assert (ws.project / "ran.txt").read_text() == "ok"

    main = server.responses("main")
    assert [r["turn_index"] for r in main] == [0, 1, 2, 3, 4]
    assert [r["stop_reason"] for r in main] == ["tool_use"] * 4 + ["end_turn"]
    assert main[3]["usage"]["cache_creation"] == {"ephemeral_5m_input_tokens": 333, "ephemeral_1h_input_tokens": 44}
    assert len({r["request_id"] for r in main}) == 5 and len({r["message_id"] for r in main}) == 5
    assert len({r["usage"]["cache_read_input_tokens"] for r in main}) > 1  # varied per turn
    assert not any("x-api-key" in r["headers"] for r in server.requests())

    payloads = read_hook_payloads(ws.hooks_log)
    events = Counter((p["hook_event_name"], p.get("tool_name")) for p in payloads)
    for expected in [("SessionStart", None), ("UserPromptSubmit", None), ("Stop", None), ("SessionEnd", None)]:
        assert events[expected] >= 1, expected
    for tool in ("Read", "Edit", "Bash"):
        assert events[("PreToolUse", tool)] >= 1 and (events[("PostToolUse", tool)] >= 1), tool
    assert events[("PostToolUseFailure", "Bash")] == 1
    assert {p["session_id"] for p in payloads} == {run.session_id}

    main_transcript = [p for p in transcripts(ws.home) if p.stem == run.session_id]
    assert len(main_transcript) == 1
    _assert_transcript_usage_matches(ws.home, main)


def test_subagent_and_resumed_session(agent_workspace: AgentWorkspace, claude_executable: Path) -> None:
    ws = agent_workspace
    notes = ws.project / "notes.txt"
    notes.write_text("alpha\nbeta\n")
    write_hooks(ws.project, hook_recorder_command(ws.hooks_log))
    first = Scenario(
        [
            turn(
                subagent(
                    "Count the lines of notes.txt.",
                    [turn(tool_use("Read", {"file_path": str(notes)})), turn("2 lines.")],
                )
            ),
            turn("The subagent says 2 lines."),
        ]
    )
    with ScriptedModelServer(first, seed=3, log_path=ws.server_log) as server:
        run = run_claude(
            ws.project, ws.home, "how long is notes.txt?", server.url, executable=claude_executable
        ).check()
        server.set_scenario(
            Scenario(
                [turn(tool_use("Write", {"file_path": str(ws.project / "out.txt"), "content": "2\n"})), turn("Saved.")]
            )
        )
        resumed = run_claude(
            ws.project,
            ws.home,
            "save the count",
            server.url,
            extra_args=["--resume", run.session_id],
            executable=claude_executable,
        ).check()
        server.set_scenario(Scenario([turn("Still here.")]))
        continued = run_claude(
            ws.project, ws.home, "anything else?", server.url, extra_args=["--continue"], executable=claude_executable
        ).check()

    assert run.output["result"] == "The subagent says 2 lines."
    assert resumed.session_id == run.session_id == continued.session_id
    assert resumed.output["result"] == "Saved." and continued.output["result"] == "Still here."
    assert (ws.project / "out.txt").read_text() == "2\n"

    roles = Counter(r["role"] for r in server.responses())
    assert roles["subagent"] == 2 and roles["main"] == 2 + 2 + 1
    sub = server.responses("subagent")
    assert [r["turn_index"] for r in sub] == [0, 1]

    payloads = read_hook_payloads(ws.hooks_log)
    names = [p["hook_event_name"] for p in payloads]
    assert "SubagentStart" in names and "SubagentStop" in names
    sources = [p.get("source") for p in payloads if p["hook_event_name"] == "SessionStart"]
    assert sources == ["startup", "resume", "resume"]
    sub_reads = [p for p in payloads if p.get("tool_name") == "Read" and p["hook_event_name"] == "PostToolUse"]
    assert sub_reads and all(p.get("agent_type") == "general-purpose" for p in sub_reads)

    files = transcripts(ws.home)
    assert any(p.parent.name == "subagents" and p.parent.parent.name == run.session_id for p in files)
    main_file = next(p for p in files if p.stem == run.session_id)
    text = main_file.read_text()
    assert "save the count" in text and "anything else?" in text
    _assert_transcript_usage_matches(ws.home, server.responses("main") + sub)
