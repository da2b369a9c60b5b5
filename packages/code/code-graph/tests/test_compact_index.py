"""The index's size: compact reference and edge rows behind the `refs`/`edges` views, packed symbol keys,
a build store written once. Every answer stays as the plain tables gave it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import duckdb
from ctxops_code_graph import CodeIndex
from ctxops_code_graph.builder import IndexWriter
from ctxops_code_graph.duck_store import write_compacted
from ctxops_code_graph.layout import IndexLayout
from ctxops_code_graph.schema import SQLITE_DDL
from ctxops_code_graph.snapshot_rows import Keys, delete_file_rows, insert_edges, insert_refs
from repo_fixtures import ORDERS_PY, make_repo


def _snapshot(root: Path) -> sqlite3.Connection:
    return sqlite3.connect(IndexLayout(root.resolve()).current_lookup())  # type: ignore[arg-type]


def test_edges_keep_no_copy_of_their_reference_s_place(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "shop", ORDERS_PY)
    IndexWriter(root).build()
    con = _snapshot(root)
    kinds = dict(con.execute("SELECT name, type FROM sqlite_master WHERE name IN ('refs', 'edges')").fetchall())
    assert kinds == {"refs": "view", "edges": "view"}
    n, stored_fk, stored_line = con.execute("SELECT count(*), count(fk), count(line) FROM edge_rows").fetchone()
    assert n > 0 and stored_fk == 0 and stored_line == 0
    # ... and the view gives every edge its reference's file and line.
    mismatched = con.execute(
        "SELECT count(*) FROM edges e JOIN refs r USING (rid) WHERE e.fk IS NOT r.fk OR e.line IS NOT r.line"
    ).fetchone()[0]
    assert mismatched == 0
    # Repeated text is stored once.
    assert (
        con.execute("SELECT count(*) FROM strings").fetchone()[0]
        < con.execute("SELECT count(*) FROM refs").fetchone()[0]
    )
    con.close()
    # An update writes the same layout, and answers as before.
    ix = CodeIndex(root)
    (root / "shop" / "audit.py").write_text("from shop.service import ship\n\ndef audit(o):\n    return ship(o)\n")
    hops = ix.callers("python shop/service.py ship().")
    assert ("python shop/audit.py audit().", "import-resolved") in {(h.edge.src, h.edge.confidence) for h in hops}
    con = _snapshot(root)
    assert con.execute("SELECT count(fk), count(line) FROM edge_rows").fetchone() == (0, 0)
    line = con.execute(
        "SELECT e.line FROM edges e JOIN files f USING (fk) WHERE f.path = 'shop/audit.py' AND e.kind = 'call'"
    ).fetchall()
    assert line == [(4,)]


def test_symbol_keys_take_only_the_bits_the_largest_file_needs(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "shop", ORDERS_PY)
    IndexWriter(root).build()
    con = _snapshot(root)
    most = max(n for (n,) in con.execute("SELECT count(*) FROM symbols GROUP BY fk"))
    top_fk = con.execute("SELECT max(fk) FROM files").fetchone()[0]
    assert con.execute("SELECT max(sk) FROM symbols").fetchone()[0] < (top_fk + 1) << most.bit_length()
    # Parents and enclosing symbols point at the packed keys.
    orphans = con.execute(
        "SELECT count(*) FROM symbols s WHERE s.parent_sk IS NOT NULL AND NOT EXISTS"
        " (SELECT 1 FROM symbols p WHERE p.sk = s.parent_sk)"
    ).fetchone()[0]
    lost = con.execute(
        "SELECT count(*) FROM refs r WHERE r.enclosing_sk IS NOT NULL AND NOT EXISTS"
        " (SELECT 1 FROM symbols e WHERE e.sk = r.enclosing_sk)"
    ).fetchone()[0]
    assert orphans == 0 and lost == 0


def test_an_edge_elsewhere_than_its_reference_keeps_its_own_place() -> None:
    con = sqlite3.connect(":memory:")
    for statement in SQLITE_DDL:
        con.execute(statement)
    keys = Keys(con)
    insert_refs(con, keys, [(1, "ship", 7, 10, 4, "call", None, None), (2, "ship", 7, 12, 4, "call", None, "svc")])
    insert_edges(
        con,
        keys,
        [
            (1, 100, 200, "call", "exact", 7, 10, "local"),  # as its reference: nothing stored
            (2, 100, 200, "call", "exact", 8, 30, "local"),  # elsewhere: kept
            (3, 100, 200, "call", "name-only", None, None, "name-only"),  # no reference, no place: NULLs kept
            (4, 100, 200, "inherit", "exact", 9, 1, "local"),  # no reference: kept
        ],
    )
    assert con.execute("SELECT rid, fk, line FROM edge_rows ORDER BY rid").fetchall() == [
        (1, None, None),
        (2, 8, 30),
        (3, 0, -1),
        (4, 9, 1),
    ]
    assert con.execute("SELECT * FROM edges ORDER BY rid").fetchall() == [
        (1, 100, 200, "call", "exact", 7, 10, "local"),
        (2, 100, 200, "call", "exact", 8, 30, "local"),
        (3, 100, 200, "call", "name-only", None, None, "name-only"),
        (4, 100, 200, "inherit", "exact", 9, 1, "local"),
    ]
    assert con.execute("SELECT count(*) FROM edge_kinds").fetchone()[0] == 3
    assert con.execute("SELECT qualifier FROM refs ORDER BY rid").fetchall() == [(None,), ("svc",)]
    # A file's rows go with it: its references, the edges they carry and the edges placed in it.
    delete_file_rows(con, 7, ("refs", "edges"))
    assert con.execute("SELECT rid FROM edge_rows ORDER BY rid").fetchall() == [(2,), (3,), (4,)]
    delete_file_rows(con, 8, ("edges",))
    assert con.execute("SELECT rid FROM edge_rows ORDER BY rid").fetchall() == [(3,), (4,)]


def test_the_build_store_is_written_once(tmp_path: Path) -> None:
    con = duckdb.connect(str(tmp_path / "building.duckdb"))
    con.execute("CREATE TABLE t AS SELECT range AS i, 'row ' || range AS s FROM range(300000)")
    con.execute("CREATE TABLE scratch AS SELECT * FROM t")
    con.execute("CHECKPOINT")
    con.execute("DROP TABLE scratch")
    con.execute("CHECKPOINT")
    assert con.execute("SELECT free_blocks FROM pragma_database_size()").fetchone()[0] > 0
    target = tmp_path / "compacted.duckdb"
    write_compacted(con, target)
    con.close()
    copy = duckdb.connect(str(target))
    assert copy.execute("SELECT free_blocks FROM pragma_database_size()").fetchone()[0] == 0
    assert copy.execute("SELECT count(*), sum(i) FROM t").fetchone() == (300000, sum(range(300000)))
    copy.close()
    assert target.stat().st_size < (tmp_path / "building.duckdb").stat().st_size


def test_a_full_build_publishes_a_store_without_free_blocks(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "shop", ORDERS_PY)
    IndexWriter(root).build()
    layout = IndexLayout(root.resolve())
    assert not list(layout.index_dir.glob("code-compacted.duckdb*"))
    assert not list(layout.index_dir.glob("code-building.duckdb*"))
    con = duckdb.connect(str(layout.duckdb_path), read_only=True)
    assert con.execute("SELECT free_blocks FROM pragma_database_size()").fetchone()[0] == 0
    con.close()


def test_status_counts_the_rows_behind_the_views(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "shop", ORDERS_PY)
    IndexWriter(root).build()
    status = CodeIndex(root).status()
    con = _snapshot(root)
    assert status.references == con.execute("SELECT count(*) FROM refs").fetchone()[0] > 0
    assert status.edges == con.execute("SELECT count(*) FROM edges").fetchone()[0] > 0
    assert sum(status.edges_by_confidence.values()) == status.edges
