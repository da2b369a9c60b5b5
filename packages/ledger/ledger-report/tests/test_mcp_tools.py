"""The ledger's MCP tools on a real MCPServer, called through the SDK's client (in memory)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from importlib.metadata import entry_points
from pathlib import Path

import anyio
import pytest
from ledger_records import T0, record, write

mcp = pytest.importorskip("mcp")


def _text(result: object) -> str:
    return "\n".join(getattr(c, "text", "") for c in getattr(result, "content", []))


async def _calls(root: Path, calls: list[tuple[str, dict[str, object]]]) -> tuple[set[str], list[object]]:
    from mcp import Client
    from mcp.server.mcpserver import MCPServer

    (ep,) = [e for e in entry_points(group="ctxops.mcp_tools") if e.name == "ledger"]
    server = MCPServer(name="ctxops-test")
    ep.load()(server, root)
    async with Client(server) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        results = [await client.call_tool(name, args) for name, args in calls]
    return names, results


def test_ledger_tools_answer_for_the_servers_repository(data_dir: Path, tmp_path: Path) -> None:
    repo = tmp_path / "shop"
    repo.mkdir()
    (repo / ".git").mkdir()
    write(
        data_dir,
        [
            record(T0, repo=str(repo.resolve()), session_id="a"),
            record(T0 + timedelta(days=1), repo=str(repo.resolve()), session_id="b", model="claude-opus-4-8"),
            record(T0, repo="/elsewhere", session_id="c"),
            record(datetime.now(UTC) - timedelta(minutes=5), repo=str(repo.resolve()), session_id="live"),
            record(datetime.now(UTC) - timedelta(minutes=5), repo="/elsewhere", session_id="other-live"),
        ],
    )
    (tmp_path / "user-config.toml").write_text("[ledger.budgets]\nsession = 0.0001\n")
    calls: list[tuple[str, dict[str, object]]] = [
        ("ledger_totals", {}),
        ("ledger_totals", {"all_repos": True}),
        ("ledger_report", {"kind": "day", "since": "2026-11-29", "until": "2026-11-29"}),
        ("ledger_report", {"kind": "fortnight"}),
        ("ledger_check", {}),
        ("ledger_totals", {"since": "notadate"}),
    ]
    names, results = anyio.run(_calls, repo.resolve(), calls)
    assert names == {"ledger_totals", "ledger_report", "ledger_check"}
    mine, everything, day, bad_kind, check, bad_time = results
    assert json.loads(_text(mine))["total"]["calls"] == 3
    assert json.loads(_text(everything))["total"]["calls"] == 5
    rows = json.loads(_text(day))["rows"]
    assert [(r["day"], r["calls"]) for r in rows] == [("2026-11-29", 1)] and rows[0]["cost_usd"] > 0
    assert getattr(bad_kind, "is_error", False) and "no report 'fortnight'" in _text(bad_kind)
    findings = json.loads(_text(check))["findings"]
    # Only this repository's live session is over the (tiny) session budget; the other repository's is not asked.
    assert [f["name"] for f in findings if f["kind"] == "session"] == ["live"]
    assert getattr(bad_time, "is_error", False) and "RFC 3339" in _text(bad_time)
