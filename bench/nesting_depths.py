"""The bracket depth of real files (`depth.max_depth`, the bound's measure): the distribution and the deepest.

    uv run python bench/nesting_depths.py DIR [DIR ...] [--all]

Every file `discover` would scan under each DIR (with `--all`, also the ones it skips as minified,
generated or vendored, by extension) in a tree-sitter language; prints per language the count, the
percentiles, the maximum with its files, the files past `depth.MAX_DEPTH` brackets or `MAX_INDENT` Python
indentation levels (the ones whose extraction the bounds change), and the CPU of the measures.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


def main() -> int:
    from ctxops_code_scan.depth import MAX_DEPTH, MAX_INDENT, cap_indent, max_depth
    from ctxops_code_scan.discover import discover
    from ctxops_code_scan.languages import language_for_path

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", type=Path, nargs="+")
    ap.add_argument("--all", action="store_true")
    args = ap.parse_args()
    depths: dict[str, list[tuple[int, str]]] = {}
    cpu = 0.0
    past: list[str] = []  # files past a bound: their output would change
    for given in args.dirs:
        root = given.resolve()
        if args.all:
            items = [(str(p.relative_to(root)), language_for_path(str(p))) for p in root.rglob("*") if p.is_file()]
            pairs = [(rel, spec.name) for rel, spec in items if spec is not None and spec.grammar is not None]
        else:
            pairs = [(f.path, f.lang) for f in discover(root).files]
        for rel, lang in pairs:
            data = (root / rel).read_bytes()
            if len(data) > 1 << 20:
                continue
            t0 = time.process_time()
            d = max_depth(data, lang)
            cut = lang == "python" and cap_indent(data)[1] > 0
            cpu += time.process_time() - t0
            depths.setdefault(lang, []).append((d, f"{root.name}/{rel}"))
            if cut or d > MAX_DEPTH:
                past.append(f"{root.name}/{rel} ({d} brackets{', indentation' if cut else ''})")
    for lang, rows in sorted(depths.items()):
        rows.sort()
        ds = [d for d, _ in rows]
        pick = {f"p{q}": ds[min(len(ds) - 1, len(ds) * q // 100)] for q in (50, 90, 99)}
        top = [f"{p} ({d})" for d, p in rows[-3:][::-1]]
        print(json.dumps({"lang": lang, "files": len(ds), **pick, "max": ds[-1], "deepest": top}))
    files = sum(len(rows) for rows in depths.values())
    print(json.dumps({"files": files, "past_the_bounds": past, "bounds": [MAX_DEPTH, MAX_INDENT]}))
    print(json.dumps({"measure_cpu_s": round(cpu, 2)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
