"""Where a full build's CPU goes, by kind of code: tree-sitter, code-scan's Python, DuckDB, SQLite, JSON.

    uv run python bench/build_cpu_profile.py DIR [--top 25] [--out profile.txt]

Runs `IndexWriter(DIR).build(full=True, workers=1)` in this process under cProfile with a CPU clock
(`time.process_time`: every thread's CPU, so a DuckDB statement's time is its threads' CPU while it runs).
With one worker the scan runs in this process (no fork), and its one chunk is loaded after the scan ends,
so no two kinds of work overlap. Each function's own time (`tottime`) is put in a bucket: tree-sitter's
parse, its tags query, the other tree-sitter calls (node access by method), code-scan's Python (what the
extraction does beyond tree-sitter), msgspec, SQLite, DuckDB, the rest of Python. Node attributes that
tree-sitter implements as C getters (`node.type`, `node.children`) are not calls to cProfile: their cost
lands in the Python function that reads them; nor are DuckDB's (pybind11) methods: a statement's CPU is
the own time of the code-graph function that runs it (the build's phases tell them apart). Prints the
buckets, the build's own CPU by phase, and the top functions; compare with `bench/parse_floor.py DIR --workers 1`.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sys
import time
from pathlib import Path

_BUCKETS = (
    ("tree-sitter parse", lambda f, n: "parse" in n and "tree_sitter" in n),
    ("tree-sitter query", lambda f, n: "QueryCursor" in n or ("matches" in n and "tree_sitter" in n)),
    ("tree-sitter other calls", lambda f, n: "tree_sitter" in n or "tree_sitter" in f),
    ("msgspec (JSON lines)", lambda f, n: "msgspec" in n or "msgspec" in f),
    ("SQLite (shards, snapshot)", lambda f, n: "sqlite3" in n),
    ("DuckDB (load, resolution, file graph, compaction)", lambda f, n: "duckdb" in n.lower() or "duckdb" in f),
    ("code-scan Python (extraction)", lambda f, n: "ctxops_code_scan" in f),
    # (DuckDB's methods are pybind11 functions, which cProfile does not see as calls: a statement's CPU is
    # the own time of the code-graph function that runs it)
    ("code-graph Python + the DuckDB statements it runs", lambda f, n: "ctxops_code_graph" in f),
)


def bucket(filename: str, name: str) -> str:
    for label, test in _BUCKETS:
        if test(filename, name):
            return label
    return "other Python and builtins"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", type=Path)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--out", type=Path, help="write pstats' full listing here")
    args = ap.parse_args()
    from ctxops_code_graph.builder import IndexWriter

    prof = cProfile.Profile(time.process_time)
    cpu0 = time.process_time()
    prof.enable()
    report = IndexWriter(args.root.resolve()).build(full=True, workers=1)
    prof.disable()
    total = time.process_time() - cpu0
    stats = pstats.Stats(prof)
    sums: dict[str, float] = {}
    rows = []
    for (filename, _line, name), (_cc, calls, tottime, _ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        label = bucket(filename, name)
        sums[label] = sums.get(label, 0.0) + tottime
        rows.append((tottime, calls, f"{Path(filename).name}:{name}", label))
    rows.sort(reverse=True)
    out = {
        "cpu_s": round(total, 2),
        "phases_cpu_s": report.cpu,
        "buckets_cpu_s": {k: round(v, 2) for k, v in sorted(sums.items(), key=lambda kv: -kv[1])},
        "top": [f"{t:7.2f} s {c:>9} {where} [{label}]" for t, c, where, label in rows[: args.top]],
    }
    print(json.dumps(out, indent=1))
    if args.out:
        with open(args.out, "w") as fh:
            pstats.Stats(prof, stream=fh).sort_stats("tottime").print_stats(200)
    return 0


if __name__ == "__main__":
    sys.exit(main())
