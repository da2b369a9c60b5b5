"""A damaged or foreign index file is found and moved aside, never deleted (issue 22, item 5)."""

from __future__ import annotations

import os
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


def test_a_snapshot_without_the_sqlite_header_is_found(layout: IndexLayout) -> None:
    layout.pointer_path.write_text("code-lookup.1.sqlite\n")
    layout.lookup_path(1).write_bytes(b"\0" * 4096)
    ((path, why),) = damaged(layout)
    assert path == layout.lookup_path(1) and "no SQLite header" in why
