"""`cq def NAME` as a fresh process against `rg -n 'def NAME'`, on the CPython stdlib corpus and on a
corpus ten times larger (the same files under copy0/ ... copy9/). The tools run side by side on the
same names, alternating, after one warm-up each; the figure is the median wall time. `cq` is measured
twice: with `CQ_NO_SERVER=1` (its own process answers) and with a `cq serve` running (a plain `cq def`
still answers in its own process through the fast path, which is cheaper than the round trip; other
commands go to the server).

    uv run python bench/cq_latency.py            # targets: <= 3x rg on 1x, faster than rg on 10x

Children run with byte-code caching, as an installed tool does (pip compiles on install): the script
removes PYTHONDONTWRITEBYTECODE from their environment and byte-compiles the packages once first;
without that, every fresh process compiles every module it imports again (~40 ms here).
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


# The children's environment: byte-code caching on (see the module docstring).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def compile_packages() -> None:
    """Byte-compile the interpreter's site-packages and the workspace sources the `cq` process imports."""
    import compileall
    import sysconfig

    import ctxops_code_graph
    import ctxops_code_query
    import ctxops_code_scan
    import ctxops_contracts

    dirs = {sysconfig.get_paths()["purelib"]}
    dirs |= {
        str(Path(m.__file__).parent)
        for m in (ctxops_code_graph, ctxops_code_query, ctxops_code_scan, ctxops_contracts)
        if m.__file__
    }
    for d in sorted(dirs):
        compileall.compile_dir(d, quiet=1)


def wall(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, str]:
    t0 = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False, env=env or ENV)
    return time.perf_counter() - t0, done.stdout


def measure(root: Path, runs: int) -> tuple[float, float, float, float, int]:
    """Median seconds of: cq in its own process, cq through `cq serve`, rg, `python -c pass`; answers found."""
    cq = shutil.which("cq") or str(Path(sys.executable).parent / "cq")
    rg = str(find_rg())
    alone: list[float] = []
    served: list[float] = []
    rg_times: list[float] = []
    py_times: list[float] = []
    no_server = {**ENV, "CQ_NO_SERVER": "1"}
    server = subprocess.Popen([cq, "serve", "--root", str(root), "--idle", "600"], stderr=subprocess.DEVNULL, env=ENV)
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
                t, _ = wall([sys.executable, "-c", "pass"], root)
                py_times.append(t)
    finally:
        server.terminate()
        server.wait(10)
        sock.unlink(missing_ok=True)
    medians = [statistics.median(x) for x in (alone, served, rg_times, py_times)]
    return medians[0], medians[1], medians[2], medians[3], answered


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", default="/tmp/cq-bench")
    ap.add_argument("--runs", type=int, default=5, help="rounds over the names (each name once per round)")
    args = ap.parse_args()
    work = Path(args.work)
    compile_packages()
    rows = []
    for label, copies in (("1x", 1), ("10x", 10)):
        root = make_corpus(work / f"corpus-{label}" if copies > 1 else work / "corpus", copies=copies)
        files = sum(1 for _ in root.rglob("*.py"))
        t0 = time.perf_counter()
        subprocess.run(
            [shutil.which("cq") or "cq", "index", "--root", str(root)], capture_output=True, check=False, env=ENV
        )
        built = time.perf_counter() - t0
        alone, served, rg_p50, py_p50, answered = measure(root, args.runs)
        rows.append((label, alone, served, rg_p50))
        print(
            f"{label:>4}: {files} files (index {built:.0f} s): rg p50 {rg_p50 * 1000:.1f} ms; "
            f"cq def p50 {alone * 1000:.1f} ms in its own process ({alone / rg_p50:.2f}x rg), "
            f"{served * 1000:.1f} ms with cq serve running ({served / rg_p50:.2f}x rg); "
            f"python -c pass {py_p50 * 1000:.1f} ms; "
            f"answered {answered}/{2 * args.runs * len(NAMES)}",
            flush=True,
        )
    print()
    for label, alone, served, rg_p50 in rows:
        target = "<= 3x" if label == "1x" else "< 1x"
        print(
            f"{label}: cq/rg = {alone / rg_p50:.2f}x alone, {served / rg_p50:.2f}x with a server running"
            f" (target {target})"
        )
    print(f"cpus: {os.cpu_count()}, load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
