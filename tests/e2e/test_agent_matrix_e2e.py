"""The version matrix: each real client, wired only by `ctx init`, through two sessions.

Claude Code (the oldest supported, 2.1.197, and the pinned newest), Codex CLI and Gemini CLI, each against
the scripted model server, in a fresh git repository of the example with `[memory] accept_corrections`:

- session 1 opens with a correction: it is stored as `user_correction` under every client (Gemini hands
  SessionStart's injected block back inside that prompt: it is stripped first); after a shell command the
  code map's MCP tool is called (through Codex's `tool_search`, where Codex defers MCP tools) and answered
  (whether the server is ready at the very first request is issue 22 item 2's test, not this one's);
- session 2: its first model request carries the correction, now a lesson, in full and once; its stored
  prompt is the user's alone, and no stored prompt or memory file holds a ctxops block (the loop where an
  injected block is stored, digested and injected again is closed);
- the ledger's output tokens equal the server's (Codex and Gemini; Claude Code's ledger has its own
  tests), and `ctx init --remove` restores every tracked file.

Marked `matrix`: one test per client and version, so a CI job can run each heavy client once
(`pytest -m matrix`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from agent_harness import Scenario, ScriptedModelServer, tool_use, turn
from agent_harness.claude_code import claude_code_version, ensure_claude_code, run_claude
from agent_harness.codex_cli import ensure_codex, run_codex, write_codex_config
from agent_harness.ctx_repo import CtxRepo, wired_example
from agent_harness.gemini_cli import ensure_gemini_cli, run_gemini, write_gemini_user_settings

pytestmark = [pytest.mark.e2e, pytest.mark.matrix]

CORRECTION = "No, use Decimal for refund amounts, never float"  # one sentence: the lesson's title in full
# The lesson is the correction's rule: the user's words without the opener that only says no (issue 23).
LESSON_TITLE = "Use Decimal for refund amounts, never float"
PROMPT_2 = "How should refund amounts be stored?"
CTXOPS_BLOCKS = ("<hook_context>", "<ctxops-memory>", "Notes ctxops recorded", "ctxops memory:")
OLDEST_CLAUDE = "2.1.197"


@dataclass
class Client:
    """How to run one client for this test: its turns, one run, and where its code tool answer shows."""

    agent: str
    executable: Callable[[], Path]
    session_1: Callable[[], list[Any]]
    run: Callable[[CtxRepo, Path, str, str, Path], None]
    code_tool: str  # the tool name as the captured events name it
    output_tokens: Callable[[dict[str, Any]], int] | None  # a logged server response's output tokens


def _claude(version: str) -> Client:
    def run(repo: CtxRepo, home: Path, prompt: str, url: str, exe: Path) -> None:
        run_claude(repo.project, home, prompt, url, env=repo.agent_env(), executable=exe).check()

    return Client(
        agent="claude-code",
        executable=lambda: ensure_claude_code(version),
        session_1=lambda: [
            turn(tool_use("Bash", {"command": "git log --oneline | head -3", "description": "history"})),
            # what a model does when the server is still connecting (both versions offer the tool)
            turn(tool_use("WaitForMcpServers", {"servers": ["ctxops"]})),
            turn("Asking the code map.", tool_use("mcp__ctxops__code_def", {"name": "OrderStateMachine.transition"})),
            turn("Done."),
        ],
        run=run,
        code_tool="mcp__ctxops__code_def",
        output_tokens=None,
    )


def _codex() -> Client:
    def run(repo: CtxRepo, home: Path, prompt: str, url: str, exe: Path) -> None:
        write_codex_config(home / ".codex", url, repo.project)
        run_codex(repo.project, home, prompt, env=repo.agent_env(), executable=exe).check()

    return Client(
        agent="codex",
        executable=ensure_codex,
        session_1=lambda: [
            turn(tool_use("exec_command", {"cmd": "git log --oneline | head -3"})),
            turn("Looking for the code map.", tool_use("tool_search", {"query": "code definition symbol", "limit": 5})),
            # searched again, as a model does when the first search found nothing (a server still starting)
            turn(tool_use("tool_search", {"query": "code definition symbol", "limit": 5})),
            turn(tool_use("code_def", {"name": "OrderStateMachine.transition"}, namespace="mcp__ctxops")),
            turn("Done."),
        ],
        run=run,
        code_tool="mcp__ctxops__code_def",
        output_tokens=lambda r: int(r["usage"]["output_tokens"]),
    )


def _gemini() -> Client:
    def run(repo: CtxRepo, home: Path, prompt: str, url: str, exe: Path) -> None:
        write_gemini_user_settings(home)
        run_gemini(repo.project, home, prompt, url, env=repo.agent_env(), executable=exe).check()

    return Client(
        agent="gemini",
        executable=ensure_gemini_cli,
        session_1=lambda: [
            turn("Asking the code map.", tool_use("mcp_ctxops_code_def", {"name": "OrderStateMachine.transition"})),
            turn(tool_use("run_shell_command", {"command": "git log --oneline | head -3"})),
            turn("Done."),
        ],
        run=run,
        code_tool="mcp_ctxops_code_def",
        output_tokens=lambda r: int(r["usage"]["candidatesTokenCount"]),
    )


CLIENTS = {
    f"claude-code-{OLDEST_CLAUDE}": lambda: _claude(OLDEST_CLAUDE),
    f"claude-code-{claude_code_version()}": lambda: _claude(claude_code_version()),
    "codex": _codex,
    "gemini": _gemini,
}


def _first_request_with(server: ScriptedModelServer, since: int, text: str) -> str:
    for request in server.requests()[since:]:
        body = json.dumps(request.get("body"), ensure_ascii=False)
        if text in body:
            return body
    raise AssertionError(f"no request carried {text!r}")


def _memory_texts(repo: CtxRepo) -> dict[str, str]:
    root = repo.project / ".meta" / "memory"
    return {str(p.relative_to(root)): p.read_text(encoding="utf-8") for p in root.rglob("*.md")}


@pytest.mark.parametrize("name", list(CLIENTS))
def test_two_sessions_wired_only_by_ctx_init(name: str, tmp_path: Path) -> None:
    client = CLIENTS[name]()
    exe = client.executable()
    repo, tracked_before = wired_example(tmp_path, client.agent)
    config = repo.project / ".meta" / "config.toml"
    text = config.read_text(encoding="utf-8") if config.exists() else ""
    assert "[memory]" not in text.splitlines(), text  # (only commented defaults: no memory table yet)
    config.write_text(text + "\n[memory]\naccept_corrections = true\n", encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()

    turns_1 = client.session_1()
    with ScriptedModelServer(Scenario(turns_1), seed=61, log_path=tmp_path / "server.jsonl") as server:
        client.run(repo, home, CORRECTION, server.url, exe)
        since = len(server.requests())
        server.set_scenario(Scenario([turn("Decimal, as the lesson says.")]))
        client.run(repo, home, PROMPT_2, server.url, exe)
    events = repo.events()
    sessions = list(dict.fromkeys(e["session_id"] for e in events))
    assert len(sessions) == 2, sessions

    # Session 1: the first prompt is a correction under every client, stored as the user wrote it.
    prompts = [e for e in events if e["kind"] in {"user_message", "user_correction"}]
    assert [(e["session_id"], e["kind"], e["text"]) for e in prompts] == [
        (sessions[0], "user_correction", CORRECTION),
        (sessions[1], "user_message", PROMPT_2),
    ]
    assert any(e["kind"] == "command_execution" and e["session_id"] == sessions[0] for e in events)
    code = [e for e in events if e["tool_name"] == client.code_tool]
    assert code and "api/orders/state_machine.py:" in (code[0]["text"] or ""), code

    # Session 2: the correction, now a lesson, is in its first request in full, once; no memory is given
    # twice (SessionStart's block and the prompt's block do not repeat an entry).
    first_2 = _first_request_with(server, since, PROMPT_2)
    assert first_2.count(f"lesson: {LESSON_TITLE}") == 1, first_2[-4000:]
    ids = re.findall(r"- ([0-9A-Z]{8}) [a-z]+: ", first_2)
    assert ids and len(ids) == len(set(ids)), ids

    # Nothing ctxops wrote is stored as a prompt or written into a memory (no loop).
    for event in prompts:
        assert not any(block in (event["text"] or "") for block in CTXOPS_BLOCKS), event
    memories = _memory_texts(repo)
    assert any(LESSON_TITLE in body for body in memories.values()), sorted(memories)
    for path, body in memories.items():
        assert not any(block in body for block in CTXOPS_BLOCKS), (path, body[:2000])

    # Ledger (Codex and Gemini read here; Claude Code's ledger has its own e2e tests): output tokens as sent.
    if client.output_tokens is not None:
        env = {"CODEX_HOME": str(home / ".codex"), "GEMINI_CLI_HOME": str(home)}
        ingest = repo.ctx("ledger", "ingest", "--json", env=env)
        assert ingest.returncode == 0, ingest.stdout + ingest.stderr
        report = repo.ctx("ledger", "report", "session", "--json")
        rows = json.loads(report.stdout)["rows"]
        assert {r["session"] for r in rows} == set(sessions), rows
        sent = [r for r in server.responses("main") if r.get("note") is None] or server.responses()
        assert sum(r["output_tokens"] for r in rows) == sum(client.output_tokens(r) for r in sent)

    removed = repo.ctx("init", "--remove")
    assert removed.returncode == 0, removed.stdout + removed.stderr
    assert repo.tracked() == tracked_before
