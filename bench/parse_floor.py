"""The floor under any build made of code-scan's parts: tree-sitter's parse and tags query alone.

Reads every file of ROOT that code-scan would give to tree-sitter, parses it with code-scan's own parser
and runs code-scan's own tags query over the tree, consuming the matches and doing nothing else: no
symbols, references, hashing, storage or resolution. The work is spread over every core with a fork pool,
as the full build spreads its scan. Whatever the build does beyond this is Python and storage; so this
run's time, against `ctags -R` on the same tree, is how close to ctags any build on these parts can come.

    uv run python bench/parse_floor.py ROOT [--workers N]      # prints one JSON line: files, bytes, matches
    uv run python bench/code_index.py --full-only --rounds 3 --floor   # side by side with ctags and the build
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from multiprocessing import get_context
from pathlib import Path


def _work(job: tuple[str, list[tuple[str, str]]]) -> tuple[int, int, int]:
    import tree_sitter
    from ctxops_code_scan.extract import _parser
    from ctxops_code_scan.languages import ts_query

    root, items = job
    files = size = matches = 0
    for rel, lang in items:
        try:
            data = (Path(root) / rel).read_bytes()
        except OSError:
            continue
        tree = _parser(lang).parse(data)
        matches += len(tree_sitter.QueryCursor(ts_query(lang)).matches(tree.root_node))
        files += 1
        size += len(data)
    return files, size, matches


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", type=Path)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    from ctxops_code_scan.discover import discover
    from ctxops_code_scan.languages import BY_NAME

    root = args.root.resolve()
    parsed = [f for f in discover(root).files if f.lang in BY_NAME and BY_NAME[f.lang].grammar is not None]
    items = [(f.path, f.lang) for f in parsed]
    chunks = [(str(root), items[i :: args.workers * 8]) for i in range(args.workers * 8)]
    with get_context("fork").Pool(args.workers) as pool:
        done = pool.map(_work, chunks, chunksize=1)
    files, size, matches = (sum(col) for col in zip(*done, strict=True))
    print(json.dumps({"files": files, "bytes": size, "matches": matches, "workers": args.workers}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
