"""Resolution within a small DuckDB memory cap (issue 24 item 5): its heaviest statements run branch by
branch and a slice of references at a time, with the same edges as an uncapped run."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from ctxops_code_graph import duck_store, rid_slices
from ctxops_code_graph.builder import IndexWriter
from ctxops_code_graph.layout import IndexLayout
from repo_fixtures import make_repo

# One thread (DuckDB's default uses every core, each with its own buffers): the cap then measures the plan.
# As one statement, a hop of these receiver chains held more than 38 MiB (every branch's hash tables and shared
# CTEs at once; 12 modules x 12 functions still fit); run branch by branch, in slices, it stays under it.
CAP = "40MB"


def _chains(modules: int, functions: int) -> dict[str, str | bytes]:
    """Modules of classes whose methods return one another, and functions calling along the chains: every
    call's receiver is typed through several hops (`k.nxt().prev().work()`)."""
    files: dict[str, str | bytes] = {"pkg/__init__.py": ""}
    for i in range(modules):
        p = max(i - 1, 0)
        head = f"from .m{p} import K{p}\n\n\n" if i else ""
        body = [
            f"{head}class K{i}:\n",
            f'    def nxt(self) -> "K{i}":\n        return self\n\n',
            f"    def prev(self) -> K{p}:\n        return K{p}()\n\n",
            "    def work(self, x):\n        return x\n\n\n",
        ]
        for j in range(functions):
            body.append(
                f"def use{j}(k: K{i}):\n    k.nxt().prev().work({j})\n    y = K{i}()\n"
                f"    y.nxt().nxt().prev().nxt().work({j})\n    return k.prev().nxt()\n\n\n"
            )
        files[f"pkg/m{i}.py"] = "".join(body)
    return files


def _resolved(store: Path, copy: Path, memory: str | None) -> list[tuple[Any, ...]]:
    """The edges of a full resolution replayed on a copy of the build store, DuckDB capped at `memory`."""
    shutil.copyfile(store, copy)
    con = duck_store.connect(copy, memory_limit=memory)
    try:
        con.execute("SET threads TO 1")
        duck_store.resolve(con, all_refs=True)
        con.execute("RESET memory_limit")
        rows: list[tuple[Any, ...]] = con.execute("SELECT * FROM edges ORDER BY ALL").fetchall()
        return rows
    finally:
        con.close()


@pytest.fixture(scope="module")
def chains_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_repo(tmp_path_factory.mktemp("bounded") / "repo", _chains(20, 30))
    IndexWriter(root).build(full=True)
    return IndexLayout(root.resolve()).duckdb_path


def test_resolution_stays_under_a_small_cap_with_the_same_edges(
    chains_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    free = _resolved(chains_store, tmp_path / "free.duckdb", None)
    typed = sum(1 for e in free if e[-1] == "typed-receiver" or e[-1] == "return-type")
    assert typed > 500  # the chains are what the cap is about
    monkeypatch.setattr(rid_slices, "ROWS", 2000)  # several slices on this small repository
    assert _resolved(chains_store, tmp_path / "capped.duckdb", CAP) == free


def test_slices_cover_every_reference_once(tmp_path: Path) -> None:
    con = duck_store.connect(tmp_path / "s.duckdb")
    try:
        con.execute("CREATE TABLE t AS SELECT (i * 7) % 1000 AS rid FROM range(3000) r(i)")  # repeated rids
        wheres = list(rid_slices.ranges(con, "t", rows=128))
        counts = [con.execute(f"SELECT count(DISTINCT rid) FROM t WHERE {w}").fetchone()[0] for w in wheres]
        assert sum(counts) == 1000 and max(counts) <= 128 and len(wheres) == 8
        total = sum(con.execute(f"SELECT count(*) FROM t WHERE {w}").fetchone()[0] for w in wheres)
        assert total == 3000
        assert list(rid_slices.ranges(con, "t", rows=5000)) == ["TRUE"]
    finally:
        con.close()


def test_a_build_step_out_of_memory_under_the_cap_is_retried_under_the_fallback(
    chains_store: Path, tmp_path: Path
) -> None:
    import duckdb
    from ctxops_code_graph.builder import within_cap

    free = _resolved(chains_store, tmp_path / "free.duckdb", None)
    with pytest.raises(duckdb.OutOfMemoryException):  # the cap alone cannot hold the resolution
        _resolved(chains_store, tmp_path / "tiny.duckdb", "4MB")
    shutil.copyfile(chains_store, tmp_path / "retried.duckdb")
    con = duck_store.connect(tmp_path / "retried.duckdb", memory_limit="4MB")
    try:
        con.execute("SET threads TO 1")
        within_cap(con, lambda: duck_store.resolve(con, all_refs=True), fallback="1GB")
        raised = str(con.execute("SELECT current_setting('memory_limit')").fetchone()[0])
        assert raised.endswith("MiB") and float(raised.split(maxsplit=1)[0]) > 900, raised  # 1GB, as DuckDB prints it
        assert con.execute("SELECT * FROM edges ORDER BY ALL").fetchall() == free  # re-run from the start
    finally:
        con.close()


def test_a_full_build_runs_every_duckdb_step_under_256_mb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The parent's peak is DuckDB's cap plus what sits beside it: the cap must leave that room under 1 GiB
    (512 MB did not), and resolution, once the heaviest, fits the build's 256 MB like every other step."""
    from ctxops_code_graph import builder

    seen: list[int] = []
    for name in ("resolve", "rebuild_file_edges", "write_compacted"):
        original = getattr(duck_store, name)

        def spy(con: Any, *a: Any, _original: Any = original, **k: Any) -> Any:
            seen.append(con.execute("SELECT current_setting('memory_limit')").fetchone()[0])
            return _original(con, *a, **k)

        monkeypatch.setattr(duck_store, name, spy)
    root = make_repo(tmp_path / "repo", _chains(2, 2))
    builder.IndexWriter(root).build(full=True)
    assert len(seen) == 3
    mib = [float(s.split()[0]) * (1024 if "GiB" in s else 1) for s in map(str, seen)]
    assert max(mib) <= 256, seen  # resolution, the file graph, the compaction (before: 512 MB, 512 MB, 256 MB)
