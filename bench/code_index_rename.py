"""An editor's save (write a temporary file, rename it over the original) then a fresh-process lookup of
a symbol the save added, without a watcher: the code before and after "list only the changed
directories", side by side on the same index of the CPython standard library.

    uv run python bench/code_index_rename.py [--before COMMIT] [--reps N]

The rename changes the directory's mtime, so the automatic update used to re-walk the whole tree; now
it lists that one directory. `--before` names the commit whose code-scan/code-graph sources are the
"before" side (extracted with `git archive`, put first on PYTHONPATH of the child processes).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from code_index import CHILD_ENV, fmt_s, make_corpus  # noqa: E402

TARGETS = ["json/decoder.py", "email/message.py", "asyncio/tasks.py", "collections/__init__.py", "argparse.py"]
LOOKUP = (
    "import sys, time\nt = time.perf_counter()\nfrom ctxops_code_graph import CodeIndex\n"
    "import ctxops_code_scan.discover as d\n"
    "ix = CodeIndex(sys.argv[1])\nhits = ix.definitions(sys.argv[2])\n"
    "assert hits and not ix.stale_files(), (hits, ix.stale_files())\n"
    "print(time.perf_counter() - t, ix.last_update.changed, hasattr(d, 'discover_dirs'))\n"
)


def save_by_rename(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.swp")
    tmp.write_text(text)
    tmp.replace(path)


def run(root: Path, label: str, pythonpath: str | None, reps: int) -> float:
    env = dict(CHILD_ENV)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    timings = []
    for i in range(reps):
        rel = TARGETS[i % len(TARGETS)]
        path = root / rel
        original = path.read_text()
        name = f"bench_{label}_{i}"
        save_by_rename(path, original + f"\n\ndef {name}(x):\n    return x\n")
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", LOOKUP, str(root), name], capture_output=True, text=True, env=env, check=True
        )
        timings.append(time.perf_counter() - started)
        new_code = done.stdout.strip().endswith("True")
        assert new_code == (pythonpath is None), done.stdout
        save_by_rename(path, original)  # back, and reindexed before the next rep
        subprocess.run(
            [sys.executable, "-c", LOOKUP, str(root), "bench_never"], check=False, capture_output=True, env=env
        )
    median = statistics.median(timings)
    print(f"{label}: save-by-rename + fresh-process lookup, median {fmt_s(median)} over {reps} edits")
    return median


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", default="4c3f48f", help="commit of the 'before' code (default: 4c3f48f)")
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    repo = HERE.parent
    with tempfile.TemporaryDirectory(prefix="ctxops-bench-") as tmp:
        old = Path(tmp) / "before"
        old.mkdir()
        archive = subprocess.run(
            ["git", "archive", args.before, "packages/code-scan/src", "packages/code-graph/src"],
            cwd=repo,
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
        old_path = f"{old}/packages/code-scan/src:{old}/packages/code-graph/src"
        root = Path(tmp) / "stdlib"
        root.mkdir()
        n = make_corpus(root, quick=False)
        from ctxops_code_graph.builder import IndexWriter

        started = time.perf_counter()
        IndexWriter(root).build(full=True)
        full_s = time.perf_counter() - started
        print(f"corpus: {n} files of the standard library; full build {fmt_s(full_s)}")
        before = run(root, "before", old_path, args.reps)
        after = run(root, "after", None, args.reps)
        print(
            f"after/before = {after / before:.2f}; as % of the full build: before {before / full_s * 100:.1f}%,"
            f" after {after / full_s * 100:.1f}% (target < 10%)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
