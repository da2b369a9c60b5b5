"""Two lookup snapshots of one corpus, table by table through the views: the same rows, or where not.

    uv run python bench/cq_index_compare.py BEFORE.sqlite AFTER.sqlite

A change of the snapshot's layout (how ids, references or edges are stored) must leave what the read API
sees unchanged. Keys (`fk`, `sk`, `rid`) may differ between layouts, so every key is read as what it names
(a path, a symbol id); rows are compared in a fixed order. Exit 0 when every table is the same.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys

QUERIES = {
    "files": "SELECT path, lang, size, content_hash, parse_status, error, rank FROM files ORDER BY path",
    "symbols": "SELECT s.id, s.name, s.qualname, s.kind, s.lang, f.path, s.line, s.end_line, s.signature, s.doc,"
    " p.id, s.exported FROM symbols s LEFT JOIN files f ON f.fk = s.fk LEFT JOIN symbols p ON p.sk = s.parent_sk"
    " ORDER BY 1, 6, 7",
    "refs": "SELECT r.rid, r.symbol_name, f.path, r.line, r.col, r.role, e.id, r.qualifier FROM refs r"
    " LEFT JOIN files f ON f.fk = r.fk LEFT JOIN symbols e ON e.sk = r.enclosing_sk ORDER BY r.rid",
    "edges": "SELECT e.rid, a.id, b.id, e.kind, e.confidence, f.path, e.line, e.resolution FROM edges e"
    " LEFT JOIN symbols a ON a.sk = e.src_sk LEFT JOIN symbols b ON b.sk = e.dst_sk LEFT JOIN files f ON f.fk = e.fk"
    " ORDER BY 1, 2, 3, 4, 5, 6, 7, 8",
    "imports": "SELECT f.path, i.module, i.name, i.alias, i.line, t.path FROM imports i LEFT JOIN files f"
    " ON f.fk = i.fk LEFT JOIN files t ON t.fk = i.target_fk ORDER BY 1, 2, 3, 4, 5, 6",
    "file_edges": "SELECT a.path, b.path, e.kind, e.weight FROM file_edges e LEFT JOIN files a ON a.fk = e.src_fk"
    " LEFT JOIN files b ON b.fk = e.dst_fk ORDER BY 1, 2, 3, 4",
    "skipped": "SELECT path, reason, size FROM skipped ORDER BY path",
}


# With `--by-position`: references and edges named by where the reference is (path, line, column, name),
# not by `rid`, which numbers references in the order the scan's chunks came back (a change of chunking
# renumbers them without changing a row).
BY_POSITION = {
    "refs": "SELECT r.symbol_name, f.path, r.line, r.col, r.role, e.id, r.qualifier FROM refs r"
    " LEFT JOIN files f ON f.fk = r.fk LEFT JOIN symbols e ON e.sk = r.enclosing_sk ORDER BY 2, 3, 4, 1, 5, 6, 7",
    "edges": "SELECT f.path, e.line, r.col, r.symbol_name, a.id, b.id, e.kind, e.confidence, e.resolution FROM edges e"
    " JOIN refs r ON r.rid = e.rid LEFT JOIN symbols a ON a.sk = e.src_sk LEFT JOIN symbols b ON b.sk = e.dst_sk"
    " LEFT JOIN files f ON f.fk = e.fk ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9",
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--by-position", action="store_true", help="references and edges by position, not rid")
    args = ap.parse_args()
    queries = {**QUERIES, **BY_POSITION} if args.by_position else QUERIES
    a, b = (sqlite3.connect(f"file:{p}?mode=ro", uri=True) for p in (args.before, args.after))
    differ = 0
    for table, query in queries.items():
        rows_a, rows_b = a.execute(query).fetchall(), b.execute(query).fetchall()
        same = rows_a == rows_b
        differ += not same
        first = (
            ""
            if same
            else f" (first difference: {next(((x, y) for x, y in zip(rows_a, rows_b, strict=False) if x != y), None)})"
        )
        print(f"{table:<11} {len(rows_a):>8} {len(rows_b):>8}  {'same' if same else 'DIFFERENT'}{first}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
