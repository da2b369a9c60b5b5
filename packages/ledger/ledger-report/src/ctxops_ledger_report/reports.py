"""Reports over the priced view: periods, sessions, tasks, repositories, models, 5-hour blocks,
attribution by tool and file, memories injected or recalled, and the context guard's savings.

Every report is a :class:`Report`: named columns, rows of plain values, a total row and notes. Costs are
NULL (shown as "unpriced") for models the price book does not know; their tokens are still counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ctxops_token_capture.rollup import TABLE
from ctxops_token_capture.timerange import TimeRange

from .store import View

PERIODS = {
    "day": "strftime(timezone(?, ts), '%Y-%m-%d')",
    "week": "strftime(date_trunc('week', timezone(?, ts)), '%Y-%m-%d')",
    "month": "strftime(timezone(?, ts), '%Y-%m')",
}
# Weeks start on Monday (ISO, DuckDB's ``date_trunc``) unless ``week_start="sunday"`` (ccusage's weeks).
SUNDAY_WEEK = "strftime(date_trunc('week', timezone(?, ts) + INTERVAL 1 DAY) - INTERVAL 1 DAY, '%Y-%m-%d')"
WEEK_STARTS = ("monday", "sunday")
KEYS = {
    **PERIODS,
    "session": "coalesce(session_id, '-')",
    "task": "task",
    "repo": "coalesce(project, '-')",  # the git root, else the working directory
    "cwd": "coalesce(cwd, '-')",
    "model": "model",
    "machine": "coalesce(machine_id, '-')",  # the machine that recorded the call (team ledger: every machine's)
}
KINDS = (*KEYS, "block", "tool", "file", "memory", "savings", "latency")
ALIASES = {"daily": "day", "weekly": "week", "monthly": "month", "blocks": "block", "sessions": "session"}
ALIASES.update(
    {
        "tasks": "task",
        "repos": "repo",
        "repository": "repo",
        "project": "repo",
        "projects": "repo",
        "models": "model",
        "tools": "tool",
        "machines": "machine",
    }
)
ALIASES.update({"files": "file", "memories": "memory", "proxy": "latency", "telemetry": "latency"})

TOKENS = "input_tokens + output_tokens + cache_creation_tokens + cache_read_tokens"
METRICS = f"""
sum(calls)::BIGINT AS calls,
sum(input_tokens)::BIGINT AS input_tokens,
sum(output_tokens)::BIGINT AS output_tokens,
sum(cache_creation_tokens)::BIGINT AS cache_write_tokens,
sum(cache_read_tokens)::BIGINT AS cache_read_tokens,
sum({TOKENS})::BIGINT AS total_tokens,
sum(cost_usd) AS cost_usd,
coalesce(sum({TOKENS}) FILTER (WHERE NOT priced), 0)::BIGINT AS unpriced_tokens,
coalesce(list(DISTINCT model) FILTER (WHERE NOT priced), []) AS unpriced_models,
sum(cache_read_tokens) / nullif(sum(input_tokens + cache_creation_tokens + cache_read_tokens), 0) AS cache_hit_rate
"""
METRIC_COLUMNS = [
    "calls",
    "input_tokens",
    "output_tokens",
    "cache_write_tokens",
    "cache_read_tokens",
    "total_tokens",
    "cost_usd",
    "unpriced_tokens",
    "unpriced_models",
    "cache_hit_rate",
]


def _utc(expr: str) -> str:
    """A timestamp fetched as naive UTC (DuckDB converts TIMESTAMPTZ values to Python several times slower);
    :func:`_fetch` makes them aware again."""
    return f"timezone('UTC', {expr})"


# A session's repository is the first by name if it ran in several; a task's source is the strongest
# ("task" over "session" over "branch"): both the same whichever rows hold the calls.
EXTRA = {
    "session": f"{_utc('min(first_ts)')} AS first, {_utc('max(last_ts)')} AS last, min(project) AS repo_path, "
    "list(DISTINCT model ORDER BY model) AS models",
    "task": "max(task_source) AS source, count(DISTINCT session_id) AS sessions, "
    "count(DISTINCT strftime(timezone(?, ts), '%Y-%m-%d')) AS days, "
    f"{_utc('min(first_ts)')} AS first, {_utc('max(last_ts)')} AS last, "
    "list(DISTINCT repo ORDER BY repo) FILTER (WHERE repo IS NOT NULL) AS repos",
}
SESSION_HOURS = 5


class ReportError(ValueError):
    """A report was asked for in a way that cannot be answered (the message says how to ask)."""


@dataclass
class Filters:
    window: TimeRange = field(default_factory=TimeRange)
    repo: str | None = None
    session: str | None = None
    task: str | None = None
    model: str | None = None

    def sql(self) -> tuple[str, list[Any]]:
        where, params = self.window.sql()
        for column, value in (
            ("project", self.repo),
            ("session_id", self.session),
            ("task", self.task),
            ("model", self.model),
        ):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        return (" WHERE " + " AND ".join(where)) if where else "", params


@dataclass
class Report:
    kind: str
    keys: list[str]
    columns: list[str]
    rows: list[dict[str, Any]]
    total: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "keys": self.keys,
            "columns": self.columns,
            "rows": [_plain(r) for r in self.rows],
            "total": _plain(self.total),
            "notes": self.notes,
            **({"meta": _plain(self.meta)} if self.meta else {}),
        }


def _round(value: float) -> float:
    """``value`` to 10 decimals (hides binary noise in JSON); ``round(value, 10)`` is ~20x slower."""
    return round(value * 1e10) / 1e10 if -1e5 < value < 1e5 else value


def _plain(value: Any) -> Any:
    kind = type(value)
    if kind is str or kind is int or value is None or kind is bool:  # the bulk of a report: checked first
        return value
    if kind is float:
        return _round(value)
    if kind is datetime and value.tzinfo is UTC:
        return value.isoformat()[:-6] + "Z"
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
    if isinstance(value, float):
        return _round(value)
    return value


def canonical(kind: str) -> str:
    name = ALIASES.get(kind, kind)
    if name not in KINDS:
        raise ReportError(f"no report {kind!r}; one of {', '.join(KINDS)} (or daily, weekly, monthly, blocks)")
    return name


def _fetch(con: Any, sql: str, params: list[Any]) -> list[dict[str, Any]]:
    cursor = con.execute(sql, params)
    names = [d[0] for d in cursor.description]
    naive = [i for i, d in enumerate(cursor.description) if str(d[1]) == "TIMESTAMP"]
    rows = []
    for values in cursor.fetchall():
        row = dict(zip(names, values, strict=True))
        for i in naive:
            if values[i] is not None:
                row[names[i]] = values[i].replace(tzinfo=UTC)
        rows.append(row)
    if "unpriced_models" in names:  # sorted here: an ordered aggregate in SQL costs a sort per group
        for row in rows:
            row["unpriced_models"] = sorted(row["unpriced_models"] or [])
    return rows


def _whole_hours(view: View, tz: str) -> bool:
    """Whether ``tz`` was a whole number of hours from UTC at every hour the roll-up holds."""
    if tz == "UTC":
        return True
    if tz not in view.whole_hour_tz:
        row = view.con.execute(
            "SELECT coalesce(bool_and(minute(local) = 0 AND second(local) = 0), true) FROM "
            f"(SELECT timezone(?, to_timestamp(hour * 3600)) AS local FROM (SELECT DISTINCT hour FROM {TABLE}))",
            [tz],
        ).fetchone()
        view.whole_hour_tz[tz] = bool(row[0])
    return view.whole_hour_tz[tz]


def source(view: View, filters: Filters, *, tz: str | None = None) -> str:
    """What a report reads: the hourly roll-up (``costed_rolled``) wherever it answers exactly, else the calls.

    The roll-up cannot split an hour, so the calls are read for: the hours a ``--since``/``--until`` bound or
    a task interval's bound falls inside, models priced with another long-context threshold than it splits
    on, and everything when ``tz`` (for days, weeks, months) is not a whole number of hours from UTC.
    """
    if not view.rollup or (tz is not None and not _whole_hours(view, tz)):
        return "costed_calls"
    hours = set(view.split_hours)
    for bound in (filters.window.since, filters.window.until):
        if bound is not None and bound.timestamp() % 3600:
            hours.add(int(bound.timestamp() // 3600))
    if not hours and not view.raw_models:
        return "costed_rolled"
    con = view.con
    con.execute("CREATE OR REPLACE TEMP TABLE raw_hour (hour BIGINT)")
    con.execute("CREATE OR REPLACE TEMP TABLE raw_model (model VARCHAR)")
    con.execute("INSERT INTO raw_hour SELECT unnest(?::BIGINT[])", [sorted(hours)])
    con.execute("INSERT INTO raw_model SELECT unnest(?::VARCHAR[])", [sorted(view.raw_models)])
    raw = "model IN (SELECT model FROM raw_model)"
    if hours:
        # The timestamp range lets DuckDB skip row groups of calls before testing each call's hour.
        lo, hi = min(hours) * 3600, (max(hours) + 1) * 3600
        raw = f"(ts >= to_timestamp({lo}) AND ts < to_timestamp({hi}) AND hour IN (SELECT hour FROM raw_hour)) OR {raw}"
    raw = f"coalesce({raw}, false)"
    return f"(SELECT * FROM costed_rolled WHERE NOT {raw} UNION ALL SELECT * FROM costed_calls WHERE {raw})"


def _totals(view: View, filters: Filters) -> dict[str, Any]:
    where, params = filters.sql()
    rows = _fetch(view.con, f"SELECT {METRICS} FROM {source(view, filters)}{where}", params)
    return rows[0] if rows and rows[0]["calls"] else {}


def cost_between(view: View, since: datetime, until: datetime) -> float:
    """USD spent from ``since`` up to ``until`` (priced calls only)."""
    filters = Filters(window=TimeRange(since, until))
    where, params = filters.sql()
    row = view.con.execute(f"SELECT coalesce(sum(cost_usd), 0) FROM {source(view, filters)}{where}", params)
    return float(row.fetchone()[0])


def _sum_rows(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The total row from the group rows (every call is in exactly one group): no second scan of the table."""
    if not rows:
        return {}
    total: dict[str, Any] = {}
    for column in (
        "calls",
        "input_tokens",
        "output_tokens",
        "cache_write_tokens",
        "cache_read_tokens",
        "total_tokens",
        "unpriced_tokens",
    ):
        total[column] = sum(int(r.get(column) or 0) for r in rows)
    costs = [r["cost_usd"] for r in rows if r.get("cost_usd") is not None]
    total["cost_usd"] = sum(costs) if costs else None
    total["unpriced_models"] = sorted({m for r in rows for m in (r.get("unpriced_models") or [])})
    prompt = total["input_tokens"] + total["cache_write_tokens"] + total["cache_read_tokens"]
    total["cache_hit_rate"] = total["cache_read_tokens"] / prompt if prompt else None
    return total


