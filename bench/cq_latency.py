"""`cq def NAME` as a fresh process against `rg -n 'def NAME'`, on the CPython stdlib corpus and on a
corpus ten times larger (the same files under copy0/ ... copy9/). Both tools run side by side on the
same names, alternating, after one warm-up each; the figure is the median wall time.

    uv run python bench/cq_latency.py            # targets: <= 3x rg on 1x, faster than rg on 10x
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from cq_corpus import make_corpus
from ctxops_code_query.ripgrep import find_rg

NAMES = ["urlopen", "getaddrinfo", "dedent", "OrderedDict", "make_archive", "SequenceMatcher", "quote_plus"]


def wall(argv: list[str], cwd: Path) -> tuple[float, str]:
    t0 = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    return time.perf_counter() - t0, done.stdout


def measure(root: Path, runs: int) -> tuple[float, float, int]:
    cq = shutil.which("cq") or str(Path(sys.executable).parent / "cq")
    rg = str(find_rg())
    cq_times: list[float] = []
    rg_times: list[float] = []
    for name in NAMES:  # warm-up: page cache, and cq's staleness check settles
        wall([cq, "def", name, "--no-cache"], root)
        wall([rg, "--no-config", "-n", f"def {name}"], root)
    answered = 0
    for _ in range(runs):
        for name in NAMES:
            t, out = wall([cq, "def", name, "--no-cache"], root)
            cq_times.append(t)
            answered += f"{name}" in out
            t, _ = wall([rg, "--no-config", "-n", f"def {name}"], root)
            rg_times.append(t)
    return statistics.median(cq_times), statistics.median(rg_times), answered


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", default="/tmp/cq-bench")
    ap.add_argument("--runs", type=int, default=5, help="rounds over the names (each name once per round)")
    args = ap.parse_args()
    work = Path(args.work)
    rows = []
    for label, copies in (("1x", 1), ("10x", 10)):
        root = make_corpus(work / f"corpus-{label}" if copies > 1 else work / "corpus", copies=copies)
        files = sum(1 for _ in root.rglob("*.py"))
        t0 = time.perf_counter()
        subprocess.run([shutil.which("cq") or "cq", "index", "--root", str(root)], capture_output=True, check=False)
        built = time.perf_counter() - t0
        cq_p50, rg_p50, answered = measure(root, args.runs)
        rows.append((label, files, built, cq_p50, rg_p50, answered))
        print(
            f"{label:>4}: {files} files (index {built:.0f} s): cq def p50 {cq_p50 * 1000:.1f} ms, "
            f"rg p50 {rg_p50 * 1000:.1f} ms, cq/rg {cq_p50 / rg_p50:.2f}x; "
            f"answered {answered}/{args.runs * len(NAMES)}",
            flush=True,
        )
    print()
    for label, _, _, cq_p50, rg_p50, _ in rows:
        target = "<= 3x" if label == "1x" else "< 1x"
        print(f"{label}: cq/rg = {cq_p50 / rg_p50:.2f}x (target {target})")
    print(f"cpus: {os.cpu_count()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
