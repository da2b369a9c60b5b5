"""Two built DuckDB stores of one corpus, table by table: the same rows (as multisets), or how many differ.

    uv run python bench/duck_store_compare.py BEFORE.duckdb AFTER.duckdb

`cq_index_compare.py` compares the lookup snapshots; this compares the build store that updates write through
(every table, every column, `EXCEPT ALL` both ways; `meta`'s time row and `dirs`' root row left out: the root's
mtime moves when a build writes `.meta/` into it). Exit 0 when every table is the same.
"""

from __future__ import annotations

import argparse
import sys

import duckdb


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before")
    ap.add_argument("after")
    args = ap.parse_args()
    con = duckdb.connect()
    con.execute(f"ATTACH '{args.before}' AS a (READ_ONLY)")
    con.execute(f"ATTACH '{args.after}' AS b (READ_ONLY)")
    tables = sorted(
        {
            r[0]
            for r in con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name IN ('a', 'b')").fetchall()
        }
    )
    differ = 0
    for table in tables:
        where = {"meta": " WHERE key <> 'updated_at'", "dirs": " WHERE path <> ''"}.get(table, "")
        try:
            n_a, n_b, extra, missing = con.execute(
                f"SELECT (SELECT count(*) FROM a.{table}), (SELECT count(*) FROM b.{table}),"
                f" (SELECT count(*) FROM (SELECT * FROM b.{table}{where} EXCEPT ALL SELECT * FROM a.{table}{where})),"
                f" (SELECT count(*) FROM (SELECT * FROM a.{table}{where} EXCEPT ALL SELECT * FROM b.{table}{where}))"
            ).fetchone()
        except duckdb.Error as exc:
            print(f"{table}: not comparable ({type(exc).__name__}: {str(exc).splitlines()[0]})")
            differ += 1
            continue
        same = extra == 0 and missing == 0
        differ += not same
        verdict = "same" if same else "DIFFER"
        print(f"{table}: {verdict} ({n_a} / {n_b} rows; {extra} only after, {missing} only before)")
    print("differ:", differ)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
