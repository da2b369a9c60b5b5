"""A read view of the ledger: token-capture's DuckDB table, priced and attributed to tasks.

Opening loads whatever JSONL is pending (under the writer lock, as token-capture does); when another
process holds the ledger, the answer is computed from the JSONL truth in memory instead of waiting. On
top of ``usage`` it creates, in the session's temp schema:

- ``model_price``: the price of each model present (looked up once per distinct model, never guessed);
- ``task_interval``: ``ctx task start/stop`` intervals (``ctxops_contracts.shared.tasks``);
- ``costed``: every call with ``cost_usd`` (NULL when its model is unpriced), ``priced``, ``task`` and
  ``task_source`` (``task`` = named with ``ctx task``, ``branch`` = the git branch, ``session`` = neither);
- ``costed_calls``: the same calls in the roll-up's shape (``calls`` = 1, ``first_ts`` = ``last_ts`` = ``ts``);
- ``costed_rolled``: token-capture's hourly roll-up (``usage_hourly``) priced and attributed the same way,
  its ``ts`` the hour's start. Reports read it where it answers exactly (see ``reports.source``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxops_contracts.shared import tasks
from ctxops_contracts.shared.locks import LockBusy
from ctxops_token_capture import rollup
from ctxops_token_capture.ledger import Ledger, LedgerError, memory_ledger
from ctxops_token_capture.paths import data_dir as default_data_dir
from ctxops_token_capture.report import IngestReport
from ctxops_token_capture.rollup import HOUR_SQL, KEYS, LONG_PROMPT, TABLE

from .prices import PriceBook

log = logging.getLogger(__name__)

RATES = (
    "input",
    "output",
    "cache_write",
    "cache_write_1h",
    "cache_read",
    "input_long",
    "output_long",
    "cache_write_long",
    "cache_read_long",
)


# Set to 0 to answer every report from the calls themselves (to compare with the roll-up, or to rule it out).
ROLLUP_ENV = "CTXOPS_LEDGER_ROLLUP"
# The columns both sources of a report have (``costed_calls`` and ``costed_rolled``).
SOURCE_COLUMNS = (
    "hour",
    "on_hour",
    "ts",
    "session_id",
    "model",
    "repo",
    "cwd",
    "project",
    "git_branch",
    "task",
    "task_source",
    "priced",
    "calls",
    "input_tokens",
    "output_tokens",
    "cache_creation_tokens",
    "cache_read_tokens",
    "cost_usd",
    "first_ts",
    "last_ts",
    "machine_id",
)


def _rolled_cost_sql(mode: str) -> str:
    """The cost of a roll-up row: the per-call rule of :func:`_cost_sql`, summed.

    Every per-call rule is linear once the call's long-context class is known (``long_prompt``, a key of
    the roll-up) and, for ccusage's tiers, each kind's tokens above 200k (the ``*_over`` sums).
    """
    if mode == "ccusage":

        def tier(tokens: str, over: str, base: str, above: str) -> str:
            return (
                f"(CASE WHEN p.{above} IS NOT NULL THEN (u.{tokens} - u.{over}) * p.{base} + u.{over} * p.{above} "
                f"ELSE u.{tokens} * p.{base} END)"
            )

        return " + ".join(
            (
                tier("input_tokens", "input_over", "input", "input_long"),
                tier("output_tokens", "output_over", "output", "output_long"),
                tier("cache_creation_tokens", "cache_write_over", "cache_write", "cache_write_long"),
                tier("cache_read_tokens", "cache_read_over", "cache_read", "cache_read_long"),
            )
        )
    return _cost_sql(mode, long="(p.input_long IS NOT NULL AND u.long_prompt)", c1="u.cache_write_1h_tokens")


def _cost_sql(mode: str, *, long: str | None = None, c1: str | None = None) -> str:
    i, o, cw, cr = ("u.input_tokens", "u.output_tokens", "u.cache_creation_tokens", "u.cache_read_tokens")
    c1 = c1 or "least(coalesce(u.cache_creation_1h_tokens, 0), u.cache_creation_tokens)"
    if mode == "ccusage":

        def tier(tokens: str, base: str, above: str) -> str:
            return (
                f"(CASE WHEN {tokens} > 200000 AND p.{above} IS NOT NULL "
                f"THEN 200000 * p.{base} + ({tokens} - 200000) * p.{above} ELSE {tokens} * p.{base} END)"
            )

        return " + ".join(
            (
                tier(i, "input", "input_long"),
                tier(o, "output", "output_long"),
                tier(cw, "cache_write", "cache_write_long"),
                tier(cr, "cache_read", "cache_read_long"),
            )
        )
    long = long or f"(p.input_long IS NOT NULL AND {i} + {cw} + {cr} > p.long_context_threshold)"

    def rate(base: str, above: str) -> str:
        return f"(CASE WHEN {long} AND p.{above} IS NOT NULL THEN p.{above} ELSE p.{base} END)"

    scale = f"(CASE WHEN {long} AND p.input > 0 THEN p.input_long / p.input ELSE 1 END)"
    geo = "(CASE WHEN u.inference_geo = 'us' THEN p.us_multiplier ELSE 1 END)"
    return (
        f"({i} * {rate('input', 'input_long')} + {o} * {rate('output', 'output_long')} "
        f"+ ({cw} - {c1}) * {rate('cache_write', 'cache_write_long')} "
        f"+ {c1} * coalesce(p.cache_write_1h, p.cache_write) * {scale} "
        f"+ {cr} * {rate('cache_read', 'cache_read_long')}) * {geo} "
        "+ coalesce(u.web_search_requests, 0) * p.web_search_request"
    )


# A call's project: the git repository holding its working directory when there is one, else the directory.
PROJECT_SQL = "coalesce(u.repo, u.cwd)"

TASK_SQL = """
CASE
  WHEN u.task_id IS NOT NULL AND u.task_id <> '' THEN u.task_id
  WHEN t.name IS NOT NULL THEN t.name
  WHEN u.git_branch IS NOT NULL AND u.git_branch NOT IN ('', 'HEAD') THEN u.git_branch
  ELSE 'session ' || coalesce(left(u.session_id, 8), '-')
