"""A real Claude Code with `python -m ctxops_memory_inject hook claude-code` on every hook: a correction in
session 1 becomes a lesson (auto-accepted corrections, `[memory] accept_corrections = true`) that supersedes
an older, contradicting lesson; session 2 on a related prompt starts with the lesson and session 1's digest
within the budget; session 3 on an unrelated prompt gets no task memories.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from agent_harness import Scenario, ScriptedModelServer, run_claude, tool_use, turn, write_hooks
from agent_harness.fixtures import AgentWorkspace
from ctxops_memory_inject.build import HEADER
from ctxops_memory_inject.tokens import count
from ctxops_memory_store import MemoryStore, new_entry

pytestmark = pytest.mark.e2e

PY = shlex.quote(sys.executable)
CORRECTION = "no, don't use float for money, use Decimal"
BUDGET = 800  # the hook's default


def _first_main_request(requests: list[dict[str, Any]], since: int) -> str:
    for request in requests[since:]:
        body = request.get("body")
        if request["path"].startswith("/v1/messages") and isinstance(body, dict) and body.get("tools"):
            return json.dumps(body, ensure_ascii=False)
    raise AssertionError("no main-conversation request")


def _blocks(request_text: str) -> list[str]:
    """The injected memory blocks inside a request (JSON-decoded text)."""
    text = json.loads(request_text)
    flat = json.dumps(text["messages"], ensure_ascii=False)
    decoded = json.loads(f'"{flat}"') if False else flat
    blocks = []
    for message in text["messages"]:
        content = message["content"]
        parts = [content] if isinstance(content, str) else [p.get("text", "") for p in content if isinstance(p, dict)]
        for part in parts:
            start = part.find(HEADER)
            while start != -1:
                lines = []
                for line in part[start:].splitlines():
                    if lines and not line.startswith(("- ", "## ", "  ", "(")):
                        break
                    lines.append(line)
                blocks.append("\n".join(lines))
                start = part.find(HEADER, start + 1)
    assert decoded
    return blocks


def test_a_correction_comes_back_as_a_lesson_in_the_next_session(
    agent_workspace: AgentWorkspace, claude_executable: Path
) -> None:
    ws = agent_workspace
    project = ws.project
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "cart.py").write_text("def total(items):\n    return sum(i.price for i in items)\n")
    (project / ".meta").mkdir()
    (project / ".meta" / "config.toml").write_text("[memory]\naccept_corrections = true\n")
    stale = MemoryStore(project).put(new_entry(kind="lesson", title="Use float for money")).entry
    write_hooks(project, f"{PY} -m ctxops_memory_inject hook claude-code")
    cart = str(project / "cart.py")

    session1 = Scenario(
        [
            turn("Reading cart.py.", tool_use("Read", {"file_path": cart})),
            turn(
                tool_use(
                    "Edit",
                    {
                        "file_path": cart,
                        "old_string": "return sum(",
                        "new_string": "return float(sum(",
                        "replace_all": False,
                    },
                )
            ),
            turn("Totals are floats now."),
        ]
    )
    with ScriptedModelServer(session1, seed=5, log_path=ws.server_log) as server:
        first = run_claude(
            project, ws.home, "add a total for the cart in cart.py", server.url, executable=claude_executable
        ).check()
        server.set_scenario(Scenario([turn("Understood: Decimal for money from now on.")]))
        run_claude(
            project,
            ws.home,
            CORRECTION,
            server.url,
            extra_args=["--resume", first.session_id],
            executable=claude_executable,
        ).check()

        store = MemoryStore(project)
        lessons = [e for e in store.list_entries(kinds=["lesson"], statuses=None) if "correction" in e.tags]
        assert len(lessons) == 1 and lessons[0].status == "active", lessons
        lesson = lessons[0]
        assert "Decimal" in lesson.title
        assert store.resolve(stale.id).status == "superseded" and store.resolve(stale.id).superseded_by == lesson.id
        digests = [e for e in store.list_entries(kinds=["summary"]) if f"session:{first.session_id}" in e.tags]
        assert len(digests) == 1 and "cart.py" in digests[0].body and "Correction:" in digests[0].body

        # Session 2: a new session on a related prompt.
        seen = len(server.requests())
        server.set_scenario(Scenario([turn("I will use Decimal for the refund.")]))
        run_claude(
            project, ws.home, "add a refund for money amounts in cart.py", server.url, executable=claude_executable
        ).check()
        request = _first_main_request(server.requests(), seen)
        blocks = _blocks(request)
        assert blocks, "no memory block in the first request of session 2"
        joined = "\n".join(blocks)
        assert lesson.id[-8:] in joined and "Decimal" in joined
        assert digests[0].id[-8:] in joined  # session 1's digest
        assert stale.id[-8:] not in joined and "Use float for money" not in request
        assert all(count(b) <= BUDGET for b in blocks)

        # Session 3: unrelated.
        seen = len(server.requests())
        server.set_scenario(Scenario([turn("Here is the deployment section.")]))
        run_claude(
            project,
            ws.home,
            "write a README section about deployment scripts",
            server.url,
            executable=claude_executable,
        ).check()
        request = _first_main_request(server.requests(), seen)
        joined = "\n".join(_blocks(request))
        assert "## For this task" not in joined  # nothing task-specific for an unrelated prompt
        # A lesson from a correction is a project constant (issue 23): it may come back in any session, but
        # only among the constants, and whole.
        if lesson.id[-8:] in joined:
            constants = joined.split("## Project constants", 1)[1].split("\n## ", 1)[0]
            assert f"{lesson.id[-8:]} lesson: {lesson.title}" in constants, joined

    records = list((ws.home / ".local" / "share" / "ctxops" / "context").glob("context-*.jsonl"))
    lines = [json.loads(line) for path in records for line in path.read_text().splitlines()]
    assert any(r["action"] == "inject" and lesson.id in r["memory_ids"] and r["tokens"] > 0 for r in lines)
    assert not (project / ".meta" / "logs" / "memory-inject.log").exists()
