"""Token sums per day, session, model (or several at once): the seed of ledger-report's reports."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxops_contracts.shared.locks import LockBusy

from .ledger import Ledger, LedgerError, memory_ledger
from .paths import data_dir
from .report import IngestReport
from .timerange import TimeRange

log = logging.getLogger(__name__)

GROUPS = {
    "day": "strftime(timezone(?, ts), '%Y-%m-%d')",
    "session": "coalesce(session_id, '-')",
    "model": "model",
    "provider": "provider",
    "origin": "origin",
    "repo": "coalesce(repo, '-')",  # the git root of the call's working directory
    "project": "coalesce(repo, cwd, '-')",  # the git root, else the working directory
    "cwd": "coalesce(cwd, '-')",
    "machine": "coalesce(machine_id, '-')",  # the machine that recorded the call
}
SUMS = (
    "input_tokens",
    "output_tokens",
    "cache_creation_tokens",
    "cache_creation_1h_tokens",
    "cache_read_tokens",
    "reasoning_tokens",
)

# Tokens that add up to what a call moved: 1h cache writes are part of cache_creation, reasoning of output.
BILLED = ("input_tokens", "output_tokens", "cache_creation_tokens", "cache_read_tokens")


@dataclass
class Totals:
    by: list[str]
    tz: str
    rows: list[dict[str, Any]]
    total: dict[str, int]
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"by": self.by, "tz": self.tz, "rows": self.rows, "total": self.total, "note": self.note}


def parse_groups(text: str) -> list[str]:
    groups = [g.strip() for g in text.split(",") if g.strip()]
    unknown = [g for g in groups if g not in GROUPS]
    if not groups or unknown:
        raise ValueError(f"--by takes one or more of {', '.join(GROUPS)} (comma-separated); got {text!r}")
    return groups


def query_totals(
    con: Any, by: list[str], tz: str = "UTC", window: TimeRange | None = None, repo: str | None = None
) -> list[dict[str, Any]]:
    keys = [GROUPS[g] for g in by]
    params: list[Any] = [tz for g in by if g == "day"]
    where, window_params = (window or TimeRange()).sql()
    params += window_params
    if repo is not None:
        where.append("repo = ?")
        params.append(repo)
    select = ", ".join(f"{expr} AS {name}" for expr, name in zip(keys, by, strict=True))
    sums = ", ".join(f"coalesce(sum({c}), 0)::BIGINT AS {c}" for c in SUMS)
    sql = (
        f"SELECT {select}, count(*) AS calls, {sums}, "
        "count(*) FILTER (WHERE source = 'estimated') AS estimated_calls FROM usage "
        + (f"WHERE {' AND '.join(where)} " if where else "")
        + f"GROUP BY {', '.join(str(i + 1) for i in range(len(by)))} "
        + f"ORDER BY {', '.join(str(i + 1) for i in range(len(by)))}"
    )
    cursor = con.execute(sql, params)
    names = [d[0] for d in cursor.description]
    rows = []
    for values in cursor.fetchall():
        row = dict(zip(names, values, strict=True))
        row["total_tokens"] = sum(int(row[c]) for c in BILLED)
        rows.append(row)
    return rows


def totals(
    by: list[str],
    *,
    tz: str = "UTC",
    root: Path | None = None,
    window: TimeRange | None = None,
    repo: str | None = None,
    lock_timeout: float = 10.0,
) -> Totals:
    """Load pending JSONL into the ledger, then sum; if the ledger is busy, sum the JSONL in memory."""
    root = root or data_dir()
    report = IngestReport()
    ledger = Ledger(root, lock_timeout=lock_timeout)
    note = ""
    try:
        with ledger.writer() as con:
            ledger.load_into(con, report)
            rows = query_totals(con, by, tz, window, repo)
    except (LockBusy, LedgerError) as exc:  # busy: answer from the truth rather than block
        note = f"ledger busy ({exc}); totals computed from JSONL in memory"
        log.warning("%s", note)
        con = memory_ledger(root, report)
        try:
            rows = query_totals(con, by, tz, window, repo)
        finally:
            con.close()
    total = {c: sum(int(r[c]) for r in rows) for c in (*SUMS, "calls", "total_tokens")}
    return Totals(by=by, tz=tz, rows=rows, total=total, note=note)


def format_table(result: Totals) -> str:
    headers = [*result.by, "calls", "input", "output", "cache_write", "cache_read", "total"]
    lines = []
    body = [
        [
            *(str(r[g]) for g in result.by),
            f"{r['calls']:,}",
            f"{r['input_tokens']:,}",
            f"{r['output_tokens']:,}",
            f"{r['cache_creation_tokens']:,}",
            f"{r['cache_read_tokens']:,}",
            f"{r['total_tokens']:,}",
        ]
        for r in result.rows
    ]
    t = result.total
    footer = [
        "total",
        *([""] * (len(result.by) - 1)),
        f"{t['calls']:,}",
        f"{t['input_tokens']:,}",
        f"{t['output_tokens']:,}",
        f"{t['cache_creation_tokens']:,}",
        f"{t['cache_read_tokens']:,}",
        f"{t['total_tokens']:,}",
    ]
    widths = [max(len(row[i]) for row in [headers, *body, footer]) for i in range(len(headers))]

    def fmt(row: list[str]) -> str:
        cells = [
            cell.ljust(w) if i < len(result.by) else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ]
        return "  ".join(cells).rstrip()

    lines.append(fmt(headers))
    lines.extend(fmt(row) for row in body)
    lines.append(fmt(footer))
    return "\n".join(lines)
