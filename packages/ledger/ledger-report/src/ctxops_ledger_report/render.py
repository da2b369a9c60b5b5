"""Reports as rich terminal tables or CSV (``--json`` is ``Report.as_dict``)."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from typing import Any

from .reports import Report

HEADERS = {
    "input_tokens": "input",
    "output_tokens": "output",
    "cache_write_tokens": "cache write",
    "cache_read_tokens": "cache read",
    "total_tokens": "total tokens",
    "cost_usd": "cost",
    "unpriced_tokens": "unpriced tokens",
    "unpriced_models": "unpriced models",
    "cache_hit_rate": "cache hit",
    "repo_path": "repository",
    "tokens_per_minute": "tokens/min",
    "cost_per_hour": "$/hour",
    "projected_cost_usd": "projected",
    "tokens_before": "before",
    "tokens_after": "after",
    "tokens_saved": "saved",
    "saved_share": "saved %",
    "spent_tokens": "spent tokens",
    "latency_p50_ms": "latency p50 ms",
    "latency_p95_ms": "p95 ms",
    "ttft_p50_ms": "first token p50 ms",
    "ttft_p95_ms": "p95 ms",
    "error_rate": "errors %",
}
HIDE_WHEN_EMPTY = ("unpriced_tokens", "unpriced_models")


def cell(column: str, value: Any) -> str:
    """One value as people read it: thousands separators, dollars to the cent, rates in percent."""
    if value is None:
        return "unpriced" if column == "cost_usd" else "-"
    if isinstance(value, bool):
        return "active" if value and column == "active" else ("" if column == "active" else str(value))
    if column in ("cost_usd", "projected_cost_usd", "cost_per_hour"):
        return f"${value:,.2f}" if value >= 0.01 or value == 0 else f"${value:.4f}"
    if column in ("cache_hit_rate", "saved_share", "error_rate"):
        return f"{value * 100:.1f}%"
    if isinstance(value, float):
        return f"{value:,.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, datetime):
        return value.astimezone(UTC).strftime("%Y-%m-%d %H:%MZ")
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return str(value)


def _visible(report: Report) -> list[str]:
    rows = [*report.rows, report.total]
    return [
        c for c in report.columns if c not in HIDE_WHEN_EMPTY or any(r.get(c) not in (None, 0, [], "") for r in rows)
    ]


def table(report: Report, *, width: int | None = None) -> str:
    """A rich table, rendered to text (colour only when the caller's console has it)."""
    from rich.console import Console
    from rich.table import Table

    columns = _visible(report)
    grid = Table(show_footer=bool(report.total), box=None, pad_edge=False, header_style="bold")
    for column in columns:
        numeric = column not in (
            *report.keys,
            "models",
            "tools",
            "unpriced_models",
            "repo_path",
            "source",
            "first",
            "last",
            "end",
            "provider",
        )
        footer = (
            "total"
            if column == columns[0]
            else cell(column, report.total.get(column))
            if column in report.total
            else ""
        )
        grid.add_column(HEADERS.get(column, column), justify="right" if numeric else "left", footer=footer)
    for row in report.rows:
        grid.add_row(*(cell(c, row.get(c)) for c in columns))
    buffer = io.StringIO()
    console = Console(file=buffer, width=width or 200, force_terminal=False, color_system=None)
    console.print(grid)
    for note in report.notes:
        console.print(f"note: {note}", markup=False, highlight=False)
    if report.meta.get("active"):
        active = report.meta["active"]
        console.print(
            f"active block until {cell('end', active.get('end'))}: {cell('cost_usd', active.get('cost_usd'))} so far, "
            f"{cell('cost_per_hour', active.get('cost_per_hour'))}/hour, projected "
            f"{cell('projected_cost_usd', active.get('projected_cost_usd'))}",
            markup=False,
            highlight=False,
        )
    return buffer.getvalue().rstrip("\n")


def to_csv(report: Report) -> str:
    """One header line, one line per row; lists joined with ';', times in RFC 3339 UTC, costs unrounded."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(report.columns)
    for row in report.rows:
        values = []
        for column in report.columns:
            value = row.get(column)
            if isinstance(value, list | tuple):
                value = ";".join(str(v) for v in value)
            elif isinstance(value, datetime):
                value = value.astimezone(UTC).isoformat().replace("+00:00", "Z")
            elif value is None:
                value = ""
            values.append(value)
        writer.writerow(values)
    return out.getvalue()
