"""A real Claude Code runs the capture command on every hook: events, kinds, redaction, corrections, candidates.

The scripted model reads a file, runs a failing test, edits the file, runs the test again (passing, with a
secret in the command), then, in a resumed session, the user corrects it. Everything asserted here went
through Claude Code's own hook plumbing into `python -m ctxops_hooks_capture claude-code`.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from agent_harness import Scenario, ScriptedModelServer, run_claude, tool_use, turn, write_hooks
from agent_harness.fixtures import AgentWorkspace
from ctxops_hooks_capture.events_reader import ReadReport, read_events

pytestmark = pytest.mark.e2e

PY = shlex.quote(sys.executable)
SECRET = "sk-proj-E2ESECRETabcdef1234567890"
CORRECTION = "no, don't print from f; instead keep f pure and print in main()"


def _project(ws: AgentWorkspace) -> Path:
    subprocess.run(["git", "init", "-q", str(ws.project)], check=True)
    (ws.project / "app.py").write_text("def f():\n    return 1\n")
    (ws.project / "test_app.py").write_text("import app\n\n\ndef test_f():\n    assert app.f() == 2\n")
    hook = f"{PY} -m ctxops_hooks_capture claude-code"
    write_hooks(ws.project, hook)
    return ws.project


def test_claude_code_events_are_captured_redacted_and_harvested(
    agent_workspace: AgentWorkspace, claude_executable: Path
) -> None:
    ws = agent_workspace
    project = _project(ws)
    app = project / "app.py"
    # -B: the Edit keeps app.py's size and can land in the same second as the first run, so a .pyc that
    # run wrote would pass its (mtime, size) check and the second run would test the old code.
    pytest_cmd = f"{PY} -B -m pytest -q -p no:cacheprovider test_app.py"
    scenario = Scenario(
        [
            turn("Reading the code.", tool_use("Read", {"file_path": str(app)})),
            turn(tool_use("Bash", {"command": pytest_cmd, "description": "run the failing test"})),
            turn(tool_use("Edit", {"file_path": str(app), "old_string": "return 1", "new_string": "return 2"})),
            turn(
                tool_use(
                    "Bash",
                    {"command": f"export OPENAI_API_KEY={SECRET} && {pytest_cmd}", "description": "run the test again"},
                )
            ),
            turn("The test passes now."),
        ]
    )
    with ScriptedModelServer(scenario, seed=3, log_path=ws.server_log) as server:
        first = run_claude(project, ws.home, "make test_app pass", server.url, executable=claude_executable).check()
        server.set_scenario(Scenario([turn("Understood.")]))
        run_claude(
            project,
            ws.home,
            CORRECTION,
            server.url,
            extra_args=["--resume", first.session_id],
            executable=claude_executable,
        ).check()

    assert first.output["result"] == "The test passes now."  # the hooks printed nothing the agent took as context
    report = ReadReport()
    events = list(read_events(project, report=report))
    assert report.bad_lines == []
    log = project / ".meta" / "logs" / "hooks-capture.log"
    assert not log.exists(), log.read_text()
    kinds = [e.kind for e in events]
    assert kinds[0] == "session_start" and kinds[1] == "user_message"
    assert {"file_read", "file_modification", "test_result", "agent_message", "session_end"} <= set(kinds)
    assert all(e.agent == "claude-code" and e.repo == str(project) for e in events)

    read = next(e for e in events if e.kind == "file_read")
    edit = next(e for e in events if e.kind == "file_modification")
    assert read.files == ["app.py"] and edit.files == ["app.py"]
    tests = [e for e in events if e.kind == "test_result"]
    assert [(t.tests_passed, t.tests_failed) for t in tests] == [(0, 1), (1, 0)]
    assert tests[0].exit_status == 1 and tests[1].exit_status == 0
    assert "OPENAI_API_KEY=[REDACTED:" in (tests[1].command or "") and SECRET not in (tests[1].command or "")

    correction = next(e for e in events if e.kind == "user_correction")
    assert correction.text == CORRECTION
    step_ids = {e.id for e in events if e.kind in {"agent_message", "test_result", "file_modification"}}
    assert correction.corrects in step_ids

    # Redaction happened before anything touched disk: no file under .meta holds the secret.
    for path in (project / ".meta").rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path

    # The memory store turns the session into candidates and a searchable lesson.
    mem = [sys.executable, "-m", "ctxops_memory_store"]
    review = subprocess.run([*mem, "review", "--json"], cwd=project, capture_output=True, text=True, check=True)
    pending = json.loads(review.stdout)["pending"]
    tags = sorted(tag for entry in pending for tag in entry["tags"])
    assert tags == ["correction", "tests"]
    lesson = next(e for e in pending if "tests" in e["tags"])
    assert lesson["files"] == ["app.py"] and "1 failed" in lesson["body"]
    accepted = subprocess.run(
        [*mem, "review", "--accept", lesson["id"]], cwd=project, capture_output=True, text=True, check=True
    )
    assert "accepted" in accepted.stdout
    found = subprocess.run(
        [*mem, "search", "test_app", "failed", "--json"], cwd=project, capture_output=True, text=True, check=True
    )
    assert json.loads(found.stdout)["hits"][0]["id"] == lesson["id"]
