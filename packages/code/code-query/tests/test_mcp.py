"""The MCP server, driven by the SDK's own client over stdio (a real `cq mcp` subprocess)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

EXPECTED_TOOLS = {
    "code_def",
    "code_refs",
    "code_callers",
    "code_callees",
    "code_brief",
    "code_deps",
    "code_impact",
    "code_map",
    "code_grep",
    "code_open",
    "code_search",
    "code_status",
}


def _text(result: object) -> str:
    content = getattr(result, "content", [])
    return "\n".join(getattr(c, "text", "") for c in content)


async def _session(root: Path, calls: list[tuple[str, dict[str, object]]]) -> tuple[list[object], list[object]]:
    # The SDK passes only a safe subset of the environment; keep PYTHONPATH for source-tree runs.
    env = {"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else None
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "ctxops_code_query", "mcp", "--root", str(root)], env=env
    )
    async with Client(params, read_timeout_seconds=60) as client:
        tools = (await client.list_tools()).tools
        results = [await client.call_tool(name, args) for name, args in calls]
    return tools, results


@pytest.mark.slow
def test_mcp_tools_answer_like_cq(example_repo: Path) -> None:
    calls: list[tuple[str, dict[str, object]]] = [
        ("code_def", {"name": "OrderStateMachine.transition"}),
        ("code_callers", {"name": "transition", "max": 3}),
        ("code_brief", {"path": "api/orders/state_machine.py"}),
        ("code_grep", {"pattern": "def transition", "glob": "*.py"}),
        ("code_open", {"target": "api/orders/state_machine.py:1-3"}),
        ("code_open", {"target": "../etc/passwd"}),
        ("code_def", {"name": "NoSuchThingAnywhere"}),
        ("code_search", {"text": "expire unpaid orders after the payment timeout"}),
        ("code_status", {}),
        ("code_impact", {"name": "transition", "budget": 120}),
    ]
    tools, results = anyio.run(_session, example_repo, calls)
    by_name = {t.name: t for t in tools}  # type: ignore[attr-defined]
    assert set(by_name) == EXPECTED_TOOLS
    for tool in tools:
        desc = tool.description or ""  # type: ignore[attr-defined]
        assert len(desc) < 400, tool
        assert any(w in desc.lower() for w in ("max", "narrow", "small")), desc
    assert "name" in by_name["code_def"].input_schema["properties"]  # type: ignore[attr-defined]

    texts = [_text(r) for r in results]
    errors = [getattr(r, "is_error", getattr(r, "isError", False)) for r in results]
    assert texts[0].startswith("api/orders/state_machine.py:") and "transition" in texts[0]
    assert "-- index " in texts[0]
    assert "... and" in texts[1] and "capped at --max 3" in texts[1]
    assert texts[2].startswith("api/orders/state_machine.py:") and "class OrderState" in texts[2]
    assert "api/orders/state_machine.py" in texts[3]
    assert "      1  " in texts[4]
    assert errors[5] and "refused" in texts[5]
    assert texts[6].startswith("no matches for def NoSuchThingAnywhere") and not errors[6]
    assert "api/jobs/timeout_close.py" in texts[7]
    assert "files" in texts[8] and "symbols" in texts[8]
    assert "truncated at the ~120-token budget" in texts[9]


def test_the_entry_point_registers_every_tool_on_a_shared_server(example_repo: Path) -> None:
    """`ctx mcp` builds one server from the `ctxops.mcp_tools` group: cq's registrar adds its tools."""
    from importlib.metadata import entry_points

    from mcp.server.mcpserver import MCPServer

    (registrar,) = [ep for ep in entry_points(group="ctxops.mcp_tools") if ep.name == "code"]
    server = MCPServer(name="shared")
    registrar.load()(server, example_repo)
    tools = anyio.run(server.list_tools)
    assert {t.name for t in tools} >= EXPECTED_TOOLS
