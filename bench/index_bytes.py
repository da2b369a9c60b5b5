"""Where a built index's bytes are: the lookup snapshot by table and index, the build store by table.

    uv run python bench/index_bytes.py ROOT [--json OUT]

Index / source as `cq status` and `bench/code_index_scale.py` count it: every `code*` file in `.meta/index/`
over the bytes of the files the index holds (`files.size`). The snapshot's tables and indexes from SQLite's
`dbstat`; the DuckDB store's tables by the 64 KiB blocks their columns use (`pragma_storage_info`: columns of
several tables can share a block, so the per-table figures overlap and are coarse).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
from pathlib import Path

import duckdb


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("root", type=Path)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    idx = args.root / ".meta" / "index"
    snap = idx / (idx / "code-lookup.current").read_text().strip()
    duck = idx / "code.duckdb"
    s = sqlite3.connect(f"file:{snap}?mode=ro", uri=True)
    source, files = s.execute("SELECT sum(size), count(*) FROM files").fetchone()
    total = sum(p.stat().st_size for p in idx.glob("code*") if p.is_file())
    out: dict[str, object] = {"source": source, "index": total, "snapshot": snap.stat().st_size}
    out["duckdb"] = duck.stat().st_size
    print(f"{args.root.name}: source {source:,} B ({files} files); index {total:,} B = {total / source:.3f}x")
    print(f"  snapshot {snap.stat().st_size:,} B, build store {duck.stat().st_size:,} B")
    snap_parts: dict[str, int] = {}
    for name, size in s.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC"):
        snap_parts[name] = size
        print(f"    snapshot {name:28s} {size:>12,}")
    d = duckdb.connect(str(duck), read_only=True)
    block = d.execute("SELECT block_size FROM pragma_database_size()").fetchone()[0]
    duck_parts: dict[str, int] = {}
    for (table,) in d.execute("SELECT table_name FROM duckdb_tables()").fetchall():
        blocks = d.execute(
            f"SELECT count(DISTINCT block_id) FROM pragma_storage_info('{table}') WHERE persistent"
        ).fetchone()[0]
        rows = d.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
        duck_parts[table] = blocks * block
        print(f"    store    {table:14s} rows {rows:>9,}  blocks {blocks:>5} = {blocks * block:>12,}")
    out["snap"], out["duck"] = snap_parts, duck_parts
    if args.json:
        args.json.write_text(json.dumps(out))


if __name__ == "__main__":
    main()
