"""A callgrind profile's instructions by shared object (self cost): the interpreter, tree-sitter's binding and
core, each grammar, msgspec, libc, DuckDB, SQLite.

    valgrind --tool=callgrind --callgrind-out-file=OUT .venv/bin/python bench/extract_instructions.py DIR
    uv run python bench/callgrind_objects.py OUT [--top 15]

A function's self cost is its cost lines less those that follow a `calls=` line (a call's inclusive cost, which
callgrind writes under the caller). `--top` lists the costliest functions of tree-sitter's objects.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

_NAMED = re.compile(r"^\((\d+)\)(?: (.*))?$")


def _name(table: dict[str, str], value: str) -> str:
    m = _NAMED.match(value)
    if not m:
        return value
    if m.group(2) is not None:
        table[m.group(1)] = m.group(2)
    return table.get(m.group(1), value)


def self_costs(path: Path) -> dict[tuple[str, str], int]:
    obs: dict[str, str] = {}
    fns: dict[str, str] = {}
    cost: dict[tuple[str, str], int] = defaultdict(int)
    ob = fn = "?"
    after_call = False
    with path.open(encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if line[:1].isdigit() or line[:1] in "+-*":
                if after_call:
                    after_call = False
                    continue
                parts = line.split()
                if len(parts) >= 2:
                    cost[(ob, fn)] += int(parts[1])
                continue
            after_call = False
            if line.startswith("ob="):
                ob = _name(obs, line[3:].strip())
            elif line.startswith("fn="):
                fn = _name(fns, line[3:].strip())
            elif line.startswith("cob="):
                _name(obs, line[4:].strip())
            elif line.startswith("cfn="):
                _name(fns, line[4:].strip())
            elif line.startswith("calls="):
                after_call = True
    return cost


def _kind(ob: str) -> str:
    name = Path(ob).name
    if "tree_sitter_" in ob:
        return "tree-sitter grammar " + ob.split("tree_sitter_")[1].split("/", maxsplit=1)[0]
    if "tree_sitter" in ob:
        return "tree-sitter (binding + core)"
    if name.startswith(("python", "libpython")):
        return "the interpreter (libpython)"
    if "msgspec" in ob:
        return "msgspec"
    if name.startswith(("libc.", "libc-", "ld-linux", "libm.")):
        return "libc, libm, ld.so"
    if "duckdb" in ob:
        return "DuckDB"
    if "sqlite" in ob:
        return "SQLite"
    return "other: " + name


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()
    cost = self_costs(args.out)
    total = sum(cost.values())
    kinds: dict[str, int] = defaultdict(int)
    for (ob, _fn), n in cost.items():
        kinds[_kind(ob)] += n
    for kind, n in sorted(kinds.items(), key=lambda kv: -kv[1]):
        print(f"{kind:45s} {n:16,d} {100 * n / total:5.1f}%")
    print(f"{'all':45s} {total:16,d}")
    ts = [(n, fn) for (ob, fn), n in cost.items() if "tree_sitter" in ob]
    for n, fn in sorted(ts, reverse=True)[: args.top]:
        print(f"  {fn:60s} {n:14,d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
