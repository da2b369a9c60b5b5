"""The full build's store side, part by part: CPU of each on the thread that runs it (no cProfile).

    uv run python bench/build_stores_cpu.py DIR [--workers 2]
    uv run python bench/build_stores_cpu.py --compacted STORE.duckdb

The first form builds DIR in full (`IndexWriter.build`) with these functions wrapped to add up their own
thread's CPU (`time.thread_time`; DuckDB runs a statement on the calling thread when `threads` is 1, as the
build sets it for the load and the compacted copy; the file graph and the snapshot's copies run beside):
`bulk_load._load_chunk` (the chunks into DuckDB), the snapshot's early copy (`_copy_early`, of which
`_copy_shards`), its edge copy (`_copy_edges`, of which `insert_edges`: the Python rows and SQLite), `finish`
(the late tables, indexes, `VACUUM INTO`), `rebuild_file_edges`, `pagerank` and `write_compacted`. It prints
them beside the build's phases (`BuildReport.cpu`, workers included).

The second form copies a built store into memory and times `write_compacted`'s copy table by table, with
and without its `ORDER BY`s, three times (what the sorts cost; the file written is printed).
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def _wrap(owner: Any, name: str, acc: dict[str, float], label: str | None = None) -> None:
    fn = getattr(owner, name)
    key = label or name

    @functools.wraps(fn)
    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.thread_time()
        try:
            return fn(*args, **kwargs)
        finally:
            acc[key] = acc.get(key, 0.0) + time.thread_time() - start

    setattr(owner, name, timed)


def build(root: Path, workers: int) -> None:
    from ctxops_code_graph import builder, bulk_load, duck_store, lookup_db
    from ctxops_code_graph.builder import IndexWriter

    acc: dict[str, float] = {}
    writer_class = lookup_db.GenerationWriter
    for name in ("_copy_early", "_copy_shards", "_copy_edges", "finish"):
        _wrap(writer_class, name, acc)
    _wrap(lookup_db, "insert_edges", acc)
    _wrap(duck_store, "write_compacted", acc)
    _wrap(duck_store, "rebuild_file_edges", acc)
    _wrap(builder, "pagerank", acc)
    _wrap(bulk_load, "_load_chunk", acc)
    report = IndexWriter(root).build(full=True, workers=workers)
    print(json.dumps({"parts_cpu_s": {k: round(v, 3) for k, v in acc.items()}, "phases_cpu_s": report.cpu}))


def compacted(store: Path) -> None:
    import duckdb
    from ctxops_code_graph.duck_store import _COMPACT_ORDER, PUBLISHED_BLOCK_SIZE

    con = duckdb.connect(":memory:", config={"memory_limit": "256MB"})
    con.execute("ATTACH ? AS s (READ_ONLY)", [str(store)])
    con.execute("COPY FROM DATABASE s TO memory")
    con.execute("DETACH s")
    tables = [
        str(r[0])
        for r in con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = 'memory'").fetchall()
    ]
    con.execute("SET threads TO 1")
    work = Path(tempfile.mkdtemp(prefix="stores-cpu-"))
    try:
        for variant in ("ordered", "unordered", "ordered", "unordered", "ordered", "unordered"):
            target = work / f"{variant}.duckdb"
            for stale in (target, target.with_name(target.name + ".wal")):
                stale.unlink(missing_ok=True)
            con.execute(f"ATTACH '{target}' AS compacted (BLOCK_SIZE {PUBLISHED_BLOCK_SIZE})")
            con.execute("COPY FROM DATABASE memory TO compacted (SCHEMA)")
            parts: dict[str, float] = {}
            for table in tables:
                order = _COMPACT_ORDER.get(table) if variant == "ordered" else None
                by = f" ORDER BY {order}" if order else ""
                start = time.process_time()
                con.execute(f'INSERT INTO compacted."{table}" SELECT * FROM memory."{table}"{by}')
                parts[table] = round(time.process_time() - start, 3)
            start = time.process_time()
            con.execute("CHECKPOINT compacted")
            parts["checkpoint"] = round(time.process_time() - start, 3)
            con.execute("DETACH compacted")
            print(variant, round(sum(parts.values()), 2), "CPU-s", target.stat().st_size, "bytes", parts)
    finally:
        for path in work.glob("*"):
            path.unlink()
        work.rmdir()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", type=Path, nargs="?")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--compacted", type=Path, help="a built store: time write_compacted's copy, table by table")
    args = ap.parse_args()
    if args.compacted is not None:
        compacted(args.compacted)
    elif args.root is not None:
        build(args.root.resolve(), args.workers)
    else:
        ap.error("DIR or --compacted STORE")
    return 0


if __name__ == "__main__":
    sys.exit(main())