def _notes(view: View, total: dict[str, Any]) -> list[str]:
    notes = view.notes()
    if total.get("unpriced_models"):
        notes.append(
            f"unpriced (not in the price table dated {view.book.date}): {', '.join(total['unpriced_models'])} — "
            f'{total["unpriced_tokens"]:,} tokens not in the cost; add [ledger.prices."MODEL"] to your config'
        )
    if view.mode == "ccusage":
        notes.append("--compat ccusage: cache writes at the 5-minute rate, each token kind tiered on its own")
    if total and _has_gemini_transcripts(view):
        notes.append(GEMINI_GAP)
    return notes


# Gemini CLI writes its main model's replies to its chat files, not the calls of its router (utility_router, one
# per prompt on another model) or other side calls; `ctx proxy` records them (issue 25 item 5). Said while the
# ledger holds a chat-file call no proxy copy was folded into (``ctxops_token_capture.ledger.merge_gemini_twins``).
GEMINI_GAP = (
    "Gemini CLI chat files leave out its router and side calls (one per prompt, on another model): their tokens "
    "are not counted; run Gemini CLI through ctx proxy (GOOGLE_GEMINI_BASE_URL) to record them"
)


def _has_gemini_transcripts(view: View) -> bool:
    if view.gemini is None:
        row = view.con.execute(
            "SELECT count(*) FROM (SELECT 1 FROM usage WHERE provider = 'google' AND origin = 'transcript' LIMIT 1)"
        ).fetchone()
        view.gemini = bool(row and row[0])
    return view.gemini


