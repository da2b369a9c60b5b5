"""`ctx mcp` / `cq mcp` answer the handshake from static manifests, before anything heavy is imported
(issue 22, item 2), and the manifests stay equal to what the SDK lists."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from ctxops_contracts.shared.mcplite import entry_points, load, sdk_server, sdk_tools
from ctxops_core import mcp_cmd

HEAVY = ("mcp", "pydantic", "anyio", "duckdb", "lancedb", "tree_sitter", "msgspec", "ctxops_code_graph")
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
}


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "app.py").write_text("def handler(x):\n    return x + 1\n\n\ndef main():\n    return handler(2)\n")
    return root


def _script(name: str) -> str:
    path = Path(sys.executable).parent / name
    if not path.exists():
        pytest.skip(f"{name} is not installed beside {sys.executable} (the package is not installed here)")
    return str(path)


def _handshake(argv: list[str], cwd: Path) -> tuple[list[dict], str]:
    lines = [
        INIT,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *argv],
        input="".join(json.dumps(m) + "\n" for m in lines),
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "CTXOPS_MCP_PREWARM": "0"},
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return [json.loads(line) for line in done.stdout.splitlines()], done.stderr


@pytest.mark.parametrize("script", ["ctx", "cq"])
def test_the_handshake_imports_nothing_heavy(repo: Path, script: str) -> None:
    answers, stderr = _handshake([_script(script), "mcp"], repo)
    assert [a["id"] for a in answers] == [1, 2]
    assert answers[0]["result"]["protocolVersion"] == "2025-06-18"
    assert answers[0]["result"]["capabilities"]["tools"] == {"listChanged": False}
    names = [t["name"] for t in answers[1]["result"]["tools"]]
    assert ("ctxops_doctor" if script == "ctx" else "code_def") in names
    imported = {line.split("|")[-1].strip() for line in stderr.splitlines() if line.startswith("import time:")}
    heavy = sorted(m for m in imported if m.split(".")[0] in HEAVY)
    assert heavy == [], f"the handshake imported {heavy[:10]}"
    assert "argparse" not in imported and "importlib.metadata" not in imported


def test_an_unknown_protocol_version_is_answered_with_the_newest_handshake_version(repo: Path) -> None:
    init = {**INIT, "params": {**INIT["params"], "protocolVersion": "2099-01-01"}}
    done = subprocess.run(
        [_script("cq"), "mcp"],
        input=json.dumps(init) + "\n",
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert json.loads(done.stdout)["result"]["protocolVersion"] == "2025-11-25"


def test_the_stateless_probe_is_declined_at_once_so_the_client_initializes(repo: Path) -> None:
    # Claude Code 2.1.332 probes `server/discover` (protocol 2026-07-28) first; a handshake-era answer
    # (method not found) at once makes it fall back to `initialize`, which the front answers itself.
    probe = {"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {"_meta": {}}}
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", _script("cq"), "mcp"],
        input="".join(json.dumps(m) + "\n" for m in (probe, INIT, listing)),
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, "CTXOPS_MCP_PREWARM": "0"},
        timeout=60,
        check=False,
    )
    first, init, tools = map(json.loads, done.stdout.splitlines())
    assert first == {"jsonrpc": "2.0", "id": 0, "error": {"code": -32601, "message": "Method not found"}}
    assert init["result"]["serverInfo"]["name"] == "ctxops-code" and tools["result"]["tools"]
    assert "mcp" not in {line.split("|")[-1].strip() for line in done.stderr.splitlines()}


def test_a_tool_call_is_served_by_the_sdk_after_the_handover(repo: Path) -> None:
    calls = [
        INIT,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "code_def", "arguments": {"name": "handler"}},
        },
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "code_def", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 5, "method": "ping"},
    ]
    proc = subprocess.Popen(
        [_script("cq"), "mcp"],
        cwd=repo,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("".join(json.dumps(m) + "\n" for m in calls))
    proc.stdin.flush()  # stdin stays open, as a client's does, until every answer is in
    answers: dict[int, dict] = {}
    try:
        while len(answers) < 5:
            line = proc.stdout.readline()
            if not line:
                break
            answer = json.loads(line)
            answers[answer["id"]] = answer
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    assert sorted(answers) == [1, 2, 3, 4, 5]  # the replayed initialize is not echoed
    assert "app.py:1" in answers[3]["result"]["content"][0]["text"]
    assert answers[4]["result"]["isError"] is True
    assert answers[5]["result"] == {}


def test_every_manifest_equals_what_the_sdk_lists(tmp_path: Path) -> None:
    manifests = dict(entry_points(mcp_cmd.MANIFEST_GROUP))
    registrars = entry_points(mcp_cmd.GROUP)
    assert registrars, "no ctxops.mcp_tools entry point is installed"
    for name, value in registrars:
        assert name in manifests, f"{name} has no static manifest (group {mcp_cmd.MANIFEST_GROUP})"
        static = load(manifests[name])()
        live = sdk_tools(lambda value=value: sdk_server([load(value)], tmp_path))
        fix = f"python -m ctxops_contracts.shared.mcplite {value} <its mcp_manifest.json>"
        assert static == live, f"{name}'s mcp_manifest.json differs from its tools; regenerate: {fix}"


def test_the_scan_finds_what_importlib_metadata_finds() -> None:
    from importlib.metadata import entry_points as metadata_entry_points

    for group in (mcp_cmd.GROUP, mcp_cmd.MANIFEST_GROUP):
        expected = {ep.name: ep.value for ep in metadata_entry_points(group=group)}
        assert dict(entry_points(group)) == expected


def test_the_handshake_lists_only_the_lines_switched_on(repo: Path) -> None:
    """`[lines]` (ctx bench's arms, a user turning a line off) narrows the static tools/list as it narrows
    the SDK server: a line that is off offers no tools; shared tools only with every line on."""
    names = {name for name, _ in entry_points(mcp_cmd.GROUP)}
    if not {"code", "memory"} <= names:
        pytest.skip("the code and memory lines are not both installed in this environment")
    (repo / ".meta").mkdir()
    (repo / ".meta" / "config.toml").write_text('[lines]\nenabled = ["map"]\n')
    messages, stderr = _handshake(["-m", "ctxops_core", "mcp"], repo)
    listed = {tool["name"] for m in messages if m.get("id") == 2 for tool in m["result"]["tools"]}
    assert listed and all(name.startswith("code_") for name in listed), listed
    assert not [heavy for heavy in HEAVY if f"| {heavy}\n" in stderr], "the [lines] check imported a heavy module"
    (repo / ".meta" / "config.toml").write_text("# every line on\n")
    messages, _ = _handshake(["-m", "ctxops_core", "mcp"], repo)
    every = {tool["name"] for m in messages if m.get("id") == 2 for tool in m["result"]["tools"]}
    assert listed < every and {"recall", "ctxops_doctor"} <= every
