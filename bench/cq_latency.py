"""`cq def NAME` as a fresh process against `rg -n 'def NAME'`, on the CPython stdlib corpus and on a
corpus ten times larger (the same files under copy0/ ... copy9/). The tools run side by side on the
same names, alternating, after one warm-up each; the figure is the median wall time. `cq` is measured
twice: answering in its own process (the fallback) and through a running `cq serve` (the socket path).

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


def wall(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, str]:
    t0 = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False, env=env)
    return time.perf_counter() - t0, done.stdout


def measure(root: Path, runs: int) -> tuple[float, float, float, int]:
    """Median seconds of: cq in its own process, cq through `cq serve`, rg; and answers found."""
    cq = shutil.which("cq") or str(Path(sys.executable).parent / "cq")
    rg = str(find_rg())
    alone: list[float] = []
    served: list[float] = []
    rg_times: list[float] = []
    no_server = {**os.environ, "CQ_NO_SERVER": "1"}
    server = subprocess.Popen([cq, "serve", "--root", str(root), "--idle", "600"], stderr=subprocess.DEVNULL)
    sock = root / ".meta" / "index" / "cq.sock"
    try:
        for _ in range(600):
            if sock.exists():
                break
            time.sleep(0.05)
        for name in NAMES:  # warm-up: page cache, and cq's staleness check settles
            wall([cq, "def", name, "--no-cache"], root, no_server)
            wall([cq, "def", name, "--no-cache"], root)
            wall([rg, "--no-config", "-n", f"def {name}"], root)
        answered = 0
        for _ in range(runs):
            for name in NAMES:
                t, out = wall([cq, "def", name, "--no-cache"], root, no_server)
                alone.append(t)
                answered += f"{name}" in out
                t, out = wall([cq, "def", name, "--no-cache"], root)
                served.append(t)
                answered += f"{name}" in out
                t, _ = wall([rg, "--no-config", "-n", f"def {name}"], root)
                rg_times.append(t)
    finally:
        server.terminate()
        server.wait(10)
        sock.unlink(missing_ok=True)
    return statistics.median(alone), statistics.median(served), statistics.median(rg_times), answered


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
        alone, served, rg_p50, answered = measure(root, args.runs)
        rows.append((label, alone, served, rg_p50))
        print(
            f"{label:>4}: {files} files (index {built:.0f} s): rg p50 {rg_p50 * 1000:.1f} ms; "
            f"cq def p50 {alone * 1000:.1f} ms in its own process ({alone / rg_p50:.2f}x rg), "
            f"{served * 1000:.1f} ms through cq serve ({served / rg_p50:.2f}x rg); "
            f"answered {answered}/{2 * args.runs * len(NAMES)}",
            flush=True,
        )
    print()
    for label, alone, served, rg_p50 in rows:
        target = "<= 3x" if label == "1x" else "< 1x"
        print(f"{label}: cq/rg = {alone / rg_p50:.2f}x alone, {served / rg_p50:.2f}x served (target {target})")
    print(f"cpus: {os.cpu_count()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