def grouped(
    view: View, kind: str, filters: Filters, *, tz: str = "UTC", breakdown: bool = False, week_start: str = "monday"
) -> Report:
    """Sums per period, session, task, repository or model (and per model within it with ``breakdown``)."""
    if week_start not in WEEK_STARTS:
        raise ReportError(f"--week-start {week_start!r}: one of {', '.join(WEEK_STARTS)}")
    keys = [kind] + (["model"] if breakdown and kind != "model" else [])
    where, params = filters.sql()
    select_params: list[Any] = [tz for k in keys if k in PERIODS]
    extra = EXTRA.get(kind, "")
    if kind == "task":
        select_params.append(tz)
    exprs = {**KEYS, "week": SUNDAY_WEEK} if week_start == "sunday" else KEYS
    select = ", ".join(f"{exprs[k]} AS {k}" for k in keys)
    order = ", ".join(str(i + 1) for i in range(len(keys)))
    if kind in ("session", "task", "repo", "cwd", "model", "machine") and not breakdown:
        # Costs to the micro-dollar: equal costs summed in another order (roll-up or calls) differ in the last
        # bits, and must not swap rows.
        order = f"round(sum(cost_usd), 6) DESC NULLS LAST, total_tokens DESC, {order}"
    src = source(view, filters, tz=tz if kind in PERIODS or kind == "task" else None)
    sql = (
        f"SELECT {select}, {METRICS}{', ' + extra if extra else ''} FROM {src}{where} "
        f"GROUP BY {', '.join(str(i + 1) for i in range(len(keys)))} ORDER BY {order}"
    )
    rows = _fetch(view.con, sql, select_params + params)
    total = _sum_rows(rows)
    columns = keys + (["source", "sessions", "days"] if kind == "task" else []) + METRIC_COLUMNS
    if kind == "session":
        columns = [*keys, "repo_path", "first", "last", *METRIC_COLUMNS]
    return Report(kind=kind, keys=keys, columns=columns, rows=rows, total=total, notes=_notes(view, total))


