"""The ledger's MCP tools for ``ctx mcp`` (entry point ``ctxops.mcp_tools``): totals, reports, checks.

Imported only by the MCP path. Each tool answers compact JSON; by default about the repository the
server was started for (``all_repos=true`` for every repository in the ledger).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ctxops_contracts.shared.cli import CliError, dumps
from ctxops_token_capture.timerange import TimeRange

DESCRIPTIONS = {
    "ledger_totals": "Token usage and cost of this repository (or all with all_repos=true) for a time range: calls, "
    "input/output/cache tokens, USD, cache hit rate. since/until: RFC 3339, a date, or an age like 7d.",
    "ledger_report": "A ledger report: kind is day|week|month|session|task|repo|model|block|tool|file|memory|savings. "
    "Rows with tokens, cost (null = unpriced model) and cache hit rate; block gives burn rate and projection.",
    "ledger_check": "Budgets and alerts: which budget (day, session, task, repository) is exceeded and what burned "
    "it, and whether the cache hit rate of recent sessions dropped below its baseline. ok=true when none.",
}


def register_tools(server: Any, root: Path) -> None:
    """Add ``ledger_totals``, ``ledger_report`` and ``ledger_check`` to ``server`` (an ``MCPServer``)."""
    from mcp.server.mcpserver.exceptions import ToolError

    from .check import run_checks
    from .config import config_files, load_config
    from .prices import PriceBook
    from .reports import Filters, ReportError, build
    from .store import open_view

    repo = str(root)

    def setup(since: str | None, until: str | None, tz: str, all_repos: bool) -> tuple[Filters, Any, Any]:
        try:
            window = TimeRange.parse(since, until, tz=tz)
            files = config_files(repo)
            return Filters(window=window, repo=None if all_repos else repo), PriceBook.load(files), load_config(files)
        except CliError as exc:
            raise ToolError(f"{exc.message} ({exc.fix})") from exc
        except ValueError as exc:
            raise ToolError(str(exc)) from exc

    def ledger_totals(
        since: str | None = None, until: str | None = None, tz: str = "UTC", all_repos: bool = False
    ) -> str:
        filters, book, _ = setup(since, until, tz, all_repos)
        with open_view(book=book) as view:
            report = build(view, "model", filters, tz=tz)
        return dumps({"total": report.as_dict()["total"], "by_model": report.as_dict()["rows"], "notes": report.notes})

    def ledger_report(  # noqa: PLR0917 - an MCP tool's parameters are its schema
        kind: str = "day",
        since: str | None = None,
        until: str | None = None,
        tz: str = "UTC",
        breakdown: bool = False,
        all_repos: bool = False,
        max_rows: int = 50,
    ) -> str:
        filters, book, _ = setup(since, until, tz, all_repos)
        try:
            with open_view(book=book) as view:
                report = build(view, kind, filters, tz=tz, breakdown=breakdown)
        except ReportError as exc:
            raise ToolError(str(exc)) from exc
        data = report.as_dict()
        omitted = max(0, len(data["rows"]) - max_rows)
        data["rows"] = data["rows"][:max_rows]
        data["omitted"] = omitted
        return dumps(data)

    def ledger_check(tz: str = "UTC", all_repos: bool = False) -> str:
        _, book, config = setup(None, None, tz, all_repos)
        with open_view(book=book) as view:
            findings = run_checks(view, config, tz=tz, repo=None if all_repos else repo)
        return dumps({"ok": not findings, "budgets": config.budgets, "findings": [f.as_dict() for f in findings]})

    for name, fn in (
        ("ledger_totals", ledger_totals),
        ("ledger_report", ledger_report),
        ("ledger_check", ledger_check),
    ):
        server.add_tool(fn, name=name, description=DESCRIPTIONS[name], structured_output=False)
