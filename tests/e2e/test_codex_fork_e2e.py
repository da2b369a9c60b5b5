"""A real Codex CLI forks sessions; the ledger gives each its own turns, once.

Two ways Codex 0.171 forks, both non-interactive: a subagent spawned with the parent's history
(`spawn_agent` with `fork_turns: "all"`, the parent waiting on it with `wait_agent`), whose rollout copies
the parent's session_meta and history ahead of its own lines; and `codex exec fork PARENT PROMPT`, whose
rollout copies nothing but whose running totals go on from the parent's. Which rollout recorded which
response is read from Codex's own `token_usage_record` lines (thread and response id), and each session's
ledger row must equal what the server sent for that session's responses.
"""

from __future__ import annotations

import json
import subprocess
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from agent_harness import Scenario, ScriptedModelServer, Usage, tool_use, turn
from agent_harness.codex_cli import ensure_codex, rollouts, run_codex, write_codex_config
from ctxops_token_capture.ingest import Sources, ingest
from ctxops_token_capture.totals import totals

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def codex_executable() -> Path:
    return ensure_codex()


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "notes.txt").write_text("hello\n", encoding="utf-8")
    return project


def _thread_of_response(codex_home: Path) -> dict[str, str]:
    """response id -> the thread (session) whose rollout recorded it as its own."""
    out: dict[str, str] = {}
    for path in rollouts(codex_home):
        for line in path.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            if entry.get("type") == "token_usage_record":
                out[entry["payload"]["response_id"]] = entry["payload"]["thread_id"]
    return out


def _expected(sent: list[dict[str, Any]], threads: dict[str, str]) -> dict[str, dict[str, int]]:
    expected: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for response in sent:
        usage, row = response["usage"], expected[threads[response["message_id"]]]
        cached = usage["input_tokens_details"]["cached_tokens"]
        row["calls"] += 1
        row["input_tokens"] += usage["input_tokens"] - cached
        row["cache_read_tokens"] += cached
        row["output_tokens"] += usage["output_tokens"]
    return {k: dict(v) for k, v in expected.items()}


def _ledger(codex_home: Path, root: Path) -> dict[str, dict[str, int]]:
    ingest(Sources(codex_homes=[codex_home]), root)
    keys = ("calls", "input_tokens", "cache_read_tokens", "output_tokens")
    return {r["session"]: {k: r[k] for k in keys} for r in totals(["session"], root=root).rows}


def test_a_spawned_forked_subagents_turns_are_its_own(codex_executable: Path, tmp_path: Path) -> None:
    project, home = _project(tmp_path), tmp_path / "home"
    spawn = tool_use(
        "spawn_agent",
        {"task_name": "child", "message": "Count the files.", "fork_turns": "all"},
        namespace="collaboration",
    )
    wait = tool_use("wait_agent", {"timeout_ms": 60000}, namespace="collaboration")
    turns = [
        turn(tool_use("exec_command", {"cmd": "cat notes.txt"}), usage=Usage(1000, 10, cache_read_input_tokens=700)),
        turn(spawn, wait, usage=Usage(2000, 20)),  # the parent waits: the next request is the child's
        turn("There is one file.", usage=Usage(4000, 40, cache_read_input_tokens=3000)),
        turn("Done.", usage=Usage(5000, 50)),
    ]
    codex_home = home / ".codex"
    with ScriptedModelServer(Scenario(turns), seed=7, log_path=tmp_path / "server.jsonl") as server:
        write_codex_config(codex_home, server.url, project)
        run = run_codex(
            project, home, "Spawn a helper.", extra_args=["--enable", "multi_agent_v2"], executable=codex_executable
        ).check()
    sent = server.responses()
    parent = run.thread_id
    threads = _thread_of_response(codex_home)
    assert set(threads.values()) - {parent}, "the child recorded no turn of its own"
    (child_file,) = [p for p in rollouts(codex_home) if parent not in p.name]
    metas = [json.loads(line)["payload"] for line in child_file.read_text().splitlines() if '"session_meta"' in line]
    assert metas[0]["forked_from_id"] == parent and metas[1]["id"] == parent  # the parent's copied along
    assert _ledger(codex_home, tmp_path / "ledger") == _expected(sent, threads)


def test_an_exec_fork_counts_the_childs_own_turns(codex_executable: Path, tmp_path: Path) -> None:
    project, home = _project(tmp_path), tmp_path / "home"
    codex_home = home / ".codex"
    parent_turns = [
        turn(tool_use("exec_command", {"cmd": "cat notes.txt"}), usage=Usage(1200, 12, cache_read_input_tokens=900)),
        turn("Read it.", usage=Usage(2200, 22)),
    ]
    child_turns = [
        turn(tool_use("exec_command", {"cmd": "ls"}), usage=Usage(3300, 33, cache_read_input_tokens=3000)),
        turn("Listed.", usage=Usage(4400, 44)),
    ]
    with ScriptedModelServer(Scenario(parent_turns), seed=8, log_path=tmp_path / "server.jsonl") as server:
        write_codex_config(codex_home, server.url, project)
        parent = run_codex(project, home, "Read the notes.", executable=codex_executable).check().thread_id
        server.set_scenario(Scenario(child_turns))
        child = run_codex(
            project, home, "Now list the files.", extra_args=["fork", parent], executable=codex_executable
        ).check()
    assert child.thread_id != parent
    threads = _thread_of_response(codex_home)
    assert set(threads.values()) == {parent, child.thread_id}
    assert _ledger(codex_home, tmp_path / "ledger") == _expected(server.responses(), threads)
