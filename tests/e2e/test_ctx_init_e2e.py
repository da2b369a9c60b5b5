"""The whole toolchain on a real Claude Code, wired only by `ctx init --agent claude-code`.

A fresh git repository of the example; `ctx init`; a real Claude Code session against the scripted model
server, through `ctx proxy`. Then: the hooks captured the session, `ctx mcp` answered the model's tool
calls, the ledger holds the session with exactly the tokens the server sent, and `ctx init --remove` leaves
the tracked and config files as they were. Parts that depend on lines not installed here (memory
injection: memory-inject's `hook.respond`; the status line: ledger-report's `ctx ledger statusline`; the
code tools: code-query's `ctxops.mcp_tools` registrar) are asserted when those are installed.
"""

from __future__ import annotations

import importlib.util
import json
import shlex
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from agent_harness import Scenario, ScriptedModelServer, run_claude, tool_use, turn
from agent_harness.ctx_repo import LESSON, PROMPT, hook_command, wired_example
from agent_harness.fixtures import AgentWorkspace

pytestmark = pytest.mark.e2e

BIN = str(Path(sys.executable).parent)


def _has(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def _tool_results(server: ScriptedModelServer) -> list[str]:
    """The text of every tool_result Claude Code sent back to the model."""
    texts: list[str] = []
    for request in server.requests():
        body = request.get("body") or {}
        for message in body.get("messages", []) if isinstance(body, dict) else []:
            content = message.get("content")
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    inner = block.get("content")
                    if isinstance(inner, list):
                        texts.append("\n".join(str(part.get("text", "")) for part in inner if isinstance(part, dict)))
                    else:
                        texts.append(str(inner))
    return texts


def test_ctx_init_wires_a_real_claude_code_end_to_end(
    agent_workspace: AgentWorkspace, claude_executable: Path, tmp_path: Path
) -> None:
    ws = agent_workspace
    repo, tracked_before = wired_example(ws.project, "claude-code")
    project, data_dir, env = repo.project, repo.data_dir, repo.env
    settings = json.loads((project / ".claude" / "settings.json").read_text(encoding="utf-8"))
    assert settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"] == hook_command("claude-code", project)
    contributions = {ep.name for ep in entry_points(group="ctxops.mcp_tools")}
    code_tools = "code" in contributions

    turns = [turn("Checking the wiring.", tool_use("mcp__ctxops__ctxops_doctor", {}))]
    if code_tools:
        turns.append(turn(tool_use("mcp__ctxops__code_def", {"name": "OrderStateMachine.transition"})))
    if "memory" in contributions:
        turns.append(turn(tool_use("mcp__ctxops__recall", {"query": "money float decimal"})))
    turns += [
        turn(tool_use("Bash", {"command": "git log --oneline | head -3", "description": "history"})),
        turn("Done."),
    ]
    with ScriptedModelServer(Scenario(turns), seed=41, log_path=ws.server_log) as server:
        proxy = subprocess.Popen(
            [str(Path(BIN) / "ctx"), "proxy", "--upstream", server.url, "--port", "0", "--data-dir", str(data_dir)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        try:
            assert proxy.stdout is not None
            banner = proxy.stdout.readline()
            port = int(banner.split("http://127.0.0.1:")[1].split()[0])
            run = run_claude(
                project,
                ws.home,
                PROMPT,
                f"http://127.0.0.1:{port}",
                env=repo.agent_env(),
                executable=claude_executable,
            ).check()
        finally:
            proxy.terminate()
            proxy.wait(15)

    # Hooks: the session was captured by `ctx hook claude-code`, as Claude Code ran it.
    events = repo.events()
    kinds = {e.get("kind") for e in events}
    assert {"session_start", "user_message"} <= kinds, kinds
    assert any("OrderStateMachine.transition" in str(e.get("text")) for e in events if e.get("kind") == "user_message")
    assert any(e.get("tool_name") == "Bash" for e in events)
    assert {e.get("session_id") for e in events if e.get("kind") == "user_message"} == {run.session_id}

    # MCP: `ctx mcp` answered the model's tool calls (core's doctor tool always; the code tools when installed).
    results = _tool_results(server)
    assert any(
        text.startswith("ctx doctor: ") and "claude-code  wired (hooks reachable; MCP yes)" in text for text in results
    ), results
    if code_tools:
        assert any("api/orders/state_machine.py:" in text for text in results)
    if "memory" in contributions:  # memory-inject's recall, served by the same `ctx mcp`
        assert any(f"lesson: {LESSON}" in text and not text.startswith("ctx doctor") for text in results)

    # Injection: the first model request carries the lesson (when memory-inject is installed).
    first = next(r["body"] for r in server.requests() if isinstance(r.get("body"), dict) and r["body"].get("messages"))
    if _has("ctxops_memory_inject.hook"):
        assert LESSON in json.dumps(first)

    # Status line: the command ctx init wrote prints a line (when ledger-report is installed).
    assert ("statusLine" in settings) == _has("ctxops_ledger_report.statusline")
    if "statusLine" in settings:
        payload = json.dumps({"session_id": run.session_id, "cwd": str(project), "model": {"id": "claude"}})
        line = subprocess.run(
            shlex.split(settings["statusLine"]["command"]),
            input=payload,
            capture_output=True,
            text=True,
            env=env,
            cwd=project,
            timeout=60,
            check=False,
        )
        assert line.returncode == 0 and line.stdout.strip(), line.stderr

    # Ledger: the session, with exactly the tokens the server sent through the proxy.
    sent = [r for r in server.responses() if r.get("kind") == "response"]
    report = repo.ctx("ledger", "report", "session", "--json", "--data-dir", str(data_dir))
    assert report.returncode == 0, report.stdout + report.stderr
    rows = json.loads(report.stdout)["rows"]
    (ours,) = [row for row in rows if row["session"] == run.session_id]
    assert len(rows) == 1, rows  # every call of the run belongs to its one session
    assert ours["calls"] == len(sent)
    assert ours["input_tokens"] == sum(r["usage"]["input_tokens"] for r in sent)
    assert ours["output_tokens"] == sum(r["usage"]["output_tokens"] for r in sent)
    assert ours["cache_write_tokens"] == sum(r["usage"]["cache_creation_input_tokens"] for r in sent)
    assert ours["cache_read_tokens"] == sum(r["usage"]["cache_read_input_tokens"] for r in sent)

    # Remove: tracked files and config files as they were.
    removed = repo.ctx("init", "--remove")
    assert removed.returncode == 0, removed.stdout + removed.stderr
    assert not (project / ".claude").exists() and not (project / ".mcp.json").exists()
    assert repo.tracked() == tracked_before
    left = set(repo.git("status", "--porcelain").splitlines())  # the example's history leaves a clean tree
    assert left <= {"?? .meta/"}, left  # captured events and the memory stay, out of git's way
    hooks = project / ".git" / "hooks"
    assert not any((hooks / name).exists() for name in ("post-commit", "post-checkout", "post-merge", "post-rewrite"))