END"""
TASK_SOURCE_SQL = """
CASE
  WHEN (u.task_id IS NOT NULL AND u.task_id <> '') OR t.name IS NOT NULL THEN 'task'
  WHEN u.git_branch IS NOT NULL AND u.git_branch NOT IN ('', 'HEAD') THEN 'branch'
  ELSE 'session'
END"""


@dataclass
class View:
    """An open, priced view of the ledger (``con`` has ``costed``)."""

    con: Any
    book: PriceBook
    mode: str
    note: str = ""
    rollup: bool = False  # ``costed_rolled`` exists and may be read
    # Hours a ``ctx task`` interval starts or ends inside: the roll-up cannot split them, the calls can.
    split_hours: frozenset[int] = frozenset()
    # Models the roll-up cannot price (a long-context threshold other than the one it splits on).
    raw_models: frozenset[str] = frozenset()
    whole_hour_tz: dict[str, bool] = field(default_factory=dict)
    gemini: bool | None = None  # whether the ledger holds Gemini CLI transcript calls (asked once)
    skipped: list[str] = field(default_factory=list)  # team ledger: one note per part that could not be read

    def notes(self) -> list[str]:
        """What every report over this view says first: where it was answered from, parts skipped."""
        return ([self.note] if self.note else []) + self.skipped


def _prepare(con: Any, book: PriceBook, mode: str, tasks_dir: str | None) -> View:
    rollup = os.environ.get(ROLLUP_ENV, "1") != "0" and _has_rollup(con)
    # The roll-up has every model of the calls in a few percent of the rows.
    models = [row[0] for row in con.execute(f"SELECT DISTINCT model FROM {TABLE if rollup else 'usage'}").fetchall()]
    con.execute(
        "CREATE OR REPLACE TEMP TABLE model_price (model VARCHAR, "
        + ", ".join(f"{r} DOUBLE" for r in RATES)
        + ", long_context_threshold BIGINT, web_search_request DOUBLE, us_multiplier DOUBLE)"
    )
    rows = []
    raw_models = set()
    for model in models:
        price = book.lookup(model)
        if price is not None:
            rates = [getattr(price, r) for r in RATES]
            if mode == "exact" and not price.long_context_applies():
                rates = [None if r.endswith("_long") else v for r, v in zip(RATES, rates, strict=True)]
            extra = [price.web_search_request, price.geo_multiplier("us")]
            rows.append([model, *rates, price.long_context_threshold, *extra])
            if rates[RATES.index("input_long")] is not None and price.long_context_threshold != LONG_PROMPT:
                raw_models.add(model)
    if rows:
        con.executemany(f"INSERT INTO model_price VALUES ({', '.join('?' * (len(RATES) + 4))})", rows)
    con.execute(
        "CREATE OR REPLACE TEMP TABLE task_interval (repo VARCHAR, name VARCHAR, t0 TIMESTAMPTZ, t1 TIMESTAMPTZ)"
    )
    found = tasks.intervals(data_dir=tasks_dir)
    if found:
        con.executemany(
            "INSERT INTO task_interval VALUES (?, ?, ?, ?)", [[i.repo, i.name, i.start, i.end] for i in found]
        )
    con.execute(
        f"""
