"""`ctx mcp`: one server assembled from the ``ctxops.mcp_tools`` entry points, driven by the SDK's client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import anyio
import pytest
from ctxops_core import mcp_cmd
from mcp import Client
from mcp.client.stdio import StdioServerParameters


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def installed_contributions() -> set[str]:
    return {ep.name for ep in entry_points(group=mcp_cmd.GROUP)}


async def _session(root: Path, calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[str], list[str]]:
    env = {"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else None
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "ctxops_core", "mcp", "--root", str(root)], env=env
    )
    async with Client(params, read_timeout_seconds=60) as client:
        tools = [t.name for t in (await client.list_tools()).tools]
        texts = []
        for name, args in calls:
            result = await client.call_tool(name, args)
            texts.append("\n".join(getattr(c, "text", "") for c in result.content))
    return tools, texts


def test_one_server_offers_every_installed_contribution(repo: Path) -> None:
    tools, (doctor,) = anyio.run(_session, repo, [("ctxops_doctor", {})])
    assert "ctxops_doctor" in tools
    assert doctor.startswith(f"ctx doctor: {repo}")
    assert "not wired" in doctor
    if "code" in installed_contributions():  # code-query's registrar (ctxops_code_query.mcp_tools)
        assert "code_def" in tools


def test_list_prints_the_tools_as_json(repo: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ctxops_core", "mcp", "--list", "--json", "--root", str(repo)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert "ctxops_doctor" in answer["tools"] and answer["failed"] == []


def test_a_broken_contribution_is_left_out_and_the_rest_still_serve(repo: Path) -> None:
    def broken(server: object, root: Path) -> None:
        raise RuntimeError("cannot open its store")

    def fine(server: Any, root: Path) -> None:
        server.add_tool(lambda: "ok", name="fine_tool", description="answers ok", structured_output=False)

    server, failed = mcp_cmd.build_server(repo, [("broken", broken), ("fine", fine)])
    assert failed == ["broken"]
    assert mcp_cmd.tool_names(server) == ["fine_tool"]


def test_a_root_that_does_not_exist_is_exit_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ctxops_core", "mcp", "--list", "--root", str(tmp_path / "missing")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "fix:" in done.stderr
