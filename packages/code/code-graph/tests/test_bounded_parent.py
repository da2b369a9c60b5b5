"""What the build's parent holds beside DuckDB's cap does not grow with the corpus (issue 24 item 5): the
scan's imports and type facts go to the store as each chunk loads, not into Python lists kept to the end;
resolution's closure walk works on the references that name a closure of their own file."""

from __future__ import annotations

import gc
import tracemalloc
from pathlib import Path
from typing import Any

from ctxops_code_graph import bulk_load, duck_store
from ctxops_code_graph.builder import IndexWriter
from ctxops_code_graph.layout import IndexLayout
from ctxops_code_scan.records import Import
from repo_fixtures import make_repo


def _chunk(n: int, files: int, each: int) -> bulk_load.Chunk:
    paths = [f"c{n}/m{i}.py" for i in range(files)]
    return bulk_load.Chunk(
        files=[(p, "python", 10, 0, f"h{p}", "ok", None) for p in paths],
        skipped=[],
        imports=[(p, "python", f"pkg.m{j}", f"name{j}", f"alias{j}", j + 1) for p in paths for j in range(each)],
        types=[(p, "x", "int", 1) for p in paths],
        symbols_json=None,
        refs_json=None,
        n_refs=0,
    )


def _loader(tmp_path: Path) -> tuple[bulk_load.ChunkLoader, list[Any]]:
    opened: list[Any] = []

    def connect() -> Any:
        con = duck_store.connect(tmp_path / "store.duckdb")
        duck_store.create_tables(con)
        opened.append(con)
        return con

    return bulk_load.ChunkLoader(connect, tmp_path / "load"), opened


def test_the_loader_keeps_no_import_or_type_rows_in_python(tmp_path: Path) -> None:
    chunks = [_chunk(n, 50, 40) for n in range(30)]  # 60,000 imports, 1,500 files
    load, opened = _loader(tmp_path)
    load.connection()  # (DuckDB's import and the store's opening are not what is measured)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for chunk in chunks:
            load.add(chunk)
        load.close()
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    # (before: every import as an `Import` record and every type fact as a tuple, ~14 MB here; the files'
    # (path, lang) pairs and DuckDB's Python objects are what is left)
    assert held < 1_500_000, held
    found = [imp for batch in load.imports(batch=7_000) for imp in batch]
    expected = [
        Import(path=i[0], lang=i[1], module=i[2], name=i[3], alias=i[4], line=i[5]) for c in chunks for i in c.imports
    ]
    assert found == expected  # every import, in the order the scan found them
    con = opened[0]
    assert con.execute("SELECT count(*) FROM types").fetchone() == (1_500,)
    assert load.files[:2] == [("c0/m0.py", "python"), ("c0/m1.py", "python")]
    load.drop_imports()
    assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'scan_imports'").fetchone() == (0,)
    load.remove()
    con.close()


def _closures(modules: int, functions: int) -> dict[str, str | bytes]:
    """`pkg/m0.py` defines closures `n0`..`n3` in each function; every module calls those names from functions
    nested two deep (only m0's calls can reach a closure of that name)."""
    calls = "".join(f"            n{k}()\n" for k in range(4))
    files: dict[str, str | bytes] = {}
    for i in range(modules):
        body = []
        for j in range(functions):
            defs = "".join(f"    def n{k}():\n        return {k}\n" for k in range(4)) if i == 0 else ""
            nested = f"    def g():\n        def h():\n{calls}        return h\n    return g\n\n\n"
            body.append(f"def f{j}():\n{defs}{nested}")
        files[f"pkg/m{i}.py"] = "".join(body)
    return files


def test_the_closure_walk_starts_from_the_references_naming_a_closure_of_their_file(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", _closures(12, 10))
    IndexWriter(root).build(full=True)
    con = duck_store.connect(IndexLayout(root.resolve()).duckdb_path)
    try:
        duck_store.resolve(con, all_refs=True)
        walked = con.execute("SELECT DISTINCT r.path FROM closure_refs c JOIN refs r USING (rid)").fetchall()
        # (before: every call of n0..n3 from a nested function in any module was walked up every symbol)
        assert walked == [("pkg/m0.py",)]
        edges = con.execute(
            "SELECT path, count(*) FROM edges WHERE kind = 'call' AND resolution = 'local' AND dst LIKE '%.n_().'"
            " GROUP BY path"
        ).fetchall()
        assert edges == [("pkg/m0.py", 40)]  # each of m0's calls reaches the closure of its own function
        outside = con.execute("SELECT count(*) FROM edges WHERE path <> 'pkg/m0.py' AND dst LIKE '%.n_().'").fetchone()
        assert outside == (0,)
    finally:
        con.close()