def blocks(
    view: View, filters: Filters, *, now: datetime | None = None, hours: int = SESSION_HOURS, totals: bool = True
) -> Report:
    """5-hour billing blocks as ``ccusage blocks`` draws them, with the active block's burn rate and projection.

    A block starts at the hour of its first call and lasts ``hours``; a call more than ``hours`` after the
    block's start or after the previous call starts a new one. The walk that finds the blocks is sequential:
    it runs in Python over buckets of calls that always share a block: per UTC hour, the calls exactly on
    the hour apart from the rest (a block's end is on the hour, and a call there is not "more than" it; two
    calls within one hour are never ``hours`` apart). The sums per block are one SQL aggregate over an ASOF
    join of those rows to the block starts. ``totals=False`` leaves the report's total empty (one query less,
    for the status line's snapshot, which reads only the active block).
    """
    now = now or datetime.now(UTC)
    where, params = filters.sql()
    src = source(view, filters)
    buckets = view.con.execute(
        f"SELECT epoch(min(first_ts)), epoch(max(last_ts)) FROM {src}{where} GROUP BY hour, on_hour ORDER BY 1",
        params,
    ).fetchall()
    span_s = hours * 3600.0
    starts: list[tuple[float, float]] = []  # (block start at the hour, first call of the block)
    block_start = last = float("-inf")
    for first_s, last_s in buckets:
        if first_s - block_start > span_s or first_s - last > span_s:
            block_start = first_s - first_s % 3600
            starts.append((block_start, first_s))
        last = max(last, last_s)
    view.con.execute("CREATE OR REPLACE TEMP TABLE block_start (start DOUBLE, first_call DOUBLE)")
    if starts:  # one statement: executemany runs one INSERT per row
        view.con.execute(
            "INSERT INTO block_start SELECT unnest(?::DOUBLE[]), unnest(?::DOUBLE[])",
            [[s for s, _ in starts], [f for _, f in starts]],
        )
    rows = _fetch(
        view.con,
        f"SELECT b.start, {_utc('min(c.first_ts)')} AS first, {_utc('max(c.last_ts)')} AS last, "
        "sum(c.calls)::BIGINT AS calls, "
        "sum(c.input_tokens)::BIGINT AS input_tokens, sum(c.output_tokens)::BIGINT AS output_tokens, "
        "sum(c.cache_creation_tokens)::BIGINT AS cache_write_tokens, "
        "sum(c.cache_read_tokens)::BIGINT AS cache_read_tokens, sum(c.cost_usd) AS cost_usd, "
        "coalesce(sum(c.input_tokens + c.output_tokens + c.cache_creation_tokens + c.cache_read_tokens) "
        "FILTER (WHERE NOT c.priced), 0)::BIGINT AS unpriced_tokens, "
        "list(DISTINCT c.model) AS models "
        f"FROM (SELECT *, epoch(first_ts) AS t FROM {src}{where}) c "
        "ASOF JOIN block_start b ON c.t >= b.first_call GROUP BY b.start ORDER BY b.start",
        params,
    )
    out: list[dict[str, Any]] = []
    span = timedelta(hours=hours)
    for row in rows:
        start = datetime.fromtimestamp(row.pop("start"), UTC)
        out.append({"block": start, "start": start, "end": start + span, **row})
        out[-1]["first"], out[-1]["last"] = row["first"].astimezone(UTC), row["last"].astimezone(UTC)
    active_meta: dict[str, Any] = {}
    for block in out:
        block["models"] = sorted(block["models"])
        block["total_tokens"] = (
            block["input_tokens"] + block["output_tokens"] + block["cache_write_tokens"] + block["cache_read_tokens"]
        )
        prompt = block["input_tokens"] + block["cache_write_tokens"] + block["cache_read_tokens"]
        block["cache_hit_rate"] = block["cache_read_tokens"] / prompt if prompt else None
        block["active"] = now - block["last"] < span and now < block["end"]
        minutes = (block["last"] - block["first"]).total_seconds() / 60
        block["tokens_per_minute"] = block["total_tokens"] / minutes if minutes > 0 else None
        cost = block["cost_usd"] or 0.0
        block["cost_per_hour"] = cost / minutes * 60 if minutes > 0 else None
        if block["active"]:
            remaining = max(0.0, (block["end"] - now).total_seconds() / 60)
            block["remaining_minutes"] = round(remaining, 1)
            if block["tokens_per_minute"] is not None:
                block["projected_tokens"] = int(block["total_tokens"] + block["tokens_per_minute"] * remaining)
                block["projected_cost_usd"] = cost + (block["cost_per_hour"] or 0.0) / 60 * remaining
            active_meta = {
                k: block.get(k)
                for k in (
                    "block",
                    "end",
                    "cost_usd",
                    "cost_per_hour",
                    "tokens_per_minute",
                    "remaining_minutes",
                    "projected_cost_usd",
                    "projected_tokens",
                )
            }
    total = _totals(view, filters) if totals else {}
    columns = [
        "block",
        "end",
        "active",
        "calls",
        "total_tokens",
        "cost_usd",
        "cache_hit_rate",
        "tokens_per_minute",
        "cost_per_hour",
        "projected_cost_usd",
        "models",
    ]
    return Report(
        kind="block",
        keys=["block"],
        columns=columns,
        rows=out,
        total=total,
        notes=_notes(view, total),
        meta={"active": active_meta} if active_meta else {},
    )