CREATE OR REPLACE TEMP VIEW costed AS
SELECT u.*,
  p.model IS NOT NULL AS priced,
  CASE WHEN p.model IS NULL THEN NULL ELSE {_cost_sql(mode)} END AS cost_usd,
  {TASK_SQL} AS task,
  {TASK_SOURCE_SQL} AS task_source,
  {PROJECT_SQL} AS project
FROM usage u
LEFT JOIN model_price p ON p.model = u.model
LEFT JOIN task_interval t ON t.repo = u.repo AND u.ts >= t.t0 AND (t.t1 IS NULL OR u.ts < t.t1)
"""
    )
    calls = {
        "hour": HOUR_SQL,
        "on_hour": KEYS["on_hour"],
        "calls": "1::BIGINT",
        "first_ts": "ts",
        "last_ts": "ts",
    }
    con.execute(
        "CREATE OR REPLACE TEMP VIEW costed_calls AS SELECT "
        + ", ".join(f"{calls[c]} AS {c}" if c in calls else c for c in SOURCE_COLUMNS)
        + " FROM costed"
    )
    view = View(con, book, mode, raw_models=frozenset(raw_models))
    if not rollup:
        return view
    hour_start = "to_timestamp(u.hour * 3600)"
    rolled = {
        "ts": hour_start,
        "priced": "p.model IS NOT NULL",
        "cost_usd": f"CASE WHEN p.model IS NULL THEN NULL ELSE {_rolled_cost_sql(mode)} END",
        "task": TASK_SQL,
        "task_source": TASK_SOURCE_SQL,
        "project": PROJECT_SQL,
    }
    con.execute(
        "CREATE OR REPLACE TEMP VIEW costed_rolled AS SELECT "
        + ", ".join(f"{rolled[c]} AS {c}" if c in rolled else f"u.{c}" for c in SOURCE_COLUMNS)
        + f" FROM {TABLE} u LEFT JOIN model_price p ON p.model = u.model "
        f"LEFT JOIN task_interval t ON t.repo = u.repo AND {hour_start} >= t.t0 "
        f"AND (t.t1 IS NULL OR {hour_start} < t.t1)"
    )
    view.rollup = True
    view.split_hours = frozenset(
        int(edge.timestamp()) // 3600
        for i in found
        for edge in (i.start, i.end)
        if edge is not None and edge.timestamp() % 3600
    )
    return view


def _has_rollup(con: Any) -> bool:
    row = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE table_name = ? AND schema_name = 'main'", [TABLE]
    ).fetchone()
    return bool(row and row[0])


@contextmanager
def open_view(
    root: Path | None = None,
    *,
    book: PriceBook | None = None,
    mode: str = "exact",
    lock_timeout: float = 10.0,
) -> Iterator[View]:
    """The ledger at ``root`` (default: the user data dir), loaded and priced, for the ``with`` block."""
    root = root or default_data_dir()
    book = book or PriceBook.bundled()
    tasks_dir = str(root)
    report = IngestReport()
    ledger = Ledger(root, lock_timeout=lock_timeout)
    with ExitStack() as stack:
        try:
            con = stack.enter_context(ledger.writer())
            if not (ledger.up_to_date() and rollup.is_current(con)):  # else nothing to load or roll up
                ledger.load_into(con, report)
            note = ""
        except (LockBusy, LedgerError) as exc:  # busy: answer from the truth rather than block
            note = f"ledger busy ({exc}); answered from the JSONL records in memory"
            log.warning("%s", note)
            con = memory_ledger(root, report)
            stack.callback(con.close)
        view = _prepare(con, book, mode, tasks_dir)
        view.note = note
        yield view
