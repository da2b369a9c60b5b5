"""The extraction's work on every Nth file of a tree, counted in instructions: a figure the machine's load
does not move (CPU seconds on a shared 2-core machine move by ±15% from run to run).

    valgrind --tool=callgrind --callgrind-out-file=/dev/null .venv/bin/python bench/extract_instructions.py DIR
    PYTHONPATH=<main's src dirs> valgrind ... (the same command): the peer's

Runs `scan_bytes` (what a build's workers run) on every `--every`-th file (default 20) `discover` finds;
callgrind prints the process's instructions ("Collected"): Python's start-up, the imports and the queries'
compilation included, the same on both sides within a fraction of a percent. `--floor`: the same files through
`parse_floor.py`'s work only (parse, the tags query's matches).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", type=Path)
    ap.add_argument("--every", type=int, default=20)
    ap.add_argument("--floor", action="store_true", help="parse + the tags query only (parse_floor.py's work)")
    args = ap.parse_args()
    import tree_sitter
    from ctxops_code_scan.discover import discover
    from ctxops_code_scan.extract import _parser
    from ctxops_code_scan.languages import BY_NAME, ts_query
    from ctxops_code_scan.scan import scan_bytes

    root = args.root.resolve()
    files = discover(root).files[:: args.every]
    for f in files:
        data = (root / f.path).read_bytes()
        if args.floor:
            if BY_NAME[f.lang].grammar is not None:
                tree = _parser(f.lang).parse(data)
                tree_sitter.QueryCursor(ts_query(f.lang)).matches(tree.root_node)
            continue
        scan_bytes(f.path, f.lang, data, size=len(data), mtime_ns=0)
    print(f"{len(files)} files", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
