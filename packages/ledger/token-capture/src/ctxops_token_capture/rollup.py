"""``usage_hourly``: the ledger's calls summed per UTC hour and per everything a report groups or prices by.

Reports over a million calls read this table (a few percent of the rows) instead of ``usage``. It holds
only counts, never prices: the report prices each row with the price book of the moment. Every row is one
UTC hour (``hour``, epoch hours) of one (session, model, repository, working directory, named task, git
branch, inference geography, machine id), split further by what a price or a 5-hour block depends on within
a call:

- ``long_prompt``: input + cache writes + cache reads above 200k (the long-context rate applies to the call);
- ``*_over``: the tokens of each kind above 200k (ccusage's rule tiers each kind on its own);
- ``on_hour``: the call's timestamp is exactly on the hour (a 5-hour block boundary is on the hour, and a
  call there stays in the block before it; see ledger-report's ``blocks``).

It is kept in the same transaction as every load (:func:`update` over the hours a batch touched), and
rebuilt whole when it is missing, of an older definition, or does not sum to ``usage`` (:func:`ensure`).
"""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger(__name__)

TABLE = "usage_hourly"
# Bump when the table's definition changes: older ledgers then rebuild it on their next load.
VERSION = 3  # 2: the working directory is a key (the project of a call outside git); 3: the machine id
LONG_PROMPT = 200_000
HOUR_US = 3_600_000_000

HOUR_SQL = f"(epoch_us(ts) // {HOUR_US})"
KEYS = {
    "hour": f"{HOUR_SQL}",
    "on_hour": f"(epoch_us(ts) % {HOUR_US} = 0)",
    "long_prompt": f"(input_tokens + cache_creation_tokens + cache_read_tokens > {LONG_PROMPT})",
    "session_id": "session_id",
    "model": "model",
    "repo": "repo",
    "cwd": "cwd",
    "task_id": "task_id",
    "git_branch": "git_branch",
    "inference_geo": "inference_geo",
    "machine_id": "machine_id",
}
KEY_TYPES = {"hour": "BIGINT", "on_hour": "BOOLEAN", "long_prompt": "BOOLEAN"}


def _over(column: str) -> str:
    return f"sum(greatest({column} - {LONG_PROMPT}, 0))::BIGINT"


SUMS = {
    "calls": "count(*)::BIGINT",
    "input_tokens": "sum(input_tokens)::BIGINT",
    "output_tokens": "sum(output_tokens)::BIGINT",
    "cache_creation_tokens": "sum(cache_creation_tokens)::BIGINT",
    # The 1-hour share of the cache writes, as pricing reads it: never more than the writes themselves.
    "cache_write_1h_tokens": "sum(least(coalesce(cache_creation_1h_tokens, 0), cache_creation_tokens))::BIGINT",
    "cache_read_tokens": "sum(cache_read_tokens)::BIGINT",
    "web_search_requests": "sum(coalesce(web_search_requests, 0))::BIGINT",
    "input_over": _over("input_tokens"),
    "output_over": _over("output_tokens"),
    "cache_write_over": _over("cache_creation_tokens"),
    "cache_read_over": _over("cache_read_tokens"),
    "first_ts": "min(ts)",
    "last_ts": "max(ts)",
}
SUM_TYPES = {"first_ts": "TIMESTAMPTZ", "last_ts": "TIMESTAMPTZ"}


def schema_sql() -> str:
    keys = ", ".join(f"{k} {KEY_TYPES.get(k, 'VARCHAR')}" for k in KEYS)
    sums = ", ".join(f"{k} {SUM_TYPES.get(k, 'BIGINT')}" for k in SUMS)
    return (
        f"CREATE TABLE IF NOT EXISTS {TABLE} ({keys}, {sums});\n"
        "CREATE TABLE IF NOT EXISTS usage_hourly_state (version INTEGER);\n"
    )


def _aggregate_sql(where: str = "") -> str:
    keys = ", ".join(f"{expr} AS {name}" for name, expr in KEYS.items())
    sums = ", ".join(f"{expr} AS {name}" for name, expr in SUMS.items())
    return f"SELECT {keys}, {sums} FROM usage{where} GROUP BY ALL"


def note_touched(con: Any, batch: str = "incoming", *, existing: bool = True) -> None:
    """Before a batch is merged: remember every hour it may change (its own hours, and, when ``usage`` has
    rows, the hours the rows it replaces are in now: a better copy of a call can move its timestamp)."""
    replaced = (
        f" UNION SELECT DISTINCT {HOUR_SQL} FROM usage WHERE dedupe_key IN (SELECT dedupe_key FROM {batch})"
        if existing
        else ""
    )
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE rollup_touched AS "
        f"SELECT DISTINCT {HOUR_SQL} AS hour FROM {batch} WHERE ts IS NOT NULL{replaced}"
    )


def update(con: Any) -> None:
    """After the batch is merged: recompute the touched hours from ``usage`` (same transaction)."""
    con.execute(schema_sql())
    if not _current(con):
        rebuild(con)
        con.execute("DROP TABLE IF EXISTS rollup_touched")
        return
    lo, hi = con.execute("SELECT min(hour), max(hour) FROM rollup_touched").fetchone()
    if lo is not None:
        # The range lets DuckDB skip row groups by their timestamp bounds before testing each hour.
        con.execute(f"DELETE FROM {TABLE} WHERE hour IN (SELECT hour FROM rollup_touched)")
        con.execute(
            f"INSERT INTO {TABLE} "
            + _aggregate_sql(
                " WHERE ts >= to_timestamp(?) AND ts < to_timestamp(?)"
                f" AND {HOUR_SQL} IN (SELECT hour FROM rollup_touched)"
            ),
            [lo * 3600, (hi + 1) * 3600],
        )
    con.execute("DROP TABLE IF EXISTS rollup_touched")


def rebuild(con: Any) -> None:
    """The whole table again from ``usage`` (made anew: an older definition may lack a key)."""
    con.execute(f"DROP TABLE IF EXISTS {TABLE}")
    con.execute(schema_sql())
    con.execute(f"INSERT INTO {TABLE} " + _aggregate_sql())
    con.execute("DELETE FROM usage_hourly_state")
    con.execute("INSERT INTO usage_hourly_state VALUES (?)", [VERSION])


def _current(con: Any) -> bool:
    row = con.execute("SELECT max(version) FROM usage_hourly_state").fetchone()
    return bool(row and row[0] == VERSION)


def is_current(con: Any) -> bool:
    """Whether the table exists in this version's definition (read-only: nothing is created)."""
    row = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'main' AND table_name IN (?, 'usage_hourly_state')",
        [TABLE],
    ).fetchone()
    return bool(row and row[0] == 2) and _current(con)


def ensure(con: Any) -> bool:
    """Rebuild the table when it is missing, of another version, or its calls do not add up to ``usage``'s
    (a ledger written by a version without it). True when it was rebuilt."""
    con.execute(schema_sql())
    if _current(con):
        rolled = con.execute(f"SELECT coalesce(sum(calls), 0) FROM {TABLE}").fetchone()[0]
        rows = con.execute("SELECT count(*) FROM usage").fetchone()[0]
        if rolled == rows:
            return False
        log.warning("%s sums %d calls but usage holds %d: rebuilding it", TABLE, rolled, rows)
    rebuild(con)
    return True
