"""A real Gemini CLI, wired only by `ctx init --agent gemini`, against the scripted model server.

One headless `gemini -p` session in a fresh git repository of the example proves: (a) Gemini CLI runs
`ctx hook gemini` on its hook events and hooks-capture stores them, from the payloads it really sends;
(b) a lesson stored beforehand reaches the model (BeforeAgent `additionalContext`, which Gemini CLI appends
to the prompt as `<hook_context>`); (c) the code map's MCP tools are declared to the model and callable;
(d) `ctx ledger` reads the chat recording Gemini CLI wrote under `~/.gemini/tmp` and reports exactly the
tokens the server sent.
"""

from __future__ import annotations

import json
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from agent_harness import Scenario, ScriptedModelServer, tool_use, turn
from agent_harness.ctx_repo import FAILING, LESSON, PROMPT, hook_command, wired_example
from agent_harness.gemini_cli import ensure_gemini_cli, run_gemini, session_files, write_gemini_user_settings
from agent_harness.gemini_wire import declared_tools, function_responses, request_text

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="session")
def gemini_executable() -> Path:
    return ensure_gemini_cli()


def test_ctx_init_wires_a_real_gemini_cli_end_to_end(gemini_executable: Path, tmp_path: Path) -> None:
    repo, tracked_before = wired_example(tmp_path, "gemini")
    settings = json.loads((repo.project / ".gemini" / "settings.json").read_text(encoding="utf-8"))
    assert settings["hooks"]["BeforeAgent"][0]["hooks"][0]["command"] == hook_command("gemini", repo.project)
    code_tools = "code" in {ep.name for ep in entry_points(group="ctxops.mcp_tools")}

    turns = []
    if code_tools:
        turns.append(
            turn("Asking the code map.", tool_use("mcp_ctxops_code_def", {"name": "OrderStateMachine.transition"}))
        )
    turns += [
        turn(tool_use("run_shell_command", {"command": "git log --oneline | head -3"})),
        turn(tool_use("run_shell_command", {"command": FAILING})),
        turn("Done."),
    ]
    home = tmp_path / "home"
    write_gemini_user_settings(home)
    with ScriptedModelServer(Scenario(turns), seed=47, log_path=tmp_path / "server.jsonl") as server:
        run_gemini(repo.project, home, PROMPT, server.url, env=repo.agent_env(), executable=gemini_executable).check()
    main = server.responses("main")
    assert [r["turn_index"] for r in main if r["note"] is None] == list(range(len(turns)))

    # (a) Hooks: Gemini CLI ran `ctx hook gemini`; the payloads it sent and the events captured from them.
    payloads = repo.raw_payloads()
    names = [p["hook_event_name"] for p in payloads]
    assert set(names) == {"SessionStart", "BeforeAgent", "AfterTool", "AfterAgent", "SessionEnd"}, names  # init wires
    (session,) = {p["session_id"] for p in payloads}
    shell = [p for p in payloads if p["hook_event_name"] == "AfterTool" and p["tool_name"] == "run_shell_command"]
    assert [p["tool_input"]["command"] for p in shell] == ["git log --oneline | head -3", FAILING]
    assert all(set(p["tool_response"]) >= {"llmContent", "returnDisplay"} for p in shell)
    events = repo.events()
    assert {e["session_id"] for e in events} == {session}
    assert [e["text"] for e in events if e["kind"] == "user_message"] == [PROMPT]
    commands = {e["command"]: e for e in events if e["kind"] == "command_execution"}
    # Gemini CLI writes "Exit Code: N" into the output only for a failing command.
    assert [commands[c]["exit_status"] for c in ("git log --oneline | head -3", FAILING)] == [0, 3]
    assert not [e for e in events if e["kind"] == "compaction"]  # its per-turn "auto" PreCompress is not wired
    assert [e["kind"] for e in events][-1] == "session_end"
    # AfterAgent: the answer is captured, so the digest does not list the prompt as unanswered.
    assert any(e["kind"] == "agent_message" and e["event_name"] == "AfterAgent" for e in events)

    # (b) Memory: the lesson is in the first request the model received, with the prompt.
    first = server.requests()[0]["body"]
    assert LESSON in request_text(first) and PROMPT in request_text(first)

    # (c) MCP: the ctxops tools are declared to the model and the code_def call is answered by `ctx mcp`.
    if code_tools:
        declared = declared_tools(first)
        assert {"mcp_ctxops_code_def", "mcp_ctxops_recall"} <= set(declared), declared
        answers = function_responses(server.requests()[-1]["body"])
        assert any("api/orders/state_machine.py:" in text for text in answers.values()), answers
        assert any(e["tool_name"] == "mcp_ctxops_code_def" for e in events)

    # (d) Ledger: Gemini CLI's chat recording, found where Gemini CLI keeps it, equals what the server sent.
    (recording,) = session_files(home)
    assert session[:8] in recording.name
    row = repo.ledger_session_row({"GEMINI_CLI_HOME": str(home)})
    sent = [r for r in main if r["note"] is None]  # a retried request is billed by the API, not recorded
    cached = sum(r["usage"].get("cachedContentTokenCount", 0) for r in sent)
    assert row["session"] == session
    assert row["calls"] == len(sent)
    assert row["input_tokens"] == sum(r["usage"]["promptTokenCount"] for r in sent) - cached
    assert row["cache_read_tokens"] == cached
    assert row["output_tokens"] == sum(r["usage"]["candidatesTokenCount"] for r in sent)
    assert row["cost_usd"] is not None and row["cost_usd"] > 0, row

    # `ctx init --remove` leaves the tracked files as they were and takes .gemini/ out.
    removed = repo.ctx("init", "--remove")
    assert removed.returncode == 0, removed.stdout + removed.stderr
    assert not (repo.project / ".gemini").exists()
    assert repo.tracked() == tracked_before
