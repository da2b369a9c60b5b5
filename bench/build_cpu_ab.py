"""A full build's CPU (user+sys, workers included) beside a peer's and beside the parse floor, alternated.

    uv run python bench/build_cpu_ab.py DIR --peer-pythonpath "$(cat main-pythonpath)" [--rounds 3] [--workers 1,2] \
        [--floor-of peer]

Each round runs, each as a fresh process and in this order for every worker count: `parse_floor.py DIR
--workers N`, the peer's build (`build_phases_cpu.py DIR --workers N` with the peer's source directories first
on PYTHONPATH: main's code, `git archive` unpacked), then this checkout's build. A process's CPU is its own and
its waited-for children's (the scan workers), from `getrusage(RUSAGE_CHILDREN)`. Prints one line per run
(the 1-minute load at its start, CPU-s, the build's CPU over the same round's floor) and each side's best and
median: on a shared machine the CPU of one build moves by ±15% from run to run; alternating keeps the two
sides under the same load. DIR's `.meta/` is removed before each build (a full build either way).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _run(argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(argv, env=env, check=True, capture_output=True, text=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return cpu, out.strip().splitlines()[-1] if out.strip() else ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", type=Path)
    ap.add_argument("--peer-pythonpath", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workers", default="1,2")
    # (the floor is parse + the tags query: a branch that adds patterns to the query raises its own floor,
    # so its ratio is read against the peer's)
    ap.add_argument("--floor-of", choices=("ours", "peer"), default="ours", help="whose code the floor runs")
    args = ap.parse_args()
    root = args.root.resolve()
    ours = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    peer = {**ours, "PYTHONPATH": args.peer_pythonpath}
    nice = ["nice", "-n", "10", sys.executable]
    results: dict[tuple[str, int], list[tuple[float, float]]] = {}
    for round_ in range(1, args.rounds + 1):
        for workers in (int(w) for w in args.workers.split(",")):
            load = os.getloadavg()[0]
            floor, _ = _run(
                [*nice, str(HERE / "parse_floor.py"), str(root), "--workers", str(workers)],
                peer if args.floor_of == "peer" else ours,
            )
            print(f"round {round_} workers {workers} (load {load:.1f}): floor {floor:.2f} CPU-s", flush=True)
            for side, env in (("peer", peer), ("ours", ours)):
                shutil.rmtree(root / ".meta", ignore_errors=True)
                load = os.getloadavg()[0]
                build = [*nice, str(HERE / "build_phases_cpu.py"), str(root), "--workers", str(workers)]
                cpu, line = _run(build, env)
                phases = json.loads(line)["phases_cpu_s"] if line.startswith("{") else {}
                results.setdefault((side, workers), []).append((cpu, cpu / floor))
                shown = " ".join(f"{k} {v:.1f}" for k, v in phases.items() if v >= 0.1)
                ratio = cpu / floor
                print(f"  {side} (load {load:.1f}): {cpu:.2f} CPU-s, {ratio:.2f}x the floor  [{shown}]", flush=True)
    for (side, workers), runs in sorted(results.items()):
        cpus, ratios = [r[0] for r in runs], [r[1] for r in runs]
        print(
            f"{side} workers {workers}: CPU-s best {min(cpus):.2f} median {statistics.median(cpus):.2f};"
            f" x floor best {min(ratios):.2f} median {statistics.median(ratios):.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
