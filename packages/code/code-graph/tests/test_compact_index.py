"""The index's size: compact reference and edge rows behind the `refs`/`edges` views, packed symbol keys,
a build store written once. Every answer stays as the plain tables gave it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import duckdb
from ctxops_code_graph import CodeIndex
from ctxops_code_graph.builder import IndexWriter
from ctxops_code_graph.duck_store import scratch_store, write_compacted
from ctxops_code_graph.layout import IndexLayout
from ctxops_code_graph.lookup_queries import walk
from ctxops_code_graph.reader import id_path
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


def test_a_scratch_store_s_compacted_copy_is_whole_in_its_file(tmp_path: Path) -> None:
    """The build's scratch store checkpoints late and never at close; the copy it publishes is all in its own
    file (no WAL beside it: the file is renamed into place, a WAL would be left behind under the old name)."""
    con = duckdb.connect(str(tmp_path / "building.duckdb"))
    scratch_store(con)
    con.execute("CREATE TABLE t AS SELECT range AS i, 'row ' || range AS s FROM range(300000)")
    target = tmp_path / "compacted.duckdb"
    write_compacted(con, target)
    con.close()
    assert not target.with_name(target.name + ".wal").exists()
    moved = target.rename(tmp_path / "published.duckdb")
    copy = duckdb.connect(str(moved), read_only=True)
    assert copy.execute("SELECT count(*), sum(i) FROM t").fetchone() == (300000, sum(range(300000)))
    copy.close()


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


SPACED = {
    "my pkg/__init__.py": "",
    "my pkg/odd`name.py": "def helper():\n    return 1\n",
    "my pkg/tools.py": (
        "from .helpers import base\n\n\ndef run(x):\n    return base(x)\n\n\n"
        "def run(x):  # redefined: the second is `run(+1).`\n    return base(x) + plain()\n\n\n"
        "def plain():\n    return 2\n"
    ),
    "my pkg/helpers.py": "def base(x):\n    return x\n",
}


def test_symbol_ids_are_built_on_read_and_found_through_their_file(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", SPACED)
    IndexWriter(root).build()
    con = _snapshot(root)
    assert con.execute("SELECT type FROM sqlite_master WHERE name = 'symbols'").fetchone() == ("view",)
    assert con.execute("SELECT count(*) FROM sqlite_master WHERE name = 'symbols_id'").fetchone() == (0,)
    # Only the duplicate keeps its id whole; every other id is built from its file and name.
    kept = con.execute("SELECT id_full FROM symbol_rows WHERE id_full IS NOT NULL").fetchall()
    assert kept == [("python `my pkg/tools.py` run(+1).",)]
    ids = {r[0] for r in con.execute("SELECT id FROM symbols")}
    assert {
        "python `my pkg/tools.py` run().",
        "python `my pkg/tools.py` plain().",
        "python `my pkg/odd``name.py` helper().",
    } <= ids
    con.close()
    ix = CodeIndex(root)
    for sid in ids:
        assert [s.id for s in ix.definitions(sid)] == [sid]
    assert ix.definitions("python `my pkg/tools.py` nothing().") == []
    assert ix.definitions("python my pkg/tools.py run().") == []  # not how an id spells the path
    callers = {h.edge.src for h in ix.callers("python `my pkg/helpers.py` base().")}
    assert callers == {"python `my pkg/tools.py` run().", "python `my pkg/tools.py` run(+1)."}
    callees = {h.edge.dst for h in ix.callees("python `my pkg/tools.py` run(+1).")}
    assert callees == {"python `my pkg/helpers.py` base().", "python `my pkg/tools.py` plain()."}
    # An update keeps a surviving symbol's key and builds its id the same way.
    con = _snapshot(root)
    before = con.execute("SELECT sk FROM symbols WHERE id = 'python `my pkg/tools.py` plain().'").fetchone()
    con.close()
    (root / "my pkg" / "tools.py").write_text(SPACED["my pkg/tools.py"] + "\n\ndef extra():\n    return plain()\n")
    assert [h.edge.src for h in ix.callers("python `my pkg/tools.py` plain().")] == [
        "python `my pkg/tools.py` run(+1).",
        "python `my pkg/tools.py` extra().",
    ]
    con = _snapshot(root)
    assert con.execute("SELECT sk FROM symbols WHERE id = 'python `my pkg/tools.py` plain().'").fetchone() == before
    assert con.execute("SELECT id_full FROM symbol_rows WHERE id_full IS NOT NULL").fetchall() == kept


def test_an_id_names_its_file() -> None:
    assert id_path("python pkg/mod.py Class#method().") == "pkg/mod.py"
    assert id_path("python `my pkg/a``b.py` f().") == "my pkg/a`b.py"
    assert id_path("python `a b.py` `x`.") == "a b.py"
    for broken in ("python", "python pkg/mod.py", "python `unclosed f().", "python `a`b f()."):
        assert id_path(broken) is None


def test_a_file_s_references_are_a_range_of_their_keys(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "shop", ORDERS_PY)
    IndexWriter(root).build()
    con = _snapshot(root)
    assert con.execute("SELECT count(*) FROM sqlite_master WHERE name = 'refs_fk'").fetchone() == (0,)
    spans = con.execute("SELECT fk, lo, hi FROM ref_spans").fetchall()
    assert spans == con.execute("SELECT fk, min(rid), max(rid) FROM ref_rows GROUP BY fk").fetchall()
    con.close()
    ix = CodeIndex(root)
    (root / "shop" / "service.py").write_text(
        (root / "shop" / "service.py").read_text() + "\n\ndef later():\n    return ship(None)\n"
    )
    assert any(h.edge.src.endswith("later().") for h in ix.callers("python shop/service.py ship()."))
    con = _snapshot(root)
    fk = con.execute("SELECT fk FROM files WHERE path = 'shop/service.py'").fetchone()[0]
    lo, hi = con.execute("SELECT lo, hi FROM ref_spans WHERE fk = ?", (fk,)).fetchone()
    # The file's new references are numbered in a row, past every other file's; its old ones are gone.
    assert con.execute("SELECT min(rid), max(rid), count(*) FROM ref_rows WHERE fk = ?", (fk,)).fetchone() == (
        lo,
        hi,
        hi - lo + 1,
    )
    assert lo > max(h for f, _l, h in spans if f != fk)
    assert con.execute(
        "SELECT count(*) FROM ref_rows WHERE rid BETWEEN ? AND ? AND fk <> ?", (lo, hi, fk)
    ).fetchone() == (0,)


def test_an_edge_whose_source_is_not_its_reference_s_keeps_it() -> None:
    con = sqlite3.connect(":memory:")
    for statement in SQLITE_DDL:
        con.execute(statement)
    keys = Keys(con)
    insert_refs(con, keys, [(1, "ship", 7, 10, 4, "call", 500, None), (2, "ship", 7, 12, 4, "call", None, None)])
    insert_edges(
        con,
        keys,
        [
            (1, 500, 200, "call", "exact", 7, 10, "local"),  # its reference's enclosing symbol: not stored
            (1, 600, 201, "call", "exact", 7, 10, "local"),  # another source: kept
            (2, None, 200, "call", "exact", 7, 12, "local"),  # both module level: not stored
            (3, None, 200, "call", "exact", 8, 1, "local"),  # no reference: NULL kept as 0
        ],
    )
    assert con.execute("SELECT rid, src_sk FROM edge_rows ORDER BY rid, dst_sk").fetchall() == [
        (1, None),
        (1, 600),
        (2, None),
        (3, 0),
    ]
    assert con.execute("SELECT rid, src_sk, dst_sk FROM edges ORDER BY rid, dst_sk").fetchall() == [
        (1, 500, 200),
        (1, 600, 201),
        (2, None, 200),
        (3, None, 200),
    ]
    # A callees walk finds both: through the references a symbol encloses, and by a source stored apart.
    con.execute("INSERT INTO files (fk, path) VALUES (7, 'shop/a.py'), (8, 'shop/b.py')")
    assert [r[:2] for r in walk(con, 500, 1, ("call",), upward=False)] == [(500, 200)]
    assert [r[:2] for r in walk(con, 600, 1, ("call",), upward=False)] == [(600, 201)]
    # A symbol key used again after its references went (its stale span left: no symbol row names its
    # file here): the span is widened to the new references, never missing them.
    delete_file_rows(con, 7, ("refs", "edges"))
    insert_refs(con, keys, [(9, "ship", 7, 3, 1, "call", 500, None)])
    insert_edges(con, keys, [(9, 500, 202, "call", "exact", 7, 3, "local")])
    assert con.execute("SELECT lo, hi FROM enclosed_spans WHERE sk = 500").fetchone() == (1, 9)
    assert [r[:2] for r in walk(con, 500, 1, ("call",), upward=False)] == [(500, 202)]


def test_the_build_store_keeps_of_an_edge_only_what_resolution_decided(tmp_path: Path) -> None:
    """Its source, kind, file and line are its reference's: the store's `edges` view shows them, and after an
    update the view is what a rebuild gives."""
    root = make_repo(tmp_path / "shop", ORDERS_PY)
    IndexWriter(root).build()
    layout = IndexLayout(root.resolve())

    def store_edges() -> list[tuple[object, ...]]:
        con = duckdb.connect(str(layout.duckdb_path), read_only=True)
        try:
            kinds = dict(con.execute("SELECT table_name, 'table' FROM duckdb_tables()").fetchall())
            kinds.update(
                dict(con.execute("SELECT view_name, 'view' FROM duckdb_views() WHERE NOT internal").fetchall())
            )
            assert kinds["edge_rows"] == "table" and kinds["edges"] == "view"
            stored = [r[0] for r in con.execute("DESCRIBE edge_rows").fetchall()]
            assert stored == ["rid", "dst", "confidence", "resolution"]
            rows: list[tuple[object, ...]] = con.execute(
                "SELECT r.symbol_name, r.line, e.src, e.dst, e.kind, e.confidence, e.path, e.line, e.resolution"
                " FROM edges e JOIN refs r USING (rid) ORDER BY ALL"
            ).fetchall()
            return rows
        finally:
            con.close()

    built = store_edges()
    assert any(row[4] == "call" and row[2] is not None for row in built)
    service = root / "shop" / "service.py"
    service.write_text(service.read_text() + "\n\ndef again():\n    return Order()\n")
    IndexWriter(root).build()
    updated = store_edges()
    IndexWriter(root).build(full=True)
    assert updated == store_edges()


def test_the_snapshot_s_edges_are_keyed_by_reference_and_target(tmp_path: Path) -> None:
    """`edge_rows` has no rowid and no index of its own on `rid`: a reference's edges are a range of its key."""
    root = make_repo(tmp_path / "shop", ORDERS_PY)
    IndexWriter(root).build()
    con = _snapshot(root)
    indexes = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'index'").fetchall()}
    assert "edges_rid" not in indexes
    (sql,) = con.execute("SELECT sql FROM sqlite_master WHERE name = 'edge_rows'").fetchone()
    assert sql.endswith("WITHOUT ROWID")
    plan = " ".join(str(r[-1]) for r in con.execute("EXPLAIN QUERY PLAN SELECT * FROM edge_rows WHERE rid = 5"))
    assert "PRIMARY KEY" in plan


def test_the_published_stores_are_packed(tmp_path: Path) -> None:
    """The build store in 64 KiB blocks, the snapshot without part-empty pages left by out-of-order keys."""
    root = make_repo(tmp_path / "shop", ORDERS_PY)
    IndexWriter(root).build()
    layout = IndexLayout(root.resolve())
    con = duckdb.connect(str(layout.duckdb_path), read_only=True)
    assert con.execute("SELECT block_size FROM pragma_database_size()").fetchone()[0] == 65536
    con.close()
    snap = _snapshot(root)
    assert snap.execute("PRAGMA freelist_count").fetchone()[0] == 0
    assert snap.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert not list(layout.index_dir.glob("*.packed")) and not list(layout.index_dir.glob("*.tmp"))
