"""A real Claude Code uses cq's code map through MCP, wired the way a user wires it.

The project is the example order service (a real git repo from `examples/make_history.py`) with a `.mcp.json`
naming a stdio server `cq` = this environment's `cq mcp --root <project>`. The scripted model asks for the
definition of `OrderStateMachine.transition`, then its callers. What Claude Code sent back to the model as
each tool_result is checked against the source itself (Python's `ast`), for size and for errors.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from agent_harness import Scenario, ScriptedModelServer, run_claude, tool_use, turn, write_mcp_config
from agent_harness.fixtures import AgentWorkspace

pytestmark = pytest.mark.e2e

REPO_ROOT = Path(__file__).resolve().parents[2]
TARGET_FILE = "api/orders/state_machine.py"
TARGET = "OrderStateMachine.transition"
DEF_TOOL, CALLERS_TOOL = "mcp__cq__code_def", "mcp__cq__code_callers"  # Claude Code's mcp__<server>__<tool>
CQ_TOOLS = ("def", "refs", "callers", "callees", "brief", "deps", "impact", "map", "grep", "open", "search", "status")


def _make_project(dest: Path) -> Path:
    script = REPO_ROOT / "examples" / "make_history.py"
    subprocess.run([sys.executable, str(script), str(dest)], check=True, capture_output=True, timeout=120)
    cq = Path(sys.executable).with_name("cq")
    assert cq.is_file(), f"no cq console script next to {sys.executable}"
    write_mcp_config(dest, {"cq": {"command": str(cq), "args": ["mcp", "--root", str(dest)]}})
    settings = dest / ".claude" / "settings.json"  # a user approves the project's servers the same way
    settings.parent.mkdir()
    # By name, as `ctx init` approves its own: never `enableAllProjectMcpServers` (docs/security.md, promise 5).
    settings.write_text(json.dumps({"enabledMcpjsonServers": ["cq"]}) + "\n", encoding="utf-8")
    _git(dest, "add", ".mcp.json", ".claude/settings.json")
    _git(dest, "commit", "-q", "-m", "Wire the cq code map into Claude Code")
    return dest


def _method_line(path: Path, cls: str, method: str) -> int:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == method:
                    return item.lineno
    raise AssertionError(f"{cls}.{method} not in {path}")


def _call_sites(root: Path, method: str) -> set[tuple[str, int, str]]:
    """(path, line, innermost enclosing function) of every `<x>.method(...)` call in the project's Python."""
    sites: set[tuple[str, int, str]] = set()

    def visit(node: ast.AST, rel: str, fn: str | None) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            fn = node.name
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == method and fn:
            sites.add((rel, node.lineno, fn))
        for child in ast.iter_child_nodes(node):
            visit(child, rel, fn)

    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if not rel.startswith("."):
            visit(ast.parse(path.read_text(encoding="utf-8")), rel, None)
    return sites


def _git(root: Path, *args: str) -> str:
    command = ["git", "-c", "user.name=E2E", "-c", "user.email=e2e@example.invalid", *args]
    return subprocess.run(command, cwd=root, check=True, capture_output=True, text=True).stdout.strip()


def _main_requests(server: ScriptedModelServer) -> list[dict[str, Any]]:
    seqs = {r["seq"] for r in server.responses("main")}
    return [r["body"] for r in server.requests() if r["seq"] in seqs]


