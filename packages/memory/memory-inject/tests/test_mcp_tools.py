"""The MCP tools on a real MCPServer, called through the SDK's client (in-memory transport)."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp")
from mcp import Client
from mcp.server.mcpserver import MCPServer


def _text(result: object) -> str:
    return "\n".join(getattr(c, "text", "") for c in getattr(result, "content", []))


def test_remember_recall_inject_forget(repo: Path, data_dir: Path) -> None:
    from ctxops_memory_inject.mcp_tools import register_tools

    server = MCPServer(name="ctxops-test")
    register_tools(server, repo)

    async def session() -> tuple[set[str], list[str]]:
        async with Client(server) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            out = []
            remembered = await client.call_tool(
                "remember",
                {"title": "Refunds must be idempotent", "body": "Pass the refund id as the key.", "kind": "lesson"},
            )
            out.append(_text(remembered))
            short = out[0].split()[1]
            out.append(_text(await client.call_tool("recall", {"ids": [short]})))
            out.append(_text(await client.call_tool("recall", {"query": "refund twice"})))
            out.append(_text(await client.call_tool("inject", {"task": "a refund was paid twice", "budget": 200})))
            out.append(_text(await client.call_tool("forget", {"id": short, "reason": "covered by the payment SDK"})))
            out.append(_text(await client.call_tool("recall", {"query": "refund twice"})))
        return names, out

    names, out = anyio.run(session)
    assert {"remember", "recall", "forget", "inject"} <= names
    added, by_id, by_query, injected, forgotten, after = out
    assert added.startswith("added: ") and "Refunds must be idempotent" in added
    assert "Pass the refund id as the key." in by_id
    assert "Refunds must be idempotent" in by_query and "Refunds must be idempotent" in injected
    assert forgotten.startswith("archived ") and "no memories match" in after
    records = [json.loads(line) for f in (data_dir / "context").glob("*.jsonl") for line in f.read_text().splitlines()]
    assert {r["action"] for r in records} == {"recall", "inject"} and all(r["tokens"] > 0 for r in records)
