"""Fresh after a save, beyond `cq def`: the first `cq callers`, `cq refs` and `cq brief` of a fresh process
after an edit, on the CPython standard library (issue 9 item 5).

    uv run python bench/cq_resolution_fresh.py                       # this checkout's cq
    /other/checkout/.venv/bin/python bench/cq_resolution_fresh.py    # another checkout's cq (the peer)

The index is built once (`cq index`, timed: the full build). Then, three times (three files): append a
function that calls one of the file's own functions, wait for nothing, and run fresh processes of
`cq callers FILE:F`, `cq refs FILE:F` and `cq brief FILE`: each must show the new call / the new
function on that first query. Then undo the edit and ask again: the new call and function must be gone.
Each query is the first after its own save (the index is brought up to date before each save), and is
checked and timed (wall, median) against the full build (issue 9: edit-then-fresh-query <= 5% of it).
The same for a miss (`cq def` of the new name less its last letter: the new name must be suggested, and
not after the undo), `cq deps FILE` (an import added, then removed) and `cq map WORDS` (a file added, then
deleted: listed, then gone).
`--busy` holds the index writer lock through each query, as a watcher's or a slow update does: no update
can commit within the deadline, so only what the query reads itself can make it fresh.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cq_corpus import make_corpus
from cq_miss import wait_for_quiet_index

ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {"CQ_NO_SERVER": "1"}
CQ = [sys.executable, "-m", "ctxops_code_query"]
# (file, a top-level function of it that the appended function calls)
EDITS = [("textwrap.py", "dedent"), ("difflib.py", "get_close_matches"), ("shlex.py", "quote")]
NEW = "bench_fresh_caller_xyz"
IMPORTED = "fnmatch.py"  # a module none of EDITS imports: the import a save adds (`cq deps FILE`)
NEW_FILE, NEW_MAP = "bench_fresh_new_xyz.py", "bench_fresh_map_xyz"  # a file added, then deleted (`cq map`)


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


def _gone(found: Callable[[dict[str, object] | str], bool]) -> Callable[[dict[str, object] | str], bool]:
    return lambda res: not found(res)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", default="/var/tmp/cq-fresh-bench")
    ap.add_argument("--busy", action="store_true", help="another writer holds the index during each query")
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
        for _ in range(30):
            wait_for_quiet_index(root)
            done = subprocess.run([*CQ, "index", "--root", str(root)], check=False, capture_output=True, env=ENV)
            if done.returncode == 0:
                return
            time.sleep(1.0)  # a detached update took the writer lock meanwhile
        raise RuntimeError("the index could not be brought up to date")

    def held() -> subprocess.Popen[bytes] | None:
        """With --busy: another writer holds the index (a watcher's or a slow update), so no update can
        commit within the deadline; the lock is taken before the save and released after the query."""
        if not args.busy:
            return None
        lock = root / ".meta" / "index" / "code.lock"
        holder = subprocess.Popen(["flock", "-o", str(lock), "sleep", "120"])  # (-o: only flock holds it)
        while subprocess.run(["flock", "-n", str(lock), "true"], check=False).returncode == 0:
            time.sleep(0.05)
        return holder

    def release(holder: subprocess.Popen[bytes] | None) -> None:
        if holder is not None:
            holder.kill()
            holder.wait()

    def first_query(
        text: str | None,
        what: str,
        argv: list[str],
        found: Callable[[dict[str, object] | str], bool],
        path: Path | None = None,
    ) -> None:
        """Save `text` into the file (None: delete it), then time the first (fresh process) query after the save."""
        holder = held()
        try:
            saved = target if path is None else path
            if text is None:
                saved.unlink()
            else:
                saved.write_text(text)
            wall, _rc, res = cq(root, *argv, "--json", "--max", "2000", "--budget", "200000")
            note(what, wall, found(res))
        finally:
            release(holder)

    for rel, callee in EDITS:
        target = root / rel
        original = target.read_text()
        line = len(original.splitlines()) + 4  # the appended function's `return` line
        edited = original + f"\n\ndef {NEW}():\n    return {callee}('x')\n"

        def has_call(res: dict[str, object] | str, site: tuple[str, int] = (rel, line)) -> bool:
            return site in sites(res)

        def has_new(res: dict[str, object] | str) -> bool:
            return NEW in json.dumps(res)

        def has_import(res: dict[str, object] | str) -> bool:
            return IMPORTED in {p for p, _line in sites(res)}

        def has_file(res: dict[str, object] | str) -> bool:
            return NEW_FILE in {p for p, _line in sites(res)}

        callers, refs, brief = ["callers", f"{rel}:{callee}"], ["refs", f"{rel}:{callee}"], ["brief", rel]
        # A miss's suggestions (`did you mean`), `cq deps FILE` and `cq map WORDS` (issue 9 item 5's rest).
        miss, deps, ranked = ["def", NEW[:-1]], ["deps", rel], ["map", NEW_MAP]
        with_import = edited + f"\nimport {IMPORTED.removesuffix('.py')}\n"
        new_file = root / NEW_FILE
        new_text = f"import {rel.removesuffix('.py')}\n\n\ndef {NEW_MAP}():\n    return {callee}('x')\n"
        try:
            for what, argv, check, text in (
                ("callers: new call listed", callers, has_call, edited),
                ("refs: new call listed", refs, has_call, edited),
                ("brief: new function listed", brief, has_new, edited),
                ("def miss: new name suggested", miss, has_new, edited),
                ("deps: new import listed", deps, has_import, with_import),
            ):
                target.write_text(original)
                settle()
                first_query(text, what, argv, check)
            for what, argv, check, text in (
                ("callers after undo: call gone", callers, has_call, edited),
                ("brief after undo: function gone", brief, has_new, edited),
                ("def miss after undo: name not suggested", miss, has_new, edited),
                ("deps after undo: import gone", deps, has_import, with_import),
            ):
                target.write_text(text)
                settle()  # the index holds the new function and its call
                first_query(original + "\n", what, argv, _gone(check))
            target.write_text(original)
            new_file.unlink(missing_ok=True)
            settle()
            first_query(new_text, "map: new file listed", ranked, has_file, path=new_file)
            settle()
            first_query(None, "map after delete: file gone", ranked, _gone(has_file), path=new_file)
        finally:
            target.write_text(original)
            new_file.unlink(missing_ok=True)
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
