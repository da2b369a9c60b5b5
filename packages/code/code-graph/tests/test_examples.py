"""The bundled order service (Python API, TypeScript web, Go worker), as a real git history."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from ctxops_code_graph import CodeIndex

MAKE_HISTORY = Path(__file__).resolve().parents[4] / "examples" / "make_history.py"


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> CodeIndex:
    if not MAKE_HISTORY.exists():
        pytest.skip("examples/ is not in this checkout")
    root = tmp_path_factory.mktemp("example") / "order-service"
    head = subprocess.run(
        [sys.executable, str(MAKE_HISTORY), str(root)], check=True, capture_output=True, text=True
    ).stdout.split()[-1]
    ix = CodeIndex(root)
    report = ix.build()
    assert report.mode == "full" and report.revision == head[:7]
    return ix


def test_all_three_languages_are_indexed(index: CodeIndex) -> None:
    st = index.status()
    assert set(st.files_by_language) == {"python", "go", "typescript", "tsx"}
    assert st.parse_problems == [] and st.symbols > 500 and st.edges > 1000


def test_python_state_machine(index: CodeIndex) -> None:
    (sym,) = index.definitions("OrderStateMachine.transition")
    assert sym.path == "api/orders/state_machine.py" and sym.kind == "method"
    callers = {h.symbol.qualname for h in index.callers(sym.id) if h.symbol}
    assert {"cancel_order", "mark_shipped", "close_expired_orders"} <= callers
    impact = index.impact(sym.id)
    assert "api/tests/test_state_machine.py" in impact.tests
    assert any(s.qualname == "test_transition_records_history_and_timestamps" for s in impact.test_symbols)


def test_state_machine_callers_resolve_through_typed_receivers(index: CodeIndex) -> None:
    """`services.machine.transition()` with `services: Services` and `Services.machine: OrderStateMachine`."""
    (sym,) = index.definitions("OrderStateMachine.transition")
    by_path: dict[str, set[str]] = {}
    how: dict[str, set[str | None]] = {}
    for hop in index.callers(sym.id):
        by_path.setdefault(hop.edge.path or "", set()).add(hop.edge.confidence)
        how.setdefault(hop.edge.path or "", set()).add(hop.edge.resolution)
    for path in ("api/orders/service.py", "api/payments/callbacks.py", "api/jobs/timeout_close.py"):
        assert by_path[path] == {"import-resolved"}, path
    assert by_path["api/tests/test_state_machine.py"] == {"import-resolved"}  # machine = OrderStateMachine(clock)
    # `services` is a pytest fixture parameter: conftest.py's `def services(...) -> Services` says what it is
    assert by_path["api/tests/test_models.py"] == {"import-resolved"}
    assert how["api/tests/test_models.py"] == {"fixture"}


def test_typescript_imports_resolve(index: CodeIndex) -> None:
    (fmt,) = index.definitions("formatMoney")
    assert fmt.path == "web/src/utils/money.ts"
    hops = index.callers(fmt.id)
    assert hops and {h.edge.confidence for h in hops} == {"import-resolved"}
    assert "web/src/components/OrderSummary.tsx" in {h.edge.path for h in hops}


def test_go_package_scope_and_imports(index: CodeIndex) -> None:
    (ctor,) = index.definitions("NewConsumer")
    by_conf = {(h.edge.path, h.edge.confidence) for h in index.callers(ctor.id)}
    assert ("worker/cmd/worker/main.go", "import-resolved") in by_conf
    assert ("worker/internal/queue/consumer_test.go", "exact") in by_conf
    outline = [(s.qualname, s.kind) for s in index.symbols_in_file("worker/internal/queue/consumer.go")]
    assert ("Consumer", "struct") in outline and ("Consumer.Poll", "method") in outline


def test_ranked_map_puts_hubs_first_and_personalizes(index: CodeIndex) -> None:
    top = [f.path for f in index.ranked_files(limit=5)]
    assert "api/models.py" in top
    focused = index.ranked_files(query_terms=["payment"], limit=3)
    assert any("payment" in f.path for f in focused)
    in_play = index.ranked_files(files_in_play=["worker/internal/queue/consumer.go"], limit=3)
    assert in_play[0].path.startswith("worker/")


def test_code_index_satisfies_the_symbol_index_protocol(index: CodeIndex) -> None:
    from ctxops_contracts import SymbolIndex

    seam: SymbolIndex = index  # checked by mypy too: CodeIndex is usable wherever the protocol is asked for
    assert isinstance(seam, SymbolIndex)
    assert [s.path for s in seam.definitions("verify_signature")] == ["api/payments/signature.py"]
    assert {r.path for r in seam.references("verify_signature")} >= {"api/payments/callbacks.py"}


def _snapshot_facts(ix: CodeIndex) -> dict[str, list[tuple[object, ...]]]:
    """Every fact of the snapshot with integer keys replaced by paths and ids (keys differ by build)."""
    import sqlite3

    from ctxops_code_graph.layout import IndexLayout

    current = IndexLayout(ix.root).current_lookup()
    assert current is not None
    con = sqlite3.connect(current)
    queries = {
        "symbols": "SELECT s.id, s.name, s.qualname, s.kind, s.lang, f.path, s.line, s.end_line, s.signature, s.doc,"
        " p.id, s.exported FROM symbols s JOIN files f USING (fk) LEFT JOIN symbols p ON p.sk = s.parent_sk",
        "refs": "SELECT r.symbol_name, f.path, r.line, r.col, r.role, e.id, r.qualifier FROM refs r"
        " JOIN files f USING (fk) LEFT JOIN symbols e ON e.sk = r.enclosing_sk",
        "edges": "SELECT r.col, r.symbol_name, a.id, b.id, e.kind, e.confidence, f.path, e.line FROM edges e"
        " JOIN refs r USING (rid) LEFT JOIN symbols a ON a.sk = e.src_sk JOIN symbols b ON b.sk = e.dst_sk"
        " JOIN files f ON f.fk = e.fk",
        "imports": "SELECT f.path, i.module, i.name, i.alias, i.line, t.path FROM imports i JOIN files f USING (fk)"
        " LEFT JOIN files t ON t.fk = i.target_fk",
        "files": "SELECT path, lang, content_hash, parse_status, round(rank, 9) FROM files",
    }
    try:
        return {name: sorted(con.execute(sql).fetchall(), key=repr) for name, sql in queries.items()}
    finally:
        con.close()


def test_parallel_and_serial_full_builds_agree(index: CodeIndex, tmp_path: Path) -> None:
    """The parallel build (workers encode JSON lines, DuckDB bulk-loads them) and the in-process one give
    the same index (reference numbers aside: the parallel scan deals the largest files out first)."""
    from ctxops_code_graph.builder import IndexWriter

    assert IndexWriter(index.root).build(full=True, workers=2).timings["scan"] > 0
    parallel = _snapshot_facts(index)
    IndexWriter(index.root).build(full=True, workers=1)
    serial = _snapshot_facts(index)
    assert len(parallel["refs"]) > 2000 and len(parallel["edges"]) > 1000
    for table in parallel:
        assert parallel[table] == serial[table], table


def _key_orders(ix: CodeIndex) -> dict[str, list[tuple[object, ...]]]:
    import sqlite3

    from ctxops_code_graph.layout import IndexLayout

    current = IndexLayout(ix.root).current_lookup()
    assert current is not None
    con = sqlite3.connect(current)
    try:
        return {
            "symbols by sk": con.execute("SELECT id FROM symbols ORDER BY sk").fetchall(),
            "files by fk": con.execute("SELECT path FROM files ORDER BY fk").fetchall(),
            "refs by rid": con.execute(
                "SELECT r.rid, f.path, r.line, r.col, r.symbol_name, r.role FROM refs r JOIN files f USING (fk)"
                " ORDER BY r.rid"
            ).fetchall(),
        }
    finally:
        con.close()


def test_the_scan_keyed_snapshot_equals_one_copied_from_the_build_store(index: CodeIndex) -> None:
    """A full build's snapshot (references written by the scan workers into shards, keys taken from the
    discovered files) holds the same facts in the same key order as one copied from the build store alone."""
    from ctxops_code_graph import duck_store, lookup_db
    from ctxops_code_graph.builder import IndexWriter
    from ctxops_code_graph.layout import IndexLayout

    IndexWriter(index.root).build(full=True, workers=2)
    built, built_orders = _snapshot_facts(index), _key_orders(index)
    layout = IndexLayout(index.root)
    con = duck_store.connect(layout.duckdb_path)
    try:
        lookup_db.publish(layout, lookup_db.write_generation(layout, con))
    finally:
        con.close()
    copied, copied_orders = _snapshot_facts(index), _key_orders(index)
    assert len(built["refs"]) > 2000
    # The published store keeps no signature or doc (`duck_store.SNAPSHOT_ONLY`: the scan's shards give the
    # snapshot's): the same symbols otherwise.
    assert any(r[8] is not None for r in built["symbols"])
    assert all(r[8] is None and r[9] is None for r in copied["symbols"])
    built["symbols"] = sorted(((*r[:8], None, None, *r[10:]) for r in built["symbols"]), key=repr)
    assert built == copied
    assert built_orders == copied_orders
    assert [p for (p,) in built_orders["files by fk"]] == sorted(p for (p,) in built_orders["files by fk"])
    assert not list(layout.index_dir.glob("code-building.load*")), "scratch files left behind"
