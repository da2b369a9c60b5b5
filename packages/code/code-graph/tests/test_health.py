"""A damaged or foreign index file is found and moved aside, never deleted (issue 22, item 5)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from ctxops_code_graph.health import IndexDamaged, damaged, move_aside
from ctxops_code_graph.layout import IndexLayout


@pytest.fixture()
def layout(tmp_path: Path) -> IndexLayout:
    layout = IndexLayout(tmp_path)
    layout.ensure_index_dir()
    return layout


def test_no_index_is_not_damage(layout: IndexLayout) -> None:
    assert damaged(layout, deep=True) == []


def test_random_bytes_are_found_by_their_header(layout: IndexLayout) -> None:
    layout.duckdb_path.write_bytes(os.urandom(4096))
    ((path, why),) = damaged(layout)
    assert path == layout.duckdb_path and "no DuckDB header" in why
    error = IndexDamaged([(path, why)])
    assert str(path) in error.message and error.fix.startswith("cq index --full")


def test_a_duckdb_database_of_someone_else_is_found_only_deep_and_moved_aside_whole(layout: IndexLayout) -> None:
    con = duckdb.connect(str(layout.duckdb_path))
    con.execute("CREATE TABLE notes AS SELECT 'mine' AS text")
    con.close()
    assert damaged(layout) == []  # the header is DuckDB's
    ((path, why),) = damaged(layout, deep=True)
    assert "not a ctxops code index" in why
    aside = move_aside(path)
    assert not path.exists() and aside.name.startswith("code.duckdb.damaged-")
    con = duckdb.connect(str(aside), read_only=True)
    assert con.execute("SELECT text FROM notes").fetchone() == ("mine",)
    con.close()
    # a second damaged file the same second gets its own name
    path.write_bytes(b"x" * 64)
    assert move_aside(path) != aside


def test_a_snapshot_that_is_not_an_sqlite_database_is_found(layout: IndexLayout) -> None:
    layout.pointer_path.write_text("code-lookup.1.sqlite\n")
    layout.lookup_path(1).write_bytes(b"\0" * 4096)
    ((path, why),) = damaged(layout)
    assert path == layout.lookup_path(1) and "not an SQLite database" in why


def test_checking_the_snapshot_keeps_this_process_s_locks_on_it(layout: IndexLayout) -> None:
    """An auto-updating reader checks the snapshot while its own connection reads it. A raw descriptor
    opened and closed on the file dropped that connection's POSIX locks (another process could then take
    the database exclusively and reset the WAL under the reader: "disk I/O error" on every later read)."""
    path = layout.lookup_path(1)
    layout.pointer_path.write_text(path.name + "\n")
    setup = sqlite3.connect(path, isolation_level=None)
    setup.execute("PRAGMA journal_mode=WAL")
    setup.execute("CREATE TABLE meta(key, value)")
    setup.close()
    reading = sqlite3.connect(path, isolation_level=None)
    try:
        reading.execute("BEGIN")
        reading.execute("SELECT * FROM meta").fetchall()  # a read transaction: its locks are held
        assert damaged(layout) == []
        other = subprocess.run(
            [sys.executable, "-c", EXCLUSIVE, str(path)], capture_output=True, text=True, timeout=60, check=False
        )
        assert "database is locked" in other.stderr, other.stdout
    finally:
        reading.close()


EXCLUSIVE = """
import sqlite3, sys
con = sqlite3.connect(sys.argv[1], timeout=0, isolation_level=None)
print(con.execute("PRAGMA journal_mode=DELETE").fetchone())  # needs every other connection gone
"""
