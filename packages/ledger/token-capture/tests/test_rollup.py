"""The hourly roll-up (``usage_hourly``) stays equal to ``usage`` summed, load after load, and is rebuilt
when it is missing, of another version, or does not add up."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import pytest
from ctxops_contracts import UsageRecord
from ctxops_token_capture import rollup
from ctxops_token_capture.jsonl_store import append_records
from ctxops_token_capture.ledger import LEDGER_FILE, Ledger
from ctxops_token_capture.report import IngestReport

T0 = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)


def _record(key: str, at: datetime, origin: str = "transcript", **fields: Any) -> UsageRecord:
    base: dict[str, Any] = {
        "id": "01J" + f"{abs(hash(key)) % 10**23:023d}",
        "ts": at,
        "provider": "anthropic",
        "model": "claude-sonnet-4-5",
        "session_id": "s-1",
        "repo": "/home/dev/shop",
        "input_tokens": 10,
        "output_tokens": 5,
        "origin": origin,
        "dedupe_key": key,
    }
    base.update(fields)
    return UsageRecord(**base)


def _rows(con: Any, sql: str) -> list[tuple[Any, ...]]:
    return sorted(con.execute(sql).fetchall(), key=repr)


def _table_and_truth(root: Path) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    con = duckdb.connect(str(root / LEDGER_FILE), read_only=True)
    try:
        table = _rows(con, f"SELECT * FROM {rollup.TABLE}")
        truth = _rows(con, rollup._aggregate_sql())
    finally:
        con.close()
    return table, truth


def test_each_load_keeps_the_rollup_equal_to_the_calls(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="ctxops_token_capture.rollup")
    root = tmp_path / "ledger"
    ledger = Ledger(root)
    append_records(
        [
            _record("a", T0 + timedelta(minutes=5)),
            _record("b", T0 + timedelta(hours=1)),  # exactly on the hour
            _record("c", T0 + timedelta(hours=1, seconds=1), input_tokens=150_000, cache_read_tokens=60_000),
            _record("d", T0 + timedelta(hours=3), model="gemini-2.5-pro", inference_geo="us", output_tokens=250_000),
        ],
        "transcript",
        root,
    )
    assert ledger.load(IngestReport()) == 4
    table, truth = _table_and_truth(root)
    assert table == truth and len(table) == 4
    # A new call in a new hour, another in an hour already rolled up.
    append_records(
        [_record("e", T0 + timedelta(hours=7)), _record("f", T0 + timedelta(minutes=50), session_id="s-2")],
        "transcript",
        root,
    )
    assert ledger.load(IngestReport()) == 2
    table, truth = _table_and_truth(root)
    assert table == truth
    # The proxy's copy of "a" is better: its tokens and its timestamp (another hour) replace the transcript's.
    append_records([_record("a", T0 + timedelta(hours=5, minutes=1), "proxy", input_tokens=99)], "proxy", root)
    assert ledger.load(IngestReport()) == 0
    table, truth = _table_and_truth(root)
    assert table == truth
    hours = {row[0] for row in table}
    assert (T0.timestamp() // 3600) in hours  # "f" is still there
    assert (T0 + timedelta(hours=5)).timestamp() // 3600 in hours
    con = duckdb.connect(str(root / LEDGER_FILE), read_only=True)
    calls = con.execute(f"SELECT sum(calls), sum(input_tokens) FROM {rollup.TABLE}").fetchone()
    con.close()
    assert calls == (6, 10 * 3 + 150_000 + 99 + 10)
    assert not caplog.records  # kept by each load, never rebuilt


def test_a_missing_stale_or_older_rollup_is_rebuilt(tmp_path: Path) -> None:
    root = tmp_path / "ledger"
    append_records([_record(f"k{i}", T0 + timedelta(minutes=17 * i)) for i in range(30)], "transcript", root)
    ledger = Ledger(root)
    ledger.load(IngestReport())
    expected, _ = _table_and_truth(root)
    for damage in (
        f"DROP TABLE {rollup.TABLE}",  # a ledger written before the roll-up existed
        f"DELETE FROM {rollup.TABLE} WHERE hour % 2 = 0",  # does not add up to usage
        "UPDATE usage_hourly_state SET version = 0",  # an older definition
    ):
        con = duckdb.connect(str(root / LEDGER_FILE))
        con.execute(damage)
        con.close()
        with ledger.writer() as con:
            ledger.load_into(con, IngestReport())
        table, truth = _table_and_truth(root)
        assert table == truth == expected, damage


def test_the_in_memory_ledger_has_the_rollup_too(tmp_path: Path) -> None:
    from ctxops_token_capture.ledger import memory_ledger

    root = tmp_path / "ledger"
    append_records([_record(f"k{i}", T0 + timedelta(minutes=40 * i)) for i in range(5)], "transcript", root)
    con = memory_ledger(root, IngestReport())
    try:
        assert con.execute(f"SELECT sum(calls) FROM {rollup.TABLE}").fetchone()[0] == 5
    finally:
        con.close()
