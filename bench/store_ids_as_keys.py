"""How big a build store would be with its symbol ids as integer keys: a measurement, not a format.

    uv run python bench/store_ids_as_keys.py ROOT/.meta/index/code.duckdb

Copies every table of the store twice into fresh files (64 KiB blocks, one thread, rows in the store's
order): once as it is, once with `symbols.id`, `symbols.parent`, `refs.enclosing`, `edge_rows.dst` and
`types.owner` replaced by a symbol's number (its rank by path, line, id), and prints the three sizes.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import duckdb

_KEYED = {
    "symbols": "SELECT k.sk AS id, s.* EXCLUDE (id, parent), p.sk AS parent FROM s.symbols s JOIN k USING (id)"
    " LEFT JOIN k p ON p.id = s.parent ORDER BY s.rowid",
    "refs": "SELECT r.* EXCLUDE (enclosing), e.sk AS enclosing FROM s.refs r LEFT JOIN k e ON e.id = r.enclosing"
    " ORDER BY r.rowid",
    "edge_rows": "SELECT e.* EXCLUDE (dst), k.sk AS dst FROM s.edge_rows e LEFT JOIN k ON k.id = e.dst"
    " ORDER BY e.rowid",
    "types": "SELECT t.* EXCLUDE (owner), k.sk AS owner FROM s.types t LEFT JOIN k ON k.id = t.owner ORDER BY t.rowid",
}


def copy_size(store: str, keyed: bool, scratch: str) -> int:
    target = str(Path(scratch) / f"copy{int(keyed)}.duckdb")
    con = duckdb.connect()
    con.execute("SET threads TO 1")
    con.execute("ATTACH ? AS s (READ_ONLY)", [store])
    con.execute("ATTACH ? AS d (BLOCK_SIZE 65536)", [target])
    tables = [r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = 's'").fetchall()]
    if keyed:
        con.execute(
            "CREATE TEMP TABLE k AS SELECT id, row_number() OVER (ORDER BY path, line, id) AS sk FROM s.symbols"
        )
    for table in tables:
        query = _KEYED[table] if keyed and table in _KEYED else f'SELECT * FROM s."{table}" ORDER BY rowid'
        con.execute(f'CREATE TABLE d."{table}" AS {query}')
    con.execute("CHECKPOINT d")
    con.execute("DETACH d")
    con.close()
    return Path(target).stat().st_size


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("store")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        print(f"store {Path(args.store).stat().st_size:,} B")
        print(f"copy as it is {copy_size(args.store, False, scratch):,} B")
        print(f"copy, ids as keys {copy_size(args.store, True, scratch):,} B")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
