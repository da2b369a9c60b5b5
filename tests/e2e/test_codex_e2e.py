"""A real Codex CLI, wired only by `ctx init --agent codex`, against the scripted model server.

One `codex exec` session in a fresh git repository of the example proves the four things ctxops gives an
agent: (a) Codex runs `ctx hook codex` on its hook events and hooks-capture stores them, from the payloads
Codex really sends; (b) a lesson stored beforehand reaches the model (SessionStart/UserPromptSubmit
`additionalContext`, which Codex adds as a developer message); (c) the code map's MCP tools are listed
(Codex defers MCP tools behind its client-side `tool_search`) and callable; (d) `ctx ledger` reads the
rollout Codex wrote under `$CODEX_HOME/sessions` and reports exactly the tokens the server sent.
"""

from __future__ import annotations

import json
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from agent_harness import Scenario, ScriptedModelServer, freeform_tool, tool_use, turn
from agent_harness.codex_cli import ensure_codex, rollouts, run_codex, write_codex_config
from agent_harness.ctx_repo import FAILING, LESSON, PROMPT, hook_command, wired_example
from agent_harness.responses_wire import function_outputs, request_text

pytestmark = pytest.mark.e2e

PATCH = "*** Begin Patch\n*** Add File: NOTES.md\n+Refunds store money as Decimal.\n*** End Patch\n"


@pytest.fixture(scope="session")
def codex_executable() -> Path:
    return ensure_codex()


def test_ctx_init_wires_a_real_codex_end_to_end(codex_executable: Path, tmp_path: Path) -> None:
    repo, tracked_before = wired_example(tmp_path, "codex")
    hooks = json.loads((repo.project / ".codex" / "hooks.json").read_text(encoding="utf-8"))
    assert hooks["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"] == hook_command("codex", repo.project)
    code_tools = "code" in {ep.name for ep in entry_points(group="ctxops.mcp_tools")}

    turns = []
    if code_tools:
        turns += [
            turn("Looking for the code map.", tool_use("tool_search", {"query": "code definition symbol", "limit": 5})),
            turn(tool_use("code_def", {"name": "OrderStateMachine.transition"}, namespace="mcp__ctxops")),
        ]
    turns += [
        turn(tool_use("exec_command", {"cmd": "git log --oneline | head -3"})),
        turn(tool_use("exec_command", {"cmd": FAILING})),
        turn(freeform_tool("apply_patch", PATCH)),
        turn("Done."),
    ]
    home = tmp_path / "home"
    with ScriptedModelServer(Scenario(turns), seed=43, log_path=tmp_path / "server.jsonl") as server:
        write_codex_config(home / ".codex", server.url, repo.project)
        run = run_codex(repo.project, home, PROMPT, env=repo.agent_env(), executable=codex_executable).check()
    session = run.thread_id
    sent = server.responses()
    assert [r["turn_index"] for r in sent] == list(range(len(turns))), sent  # every scripted turn, once

    # (a) Hooks: Codex ran `ctx hook codex`; the payloads it sent and the events captured from them.
    payloads = repo.raw_payloads()
    names = [p["hook_event_name"] for p in payloads]
    # what init wires and `codex exec` fires (PostCompact only on a compaction)
    assert set(names) == {"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "SessionEnd"}, names
    assert {p["session_id"] for p in payloads} == {session}
    bash = [p for p in payloads if p["hook_event_name"] == "PostToolUse" and p["tool_name"] == "Bash"]
    assert [p["tool_input"]["command"] for p in bash] == ["git log --oneline | head -3", FAILING]
    events = repo.events()
    assert {e["session_id"] for e in events} == {session}
    (prompt,) = [e for e in events if e["kind"] == "user_message"]
    assert prompt["text"] == PROMPT and prompt["task_id"] == payloads[names.index("UserPromptSubmit")]["turn_id"]
    commands = {e["command"]: e for e in events if e["kind"] == "command_execution"}
    # Codex's PostToolUse carries a command's output only; the exit code comes from the rollout it names.
    assert [commands[c]["exit_status"] for c in ("git log --oneline | head -3", FAILING)] == [0, 3]
    assert "boom" in (commands[FAILING]["text"] or "")
    assert (repo.project / "NOTES.md").read_text(encoding="utf-8") == "Refunds store money as Decimal.\n"
    (edit,) = [e for e in events if e["kind"] == "file_modification"]
    assert edit["tool_name"] == "apply_patch" and edit["files"] == ["NOTES.md"], edit
    assert any(e["kind"] == "agent_message" and e["text"] == "Done." for e in events)

    # (b) Memory: the lesson is in the first request the model received, as Codex's developer message.
    first = server.requests()[0]["body"]
    assert LESSON in request_text(first)
    injected = [
        i for i in first["input"] if i.get("role") == "developer" and LESSON in json.dumps(i, ensure_ascii=False)
    ]
    assert injected, "the lesson did not arrive as a developer message"

    # (c) MCP: tool_search lists the ctxops tools, and the model's code_def call is answered by `ctx mcp`.
    if code_tools:
        later = json.dumps([r["body"] for r in server.requests()[1:]], ensure_ascii=False)
        assert '"name": "mcp__ctxops"' in later and '"name": "code_def"' in later
        outputs = function_outputs(server.requests()[-1]["body"])
        assert any("api/orders/state_machine.py:" in text for text in outputs.values()), outputs
        assert [i["tool"] for i in run.items("mcp_tool_call")] == ["code_def"]

    # (d) Ledger: the rollout Codex wrote, read by token-capture, equals what the server sent.
    (rollout,) = rollouts(home / ".codex")
    assert session in rollout.name
    row = repo.ledger_session_row({"CODEX_HOME": str(home / ".codex")})
    cached = sum(r["usage"]["input_tokens_details"]["cached_tokens"] for r in sent)
    assert row["session"] == session
    assert row["calls"] == len(sent)
    assert row["input_tokens"] == sum(r["usage"]["input_tokens"] for r in sent) - cached
    assert row["cache_read_tokens"] == cached
    assert row["output_tokens"] == sum(r["usage"]["output_tokens"] for r in sent)
    assert row["cost_usd"] is not None and row["cost_usd"] > 0, row  # priced, not "unpriced"

    # `ctx init --remove` leaves the tracked files as they were and takes .codex/ out.
    removed = repo.ctx("init", "--remove")
    assert removed.returncode == 0, removed.stdout + removed.stderr
    assert not (repo.project / ".codex").exists()
    assert repo.tracked() == tracked_before
