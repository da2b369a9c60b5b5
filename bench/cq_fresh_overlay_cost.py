"""What the first query after a save costs, this checkout's cq against another's (the peer), on the CPython
standard library (issue 9 item 5: `cq map`, `cq deps`, a miss's suggestions, `cq callers`).

    uv run python bench/cq_fresh_overlay_cost.py --peer /path/to/other/checkout/.venv/bin/python

The corpus is `bench/cq_corpus.py`'s (built and indexed once, by this checkout's cq). Each round the index
is brought up to date, another writer takes the index lock (as a watcher's or a slow update does: no
update can commit, so every answer reads the saved file itself), `textwrap.py` is saved with a new function
(`--edit plain`: it calls a function of the same file, so the file uses the same files as before; `--edit
import`: it also imports `fnmatch`, a file it did not use), and each command runs as a fresh process of
both checkouts, alternating which goes first. Printed: median CPU (user + system of the child) and wall,
and how many of this checkout's answers said they read the saved file. Both checkouts must read the same
index format (the peer rebuilds it otherwise: the script stops).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cq_corpus import make_corpus
from cq_miss import wait_for_quiet_index

ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {"CQ_NO_SERVER": "1"}
COMMANDS = [
    ("map", ["map"]),
    ("map WORDS", ["map", "wrap text"]),
    ("deps FILE", ["deps", "textwrap.py"]),
    ("def miss", ["def", "bench_fresh_caller_xy"]),
    ("callers", ["callers", "textwrap.py:dedent"]),
]


def run(python: str, root: Path, argv: list[str]) -> tuple[float, float, dict[str, object]]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(
        [python, "-m", "ctxops_code_query", *argv, "--root", str(root), "--no-cache", "--json"],
        capture_output=True,
        text=True,
        env=ENV,
        check=False,
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if "building it in the background" in done.stderr or "rebuilding" in done.stderr:
        raise SystemExit(f"{python} reads another index format: {done.stderr.strip()}")
    try:
        result = json.loads(done.stdout)
    except ValueError:
        result = {}
    return cpu, wall, result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--peer", required=True, help="the other checkout's python (its venv's bin/python)")
    ap.add_argument("--work", default="/var/tmp/cq-fresh-cost")
    ap.add_argument("--edit", choices=("plain", "import"), default="plain")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    root = make_corpus(Path(args.work) / "stdlib")
    pythons = {"this": sys.executable, "peer": args.peer}
    settle = [sys.executable, "-m", "ctxops_code_query", "index", "--root", str(root)]
    subprocess.run(settle, env=ENV, check=True, capture_output=True)
    target = root / "textwrap.py"
    original = target.read_text()
    edited = original + "\n\ndef bench_fresh_caller_xyz():\n    return dedent('x')\n"
    if args.edit == "import":
        edited += "\nimport fnmatch\n"
    lock = root / ".meta" / "index" / "code.lock"
    samples: dict[tuple[str, str], list[tuple[float, float]]] = {}
    read_saved = 0
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; edit: {args.edit}")
    for rnd in range(args.rounds):
        target.write_text(original)
        wait_for_quiet_index(root)
        subprocess.run(settle, env=ENV, check=True, capture_output=True)  # the index up to date before the save
        holder = subprocess.Popen(["flock", "-o", str(lock), "sleep", "600"])
        while subprocess.run(["flock", "-n", str(lock), "true"], check=False).returncode == 0:
            time.sleep(0.05)
        try:
            target.write_text(edited)
            order = ("this", "peer") if rnd % 2 == 0 else ("peer", "this")
            for what, argv in COMMANDS:
                for who in order:
                    cpu, wall, result = run(pythons[who], root, argv)
                    samples.setdefault((what, who), []).append((cpu, wall))
                    notes = " ".join(str(n) for n in result.get("notes", []))  # type: ignore[attr-defined]
                    read_saved += who == "this" and "read from the saved files textwrap.py" in notes
        finally:
            holder.kill()
            holder.wait()
            target.write_text(original)
    print(
        f"load average at the end {os.getloadavg()[0]:.1f}; this checkout read the saved file in {read_saved}"
        f" of {args.rounds * len(COMMANDS)} answers"
    )
    for what, _argv in COMMANDS:
        this, peer = samples[(what, "this")], samples[(what, "peer")]
        c_this, c_peer = (statistics.median(c for c, _ in s) for s in (this, peer))
        w_this, w_peer = (statistics.median(w for _, w in s) for s in (this, peer))
        print(
            f"  {what}: CPU {c_this * 1000:.0f} ms vs peer {c_peer * 1000:.0f} ms ({c_this / c_peer:.2f}x);"
            f" wall {w_this * 1000:.0f} vs {w_peer * 1000:.0f} ms"
        )
    wait_for_quiet_index(root)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