def attribution(view: View, filters: Filters, *, by: str) -> Report:
    """Which tools (``by="tool"``) or files (``by="file"``) fed the most tokens into requests.

    From token-capture's per-request attribution: each tool result that fed a request, with its size in
    tokens. A result that carried several files credits each an equal share.
    """
    where, params = filters.sql()
    fed = f"SELECT unnest(attribution) AS a, session_id FROM costed{where}"
    if by == "tool":
        sql = (
            "SELECT a.tool AS tool, count(*) AS results, sum(a.tokens)::BIGINT AS tokens, "
            "sum(a.bytes)::BIGINT AS bytes, "
            f"count(DISTINCT session_id) AS sessions FROM ({fed}) GROUP BY 1 ORDER BY tokens DESC, tool"
        )
        columns = ["tool", "results", "tokens", "bytes", "sessions"]
    else:
        sql = (
            "SELECT file, count(*) AS results, round(sum(share))::BIGINT AS tokens, "
            "list(DISTINCT tool ORDER BY tool) AS tools, count(DISTINCT session_id) AS sessions FROM ("
            "SELECT unnest(a.files) AS file, a.tokens / greatest(len(a.files), 1) AS share, a.tool AS tool, session_id "
            f"FROM ({fed}) WHERE len(a.files) > 0) GROUP BY 1 ORDER BY tokens DESC, file"
        )
        columns = ["file", "results", "tokens", "tools", "sessions"]
    rows = _fetch(view.con, sql, params)
    total = {"results": sum(r["results"] for r in rows), "tokens": sum(r["tokens"] or 0 for r in rows)}
    return Report(kind=by, keys=[by], columns=columns, rows=rows, total=total, notes=view.notes())


