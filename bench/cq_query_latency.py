"""Warm query latency on a built index, in-process: what the snapshot's layout changes, without a
process's start-up (the same for any layout). Run it under two versions of code-graph to compare.

    uv run python bench/cq_query_latency.py ROOT [--runs 15]
    PYTHONPATH=<main's package sources> uv run python bench/cq_query_latency.py OTHER_ROOT

For each name (the stdlib's, as `bench/cq_latency.py` uses): `definitions`, `references`,
`uncertain_references` (cq's "possible" list), and from the name's first definition `callers` and
`callees` at depth 1 and 3 and the lookup by id; each the median of ``--runs`` calls after one warm-up,
in milliseconds, with the sum over the names.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from ctxops_code_graph import CodeIndex

NAMES = ["urlopen", "getaddrinfo", "dedent", "OrderedDict", "make_archive", "SequenceMatcher", "quote_plus"]


def median_ms(call: Callable[[], object], runs: int) -> float:
    call()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", type=Path)
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    ix = CodeIndex(args.root, auto_update=False)
    ix.definitions(NAMES[0])
    ix.check_interval = float("inf")  # checked fresh once: the stat walk is not the query
    totals: dict[str, float] = {}
    for name in NAMES:
        first = ix.definitions(name)[0].id
        queries: dict[str, Callable[[], object]] = {
            "def": lambda: ix.definitions(name),  # noqa: B023 (called within this iteration)
            "def by id": lambda: ix.definitions(first),  # noqa: B023
            "refs": lambda: ix.references(name),  # noqa: B023
            "possible": lambda: ix.uncertain_references(name),  # noqa: B023
            "callers": lambda: ix.callers(first),  # noqa: B023
            "callers d3": lambda: ix.callers(first, 3),  # noqa: B023
            "callees": lambda: ix.callees(first),  # noqa: B023
            "callees d3": lambda: ix.callees(first, 3),  # noqa: B023
        }
        row = {what: median_ms(call, args.runs) for what, call in queries.items()}
        for what, ms in row.items():
            totals[what] = totals.get(what, 0.0) + ms
        print(f"{name:<17} " + "  ".join(f"{what} {ms:6.2f}" for what, ms in row.items()))
    print(f"{'sum (ms)':<17} " + "  ".join(f"{what} {ms:6.2f}" for what, ms in totals.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
