"""Fresh after a save, beyond `cq def`: the first `cq callers`, `cq refs` and `cq brief` of a fresh process
after an edit, on the CPython standard library (issue 9 item 5).

    uv run python bench/cq_resolution_fresh.py                       # this checkout's cq
    /other/checkout/.venv/bin/python bench/cq_resolution_fresh.py    # another checkout's cq (the peer)

The index is built once (`cq index`, timed: the full build). Then, three times (three files): append a
function that calls one of the file's own functions, wait for nothing, and run fresh processes of
`cq callers FILE:F`, `cq refs FILE:F` and `cq brief FILE`: each must show the new call / the new
function on that first query. Then undo the edit and ask again: the new call and function must be gone.
Each answer is checked and timed (wall, median) against the full build (issue 9: edit-then-fresh-query
<= 5% of it). Between edits the detached update is let finish, so every edit starts from a quiet index.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cq_corpus import make_corpus
from cq_miss import wait_for_quiet_index

ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {"CQ_NO_SERVER": "1"}
CQ = [sys.executable, "-m", "ctxops_code_query"]
# (file, a top-level function of it that the appended function calls)
EDITS = [("textwrap.py", "dedent"), ("difflib.py", "get_close_matches"), ("shlex.py", "quote")]
NEW = "bench_fresh_caller_xyz"


def cq(root: Path, *args: str) -> tuple[float, int, dict[str, object] | str]:
    t0 = time.perf_counter()
    done = subprocess.run(
        [*CQ, *args, "--root", str(root), "--no-cache"], capture_output=True, text=True, env=ENV, check=False
    )
    wall = time.perf_counter() - t0
    try:
        return wall, done.returncode, json.loads(done.stdout)
    except ValueError:
        return wall, done.returncode, done.stdout


def sites(result: dict[str, object] | str) -> set[tuple[str, int]]:
    if isinstance(result, str):
        return set()
    return {(h["path"], h["line"]) for h in result.get("hits", [])}  # type: ignore[union-attr, index]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", default="/var/tmp/cq-fresh-bench")
    args = ap.parse_args()
    root = make_corpus(Path(args.work) / "stdlib")
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; cq from {sys.executable}")
    import shutil

    shutil.rmtree(root / ".meta" / "index", ignore_errors=True)
    t0 = time.perf_counter()
    build = subprocess.run([*CQ, "index", "--root", str(root)], capture_output=True, env=ENV, check=False)
    build_s = time.perf_counter() - t0
    assert build.returncode == 0, build.stderr
    print(f"stdlib: full build {build_s:.1f} s")
    rows: dict[str, list[tuple[float, bool]]] = {}

    def note(what: str, wall: float, ok: bool) -> None:
        rows.setdefault(what, []).append((wall, ok))

    def settle() -> None:
        """The index brought up to date with the files as they are (a quiet start for the next edit)."""
        wait_for_quiet_index(root)
        subprocess.run([*CQ, "index", "--root", str(root)], capture_output=True, env=ENV, check=True)

    for rel, callee in EDITS:
        target = root / rel
        original = target.read_text()
        line = len(original.splitlines()) + 4  # the appended function's `return` line
        settle()
        try:
            target.write_text(original + f"\n\ndef {NEW}():\n    return {callee}('x')\n")
            wall, _rc, res = cq(root, "callers", f"{rel}:{callee}", "--json")
            note("callers: new call listed", wall, (rel, line) in sites(res))
            wall, _rc, res = cq(root, "refs", f"{rel}:{callee}", "--json", "--max", "500")
            note("refs: new call listed", wall, (rel, line) in sites(res))
            wall, _rc, res = cq(root, "brief", rel, "--json")
            note("brief: new function listed", wall, not isinstance(res, str) and NEW in json.dumps(res))
            settle()  # the index now holds the new function and its call
            target.write_text(original + "\n")  # a save that removes them again
            wall, _rc, res = cq(root, "callers", f"{rel}:{callee}", "--json")
            note("callers after undo: call gone", wall, (rel, line) not in sites(res))
            wall, _rc, res = cq(root, "brief", rel, "--json")
            note("brief after undo: function gone", wall, not isinstance(res, str) and NEW not in json.dumps(res))
        finally:
            target.write_text(original)
    settle()
    for what, runs in rows.items():
        wall = statistics.median(w for w, _ in runs)
        ok = sum(1 for _, good in runs if good)
        print(
            f"  {what}: {ok} of {len(runs)}; median {wall * 1000:.0f} ms = {100 * wall / build_s:.1f}% of the full"
            f" build (walls {[round(w, 2) for w, _ in runs]})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