CONTEXT_COLUMNS = (
    "{'id': 'VARCHAR', 'ts': 'TIMESTAMPTZ', 'action': 'VARCHAR', 'session_id': 'VARCHAR', 'repo': 'VARCHAR', "
    "'hook': 'VARCHAR', 'memory_ids': 'VARCHAR[]', 'tokens': 'BIGINT', 'tokens_before': 'BIGINT', "
    "'tool_name': 'VARCHAR', 'command': 'VARCHAR'}"
)


def context_files(directory: str) -> list[str]:
    return sorted(str(p) for p in Path(directory).glob("context-*.jsonl"))


def _context_table(view: View, directory: str) -> bool:
    files = context_files(directory)
    if not files:
        return False
    view.con.execute(
        f"CREATE OR REPLACE TEMP TABLE context AS SELECT * FROM read_json(?, format='newline_delimited', "
        f"columns={CONTEXT_COLUMNS}, ignore_errors=true)",
        [files],
    )
    return True


def _context_where(filters: Filters) -> tuple[str, list[Any]]:
    where, params = filters.window.sql()
    if filters.repo is not None:
        where.append("repo = ?")
        params.append(filters.repo)
    if filters.session is not None:
        where.append("session_id = ?")
        params.append(filters.session)
    return (" AND " + " AND ".join(where)) if where else "", params


def memories(view: View, filters: Filters, directory: str) -> Report:
    """Which memories ctxops put into agents' context, how often, by injection or recall (ContextRecord)."""
    columns = ["memory", "injected", "recalled", "sessions", "tokens", "last"]
    if not _context_table(view, directory):
        return Report("memory", ["memory"], columns, [], notes=[f"no context records under {directory}"])
    where, params = _context_where(filters)
    rows = _fetch(
        view.con,
        "SELECT memory, count(*) FILTER (WHERE action = 'inject') AS injected, "
        "count(*) FILTER (WHERE action = 'recall') AS recalled, count(DISTINCT session_id) AS sessions, "
        "round(sum(share))::BIGINT AS tokens, max(ts) AS last FROM ("
        "SELECT unnest(memory_ids) AS memory, action, session_id, ts, tokens / greatest(len(memory_ids), 1) AS share "
        f"FROM context WHERE action IN ('inject', 'recall'){where}) "
        "GROUP BY 1 ORDER BY injected + recalled DESC, memory",
        params,
    )
    total = {
        "injected": sum(r["injected"] for r in rows),
        "recalled": sum(r["recalled"] for r in rows),
        "tokens": sum(r["tokens"] or 0 for r in rows),
    }
    return Report("memory", ["memory"], columns, rows, total=total)


def savings(view: View, filters: Filters, directory: str, *, by: str = "tool", tz: str = "UTC") -> Report:
    """Tokens the context guard kept out of the context (``tokens_before - tokens``), by tool, command or day,
    next to what was really spent (per day: that day's cost and tokens from the ledger)."""
    key = {
        "tool": "coalesce(tool_name, '-')",
        "command": "coalesce(command, '-')",
        "day": "strftime(timezone(?, ts), '%Y-%m-%d')",
    }
    if by not in key:
        raise ReportError(f"savings --by takes tool, command or day; got {by!r}")
    columns = [by, "outputs", "tokens_before", "tokens_after", "tokens_saved", "saved_share"]
    if by == "day":
        columns += ["spent_tokens", "cost_usd"]
    if not _context_table(view, directory):
        return Report("savings", [by], columns, [], notes=[f"no context records under {directory}"])
    where, params = _context_where(filters)
    key_params: list[Any] = [tz] if by == "day" else []
    rows = _fetch(
        view.con,
        f"SELECT {key[by]} AS {by}, count(*) AS outputs, "
        "sum(coalesce(tokens_before, tokens))::BIGINT AS tokens_before, "
        f"sum(tokens)::BIGINT AS tokens_after FROM context WHERE action = 'guard'{where} GROUP BY 1 ORDER BY 1",
        key_params + params,
    )
    for row in rows:
        row["tokens_saved"] = max(0, int(row["tokens_before"]) - int(row["tokens_after"]))
        row["saved_share"] = row["tokens_saved"] / row["tokens_before"] if row["tokens_before"] else None
    if by == "day" and rows:
        spend = grouped(view, "day", filters, tz=tz)
        per_day = {r["day"]: r for r in spend.rows}
        for row in rows:
            day = per_day.get(row["day"], {})
            row["spent_tokens"] = day.get("total_tokens", 0)
            row["cost_usd"] = day.get("cost_usd")
    if by != "day":
        rows.sort(key=lambda r: -r["tokens_saved"])
    saved = sum(r["tokens_saved"] for r in rows)
    before = sum(int(r["tokens_before"]) for r in rows)
    total = {"outputs": sum(r["outputs"] for r in rows), "tokens_before": before, "tokens_saved": saved}
    spent = _totals(view, filters)
    total["spent_tokens"] = spent.get("total_tokens", 0)
    total["cost_usd"] = spent.get("cost_usd")
    return Report("savings", [by], columns, rows, total=total)