def _tool_results(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The tool_result blocks of a request's last user message, by tool_use_id."""
    last = [m for m in body["messages"] if m.get("role") == "user"][-1]
    content = last["content"] if isinstance(last["content"], list) else []
    return {b["tool_use_id"]: b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"}


def _text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(c.get("text", "") for c in content or [] if isinstance(c, dict))


def test_claude_code_answers_from_cq_over_mcp(agent_workspace: AgentWorkspace, claude_executable: Path) -> None:
    ws = agent_workspace
    project = _make_project(ws.project)
    assert not (project / ".meta" / "index").exists()
    source = project / TARGET_FILE
    def_line = _method_line(source, "OrderStateMachine", "transition")
    sites = _call_sites(project, "transition")
    head = _git(project, "rev-parse", "--short=7", "HEAD")
    assert len(sites) >= 10  # the example calls it from services, callbacks, the timeout job and tests

    # Claude Code defers MCP tools: a model loads their schemas with ToolSearch before calling them.
    scenario = Scenario(
        [
            turn("Loading the code map tools.", tool_use("ToolSearch", {"query": f"select:{DEF_TOOL},{CALLERS_TOOL}"})),
            turn("Looking it up in the code map.", tool_use(DEF_TOOL, {"name": TARGET})),
            turn(tool_use(CALLERS_TOOL, {"name": TARGET})),
            turn("transition is defined in the state machine and called by the services."),
        ]
    )
    with ScriptedModelServer(scenario, seed=11, log_path=ws.server_log) as server:
        prompt = "where is transition defined and who calls it?"
        run = run_claude(project, ws.home, prompt, server.url, executable=claude_executable).check()

    assert run.output["result"] == "transition is defined in the state machine and called by the services."
    main = server.responses("main")
    assert [r["turn_index"] for r in main] == [0, 1, 2, 3], main
    bodies = _main_requests(server)
    results: dict[str, dict[str, Any]] = {}
    for body in bodies:
        results |= _tool_results(body)
    for block in results.values():
        assert not block.get("is_error"), _text(block)
    search_id, def_id, callers_id = (main[i]["tool_use_ids"][0] for i in range(3))
    assert set(results) == {search_id, def_id, callers_id}

    # Claude Code told the model about all twelve cq tools (where it lists deferred tools, system prompt or
    # a reminder message, varies between runs) and, once searched, sent the model their schemas.
    sent = "\n".join(json.dumps(body) for body in bodies)
    for name in CQ_TOOLS:
        assert f"mcp__cq__code_{name}" in sent, name
    loaded = {t["name"]: t for t in bodies[1]["tools"] if t["name"].startswith("mcp__cq__")}
    assert set(loaded) == {DEF_TOOL, CALLERS_TOOL}, sorted(loaded)
    assert loaded[DEF_TOOL]["input_schema"]["required"] == ["name"]
    assert {"name", "depth", "max", "budget"} <= set(loaded[CALLERS_TOOL]["input_schema"]["properties"])
    def_text, callers_text = _text(results[def_id]), _text(results[callers_id])

    # The definition: its path:line (from ast), its signature. The server starts without an index: the
    # first answer comes from the provisional scan while the full build runs, and says so.
    assert def_text.startswith(f"{TARGET_FILE}:{def_line} "), def_text
    assert "OrderStateMachine.transition(self, order" in def_text
    assert def_text.rstrip().endswith(("-- index provisional", f"-- index {head}")), def_text
    # The callers: the count and every listed path:line are real call sites of `.transition(...)`.
    header = re.match(rf"(\d+) callers of {re.escape(TARGET)}(?:, (\d+) more possible by name only)?", callers_text)
    assert header, callers_text
    certain, possible = int(header.group(1)), int(header.group(2) or 0)
    listed = {
        (m["path"], int(m["line"]), m["fn"])
        for m in re.finditer(r"^(?P<path>\S+\.py):(?P<line>\d+)\s+(?P<fn>\w+)\s+\[", callers_text, re.M)
    }
    assert listed and listed <= sites, listed - sites
    assert f"... and {len(sites) - len(listed)} more" in callers_text
    if callers_text.rstrip().endswith("-- index provisional"):
        # Asked while the first build runs, the server answers at once (issue 24): every call site by name,
        # none certain yet, and says so.
        assert (certain, possible) == (0, len(sites)) and "provisional:" in callers_text, callers_text
    else:
        # Built at HEAD on a clean tree. Certain callers first; call sites whose receiver type is not known
        # are counted apart, by name only.
        assert callers_text.rstrip().endswith(f"-- index {head}"), callers_text
        assert certain + possible == len(sites) and certain >= len(sites) // 2, callers_text
        assert len(listed) == min(10, len(sites)), callers_text

    # Small answers: a few hundred tokens (~4 characters each), far less than the file they point into.
    file_chars = len(source.read_text(encoding="utf-8"))
    for text in (def_text, callers_text):
        assert len(text) < min(file_chars / 3, 1500), (len(text), file_chars)

    # The first tool call built the index (the server starts without one).
    assert (project / ".meta" / "index").is_dir()
