"""Callers and callees walks on one snapshot, as lines to compare between two versions of code-graph.

    uv run python bench/cq_walk_compare.py SNAPSHOT.sqlite --symbols 200 --depth 2 > after.txt
    PYTHONPATH=<main's code-graph src> uv run python bench/cq_walk_compare.py OLD.sqlite ... > before.txt
    diff before.txt after.txt

Walks (`lookup_queries.walk`, both directions, calls) from every k-th symbol by id that has edges, each
printed with its rows as ids and paths, in the order the walk returns them; walks that reach the row cap
are marked (which rows a capped walk keeps is arbitrary) and printed as a count only.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys

from ctxops_code_graph import lookup_queries


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("snapshot")
    ap.add_argument("--symbols", type=int, default=200)
    ap.add_argument("--depth", type=int, default=2)
    args = ap.parse_args()
    con = sqlite3.connect(f"file:{args.snapshot}?mode=ro", uri=True)
    ids = [
        r[0]
        for r in con.execute(
            "SELECT s.id FROM symbols s WHERE EXISTS (SELECT 1 FROM edges e WHERE e.dst_sk = s.sk) ORDER BY s.id"
        )
    ]
    step = max(1, len(ids) // max(1, args.symbols))
    names = dict(con.execute("SELECT sk, id FROM symbols").fetchall())
    for sid in ids[::step][: args.symbols]:
        key = lookup_queries.symbol_key(con, sid)
        assert key is not None, sid
        for upward in (True, False):
            for sure in (False, True):
                rows = lookup_queries.walk(con, key, args.depth, ("call",), upward, certain_only=sure)
                head = f"{'up' if upward else 'down'}{' certain' if sure else ''} {sid}"
                if len(rows) >= lookup_queries.WALK_LIMIT // 2:
                    print(f"{head}: {len(rows)} rows (near the cap)")
                    continue
                print(f"{head}: {len(rows)}")
                for src, dst, kind, conf, path, line, res, depth in rows:
                    print(f"  {names.get(src)} -> {names.get(dst)} {kind} {conf} {path}:{line} {res} {depth}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