# Statuses a client retries (rate limited, overloaded, server errors): such a call is followed by another.
RETRYABLE_SQL = "(status = 429 OR status >= 500)"
LATENCY_COLUMNS = [
    "provider",
    "model",
    "calls",
    "latency_p50_ms",
    "latency_p95_ms",
    "ttft_p50_ms",
    "ttft_p95_ms",
    "errors",
    "retryable",
    "error_rate",
    "cost_usd",
]


def latency(view: View, filters: Filters) -> Report:
    """What the proxy and the SDK wrapper saw of each call, per provider and model: latency and time to first
    token (p50, p95), errors (an error status, a cut stream, an unreachable upstream) and how many of them a
    client retries (429, 5xx). Transcripts hold none of this; their calls are left out."""
    where, params = filters.sql()
    clause = (where + " AND " if where else " WHERE ") + "origin IN ('proxy', 'sdk')"
    errors = "(error IS NOT NULL OR status >= 400)"
    sql = (
        "SELECT provider, model, count(*)::BIGINT AS calls, "
        "quantile_cont(latency_ms, 0.5) AS latency_p50_ms, quantile_cont(latency_ms, 0.95) AS latency_p95_ms, "
        "quantile_cont(ttft_ms, 0.5) AS ttft_p50_ms, quantile_cont(ttft_ms, 0.95) AS ttft_p95_ms, "
        f"count(*) FILTER (WHERE {errors})::BIGINT AS errors, "
        f"count(*) FILTER (WHERE {RETRYABLE_SQL})::BIGINT AS retryable, "
        f"count(*) FILTER (WHERE {errors}) / count(*) AS error_rate, sum(cost_usd) AS cost_usd "
        f"FROM costed{clause} GROUP BY 1, 2 ORDER BY calls DESC, 1, 2"
    )
    rows = _fetch(view.con, sql, params)
    total: dict[str, Any] = {}
    if rows:
        total_sql = (
            "SELECT count(*)::BIGINT AS calls, quantile_cont(latency_ms, 0.5) AS latency_p50_ms, "
            "quantile_cont(latency_ms, 0.95) AS latency_p95_ms, quantile_cont(ttft_ms, 0.5) AS ttft_p50_ms, "
            f"quantile_cont(ttft_ms, 0.95) AS ttft_p95_ms, count(*) FILTER (WHERE {errors})::BIGINT AS errors, "
            f"count(*) FILTER (WHERE {RETRYABLE_SQL})::BIGINT AS retryable, "
            f"count(*) FILTER (WHERE {errors}) / count(*) AS error_rate, sum(cost_usd) AS cost_usd "
            f"FROM costed{clause}"
        )
        total = _fetch(view.con, total_sql, params)[0]
    notes = view.notes()
    if not rows:
        notes.append("no calls through `ctx proxy` or the SDK wrapper in this range (transcripts carry no latency)")
    return Report(
        kind="latency", keys=["provider", "model"], columns=LATENCY_COLUMNS, rows=rows, total=total, notes=notes
    )


def build(
    view: View,
    kind: str,
    filters: Filters,
    *,
    tz: str = "UTC",
    breakdown: bool = False,
    context_dir: str = "",
    now: datetime | None = None,
    savings_by: str = "tool",
    week_start: str = "monday",
) -> Report:
    kind = canonical(kind)
    if kind == "block":
        return blocks(view, filters, now=now)
    if kind in ("tool", "file"):
        return attribution(view, filters, by=kind)
    if kind == "memory":
        return memories(view, filters, context_dir)
    if kind == "savings":
        return savings(view, filters, context_dir, by=savings_by, tz=tz)
    if kind == "latency":
        return latency(view, filters)
    return grouped(view, kind, filters, tz=tz, breakdown=breakdown, week_start=week_start)
