"""The context guard with a real Claude Code: a failing test run reaches the model as a summary that keeps
every failing id (through the PreToolUse wrapper, since a failing exit would otherwise skip PostToolUse),
an unchanged re-read is answered briefly, and the saved original is one `ctx out show` away."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from agent_harness import Scenario, ScriptedModelServer, run_claude, tool_use, turn, write_hooks
from agent_harness.fixtures import AgentWorkspace

pytestmark = pytest.mark.e2e

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "order-service"
BROKEN = ("api/orders/state_machine.py", "ALLOWED_TRANSITIONS.get(from_state,", "ALLOWED_TRANSITIONS.get(to_state,")


def tool_results(server_log: Path) -> list[str]:
    entries = [json.loads(line) for line in server_log.read_text(encoding="utf-8").splitlines()]
    bodies = [
        e["body"]
        for e in entries
        if e["kind"] == "request" and isinstance(e.get("body"), dict) and e["body"].get("tools")
    ]
    out = []
    for message in bodies[-1]["messages"]:
        if message["role"] == "user" and isinstance(message["content"], list):
            out += [
                b["content"] if isinstance(b["content"], str) else json.dumps(b["content"])
                for b in message["content"]
                if b.get("type") == "tool_result"
            ]
    return out


@pytest.mark.parametrize("module", ["ctxops_memory_inject.guard", "ctxops_core"])  # alone, and in core's ctx hook
def test_guard_summarizes_failing_run_and_dedupes_reread(
    agent_workspace: AgentWorkspace, claude_executable: Path, module: str
) -> None:
    ws = agent_workspace
    project = ws.project
    shutil.copytree(EXAMPLE, project, dirs_exist_ok=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    target = project / BROKEN[0]
    target.write_text(target.read_text(encoding="utf-8").replace(BROKEN[1], BROKEN[2], 1), encoding="utf-8")
    (project / ".meta").mkdir()
    (project / ".meta" / "config.toml").write_text('[guard]\naccounting = "inline"\n', encoding="utf-8")
    hook = f"{sys.executable} -m {module} hook claude-code"
    write_hooks(project, hook, events=["PreToolUse", "PostToolUse", "SessionStart", "PreCompact"])
    pytest_cmd = "python -m pytest api/tests -q -p no:cacheprovider"
    scenario = Scenario(
        [
            turn(tool_use("Bash", {"command": pytest_cmd, "description": "tests"})),
            turn(tool_use("Read", {"file_path": str(target)})),
            turn(tool_use("Read", {"file_path": str(target)})),
            turn("Found it."),
        ]
    )
    with ScriptedModelServer(scenario, seed=3, log_path=ws.server_log) as server:
        run_claude(project, ws.home, "fix the tests", server.url, executable=claude_executable).check()
    results = tool_results(ws.server_log)
    assert len(results) == 3
    tests, first_read, second_read = results
    assert tests.startswith("Exit code 1\n[ctxops guard: pytest output, exit status 1;")
    junit = project / "junit.xml"
    subprocess.run(
        [sys.executable, "-m", "pytest", "api/tests", "-q", "-p", "no:cacheprovider", f"--junitxml={junit}"],
        cwd=project,
        capture_output=True,
        check=False,
    )
    import xml.etree.ElementTree as ET

    failing = [
        c.attrib["classname"].replace(".", "/") + ".py::" + c.attrib["name"]
        for c in ET.parse(junit).getroot().iter("testcase")
        if c.find("failure") is not None
    ]
    assert len(failing) > 10
    assert [f for f in failing if f"FAILED {f}" not in tests] == []
    assert "[ctxops-exit" not in tests and "__ctxops_s" not in tests
    output_id = tests.rsplit("ctx out show ", 1)[1].split()[0]
    shown = subprocess.run(
        [
            sys.executable,
            "-m",
            "ctxops_memory_inject.guard",
            "out",
            "show",
            output_id,
            "--root",
            str(project),
            "--grep",
            "passed",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert shown.returncode == 0 and "failed" in shown.stdout
    assert "ALLOWED_TRANSITIONS" in first_read
    assert "unchanged since step" in second_read and "ALLOWED_TRANSITIONS" not in second_read
    records = list((ws.home / ".local" / "share" / "ctxops" / "context").glob("context-*.jsonl"))
    rows = [json.loads(line) for f in records for line in f.read_text(encoding="utf-8").splitlines()]
    rows = [r for r in rows if r["action"] == "guard"]  # core's hook may also record memory injections
    assert [r["tool_name"] for r in rows] == ["Bash", "Read"]
    assert all(r["action"] == "guard" and r["tokens_before"] > r["tokens"] for r in rows)


def test_claude_code_resends_an_unchanged_file_natively(
    agent_workspace: AgentWorkspace, claude_executable: Path
) -> None:
    """Why the guard dedupes reads: without it, this Claude Code sends an unchanged re-read in full again.

    If a later Claude Code answers the re-read itself, this fails, and the guard's dedupe can go.
    """
    ws = agent_workspace
    source = ws.project / "a.py"
    source.write_text("".join(f"def f{i}():\n    return {i}\n" for i in range(40)), encoding="utf-8")
    scenario = Scenario(
        [
            turn(tool_use("Read", {"file_path": str(source)})),
            turn(tool_use("Read", {"file_path": str(source)})),
            turn("Done."),
        ]
    )
    with ScriptedModelServer(scenario, seed=5, log_path=ws.server_log) as server:
        run_claude(ws.project, ws.home, "read it twice", server.url, executable=claude_executable).check()
    first, second = tool_results(ws.server_log)
    assert "def f39():" in first and "def f39():" in second
    assert len(second) >= len(first) - 10


def test_grep_and_glob_native_and_guarded(agent_workspace: AgentWorkspace, claude_executable: Path) -> None:
    """This Claude Code offers Grep/Glob only when asked for (`--tools`); its native content-mode Grep
    returns every matching line ungrouped, and the guard groups it by file (the path once) and caps it."""
    ws = agent_workspace
    project = ws.project
    shutil.copytree(EXAMPLE, project, dirs_exist_ok=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    grep = tool_use("Grep", {"pattern": "state|transition", "path": str(project / "api"), "output_mode": "content"})
    scenario = Scenario([turn(grep), turn("Done.")])
    with ScriptedModelServer(scenario, seed=7, log_path=ws.server_log) as server:
        run_claude(project, ws.home, "search", server.url, executable=claude_executable).check()
    (default,) = tool_results(ws.server_log)
    assert "No such tool available: Grep" in default  # by default the model greps through Bash

    tools = ["--tools", "Agent,Bash,Read,Edit,Grep,Glob"]
    with ScriptedModelServer(Scenario([turn(grep), turn("Done.")]), seed=7, log_path=ws.server_log) as server:
        run_claude(project, ws.home, "s", server.url, executable=claude_executable, extra_args=tools).check()
    (native,) = tool_results(ws.server_log)
    hits = [line for line in native.splitlines() if line.startswith("api/")]
    assert len(hits) > 50 and len({h.split(":", 1)[0] for h in hits}) > 5  # one line per hit, path repeated

    hook = f"{sys.executable} -m ctxops_memory_inject.guard hook claude-code"
    write_hooks(project, hook, events=["PreToolUse", "PostToolUse", "SessionStart", "PreCompact"])
    with ScriptedModelServer(Scenario([turn(grep), turn("Done.")]), seed=7, log_path=ws.server_log) as server:
        run_claude(project, ws.home, "s", server.url, executable=claude_executable, extra_args=tools).check()
    (guarded,) = tool_results(ws.server_log)
    assert guarded.startswith(f"{len(hits)} hits in ") and "(grouped by file)" in guarded
    assert len(guarded) < len(native) / 4 and "ctx out show" in guarded
