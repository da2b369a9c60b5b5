"""After resolution, within DuckDB's cap (issue 24 item 5): the snapshot's edge copy and a full build's file
graph run a slice of references at a time, with the same rows; resolution's scratch tables are dropped first."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ctxops_code_graph import duck_store, lookup_db, rid_slices
from ctxops_code_graph.builder import IndexWriter
from ctxops_code_graph.layout import IndexLayout
from repo_fixtures import make_repo
from test_bounded_resolution import _chains


def _built(root: Path) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """A full build's snapshot edges and file edges, in the snapshot's key order."""
    IndexWriter(root).build(full=True)
    con = sqlite3.connect(IndexLayout(root.resolve()).current_lookup())  # type: ignore[arg-type]
    try:
        edges = con.execute("SELECT * FROM edge_rows ORDER BY rid, dst_sk").fetchall()
        file_edges = con.execute("SELECT * FROM file_edges ORDER BY 1, 2, 3, 4").fetchall()
    finally:
        con.close()
    return edges, file_edges


def test_edges_and_file_graph_in_slices_are_the_same_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = _chains(6, 8)
    whole = _built(make_repo(tmp_path / "whole", files))
    assert len(whole[0]) > 300 and len(whole[1]) > 5

    sliced_over: list[str] = []
    ranges = rid_slices.ranges

    def recorded(con: Any, table: str, rows: int | None = None) -> Iterator[str]:
        wheres = list(ranges(con, table, rows))
        sliced_over.extend(table for _ in wheres)
        return iter(wheres)

    monkeypatch.setattr(rid_slices, "ranges", recorded)
    monkeypatch.setattr(lookup_db, "EDGE_COPY_ROWS", 100)
    monkeypatch.setattr(duck_store, "FILE_EDGE_ROWS", 100)
    sliced = _built(make_repo(tmp_path / "sliced", files))
    # the edge copy and the file graph each went over several slices of `edge_rows`
    assert sliced_over.count("edge_rows") >= 2 * (len(whole[0]) // 100)
    assert sliced == whole


def test_resolution_s_scratch_is_gone_before_the_file_graph(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    temporary: list[list[str]] = []
    original = duck_store.rebuild_file_edges

    def spy(con: Any, *a: Any, **k: Any) -> None:
        rows = con.execute("SELECT table_name FROM duckdb_tables() WHERE temporary").fetchall()
        temporary.append([r[0] for r in rows])
        original(con, *a, **k)

    monkeypatch.setattr(duck_store, "rebuild_file_edges", spy)
    IndexWriter(make_repo(tmp_path / "repo", _chains(3, 3))).build(full=True)
    assert temporary == [[]]  # (before: everything, cand, typed_cls, ... held DuckDB's memory to the end)


def test_drop_scratch_keeps_the_store_s_tables(tmp_path: Path) -> None:
    con = duck_store.connect(tmp_path / "s.duckdb")
    try:
        duck_store.create_tables(con)
        con.execute("CREATE TEMP TABLE scratch AS SELECT 1 AS x")
        con.execute("CREATE TEMP VIEW scratch_view AS SELECT * FROM scratch")
        duck_store.drop_scratch(con)
        assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE temporary").fetchone() == (0,)
        assert con.execute("SELECT count(*) FROM duckdb_views() WHERE temporary AND NOT internal").fetchone() == (0,)
        assert con.execute("SELECT count(*) FROM edges").fetchone() == (0,)  # the store's view and tables remain
    finally:
        con.close()


def test_an_edge_copy_out_of_memory_is_copied_again_under_the_fallback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The edge copy runs beside the file graph under the build's 256 MB: out of memory there, the build goes
    on (the copy's rows dropped and copied again under a higher cap) instead of failing."""
    import duckdb

    files = _chains(3, 4)
    whole = _built(make_repo(tmp_path / "whole", files))
    copy = lookup_db.GenerationWriter._copy
    failed: list[str] = []

    def once_out_of_memory(self: Any, duck: Any, queries: dict[str, str]) -> None:
        if "edges" in queries and not failed:
            copy(self, duck, queries)  # every row copied, then the failure
            failed.append("edges")
            raise duckdb.OutOfMemoryException("failed to pin block (test)")
        copy(self, duck, queries)

    monkeypatch.setattr(lookup_db.GenerationWriter, "_copy", once_out_of_memory)
    retried = _built(make_repo(tmp_path / "retried", files))
    assert failed and "retrying under 512MB" in capsys.readouterr().err
    assert retried == whole  # no edge twice, none missing
