"""How many tags-query patterns real code keeps open at once, and how deep a match starts: the evidence for
code-scan's `extract.MATCH_LIMIT` and `MAX_START_DEPTH` (issue 21, hostile nesting).

    uv run python bench/query_limits.py DIR... [--limits 8,16,32,64,256] [--depths 100,200,400,800,1600,4096]

Every file `language_for_path` gives a grammar (at most 1 MB, the scan's cap), cut by the scan's depth bound
as a build cuts it, parsed, then queried once with no limit and once per limit / start depth: prints how many
files exceed each match limit (tree-sitter's `did_exceed_match_limit`) and how many lose a match when no
pattern may start deeper than each depth (match counts compared), with the first few such files.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path


def main() -> int:
    import tree_sitter
    from ctxops_code_scan.depth import cap_depth, cap_indent
    from ctxops_code_scan.extract import _parser
    from ctxops_code_scan.languages import language_for_path, ts_query

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--limits", default="8,16,32,64,256")
    ap.add_argument("--depths", default="100,200,400,800,1600,4096")
    args = ap.parse_args()
    limits = [int(x) for x in args.limits.split(",")]
    depths = [int(x) for x in args.depths.split(",")]
    exceeded: dict[int, list[str]] = {n: [] for n in limits}
    lost: dict[int, list[str]] = {d: [] for d in depths}
    files = 0
    for root in args.dirs:
        for top, dirs, names in os.walk(root):
            dirs[:] = [d for d in dirs if d not in (".git", ".meta", "node_modules")]
            for name in names:
                path = Path(top) / name
                spec = language_for_path(str(path))
                if spec is None or spec.grammar is None or path.stat().st_size > 1 << 20:
                    continue
                data = path.read_bytes()
                if spec.name == "python":
                    data, _ = cap_indent(data)
                data, _ = cap_depth(data, spec.name)
                tree = _parser(spec.name).parse(data)
                query = ts_query(spec.name)
                files += 1
                whole = len(tree_sitter.QueryCursor(query).matches(tree.root_node))
                for limit in limits:
                    cursor = tree_sitter.QueryCursor(query, match_limit=limit)
                    cursor.matches(tree.root_node)
                    if cursor.did_exceed_match_limit:
                        exceeded[limit].append(str(path))
                for depth in depths:
                    cursor = tree_sitter.QueryCursor(query)
                    cursor.set_max_start_depth(depth)
                    if len(cursor.matches(tree.root_node)) != whole:
                        lost[depth].append(str(path))
    print(json.dumps({"files": files}))
    for limit in limits:
        print(json.dumps({"match_limit": limit, "files_exceeding": len(exceeded[limit]), "first": exceeded[limit][:4]}))
    for depth in depths:
        print(
            json.dumps({"max_start_depth": depth, "files_losing_matches": len(lost[depth]), "first": lost[depth][:4]})
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
