"""`ctx watch`: idle CPU, and edit-to-indexed time side by side with no daemon (`cq index` after each edit).

Usage: uv run python bench/watch_daemon.py [--corpus DIR] [--edits N] [--idle S]

The corpus (default: a git repository of the bundled example; pass e.g. an unpacked sdist from
`pip download` for code nobody here wrote) is copied into a temporary git repository. With the daemon
running, each edit appends a new function to a different source file and the clock runs until the code
index knows it; without the daemon, the same edit is followed by `python -m ctxops_code_query index` in
a fresh process (what the git hooks or a user would run). Then the daemon idles for S seconds and its CPU
time is read from /proc.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def knows(repo: Path, name: str) -> bool:
    from ctxops_code_graph import CodeIndex

    try:
        with CodeIndex(repo, auto_update=False) as index:
            return bool(index.definitions(name))
    except Exception:
        return False


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, help="a source tree to copy (default: the bundled example)")
    parser.add_argument("--edits", type=int, default=10)
    parser.add_argument("--idle", type=float, default=60.0, help="seconds of idling to measure CPU over")
    args = parser.parse_args()
    ctx = [sys.executable, "-m", "ctxops_core"]
    with tempfile.TemporaryDirectory(prefix="watch-bench-") as tmp:
        repo = Path(tmp) / "repo"
        if args.corpus:
            shutil.copytree(args.corpus, repo, ignore=shutil.ignore_patterns(".git", ".meta"))
            git(repo, "init", "-q")
            git(repo, "add", "-A")
            git(repo, "-c", "user.email=b@x", "-c", "user.name=b", "commit", "-qm", "corpus")
        else:
            subprocess.run(
                [sys.executable, str(ROOT / "examples" / "make_history.py"), str(repo)], check=True, capture_output=True
            )
        sources = sorted(p for p in repo.rglob("*.py") if ".meta" not in p.parts and ".git" not in p.parts)
        files = len(list(repo.rglob("*")))
        subprocess.run(
            [sys.executable, "-m", "ctxops_code_query", "index", "--root", str(repo)], check=True, capture_output=True
        )
        # Without the daemon: edit, then a fresh `cq index` (incremental).
        without = []
        for i in range(args.edits):
            target = sources[i % len(sources)]
            with target.open("a", encoding="utf-8") as fh:
                fh.write(f"\n\ndef bench_without_{i}():\n    return {i}\n")
            started = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "ctxops_code_query", "index", "--root", str(repo)],
                check=True,
                capture_output=True,
            )
            assert knows(repo, f"bench_without_{i}")
            without.append(time.perf_counter() - started)
        # With the daemon: edit, then wait until the index knows the new name.
        subprocess.run([*ctx, "watch", "start", "--root", str(repo)], check=True, capture_output=True)
        try:
            pid = int(Path(repo, ".meta", ".state", "watch.lock").read_text().strip())
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and "code index" not in Path(repo, ".meta/logs/watch.log").read_text():
                time.sleep(0.1)
            with_daemon = []
            for i in range(args.edits):
                target = sources[(i + 3) % len(sources)]
                started = time.perf_counter()
                with target.open("a", encoding="utf-8") as fh:
                    fh.write(f"\n\ndef bench_with_{i}():\n    return {i}\n")
                while not knows(repo, f"bench_with_{i}"):
                    time.sleep(0.02)
                with_daemon.append(time.perf_counter() - started)
            time.sleep(3)  # the last batch's reconciliation settles
            before = cpu_seconds(pid)
            time.sleep(args.idle)
            idle_cpu = cpu_seconds(pid) - before
        finally:
            subprocess.run([*ctx, "watch", "stop", "--root", str(repo)], check=True, capture_output=True)
    print(
        f"corpus: {args.corpus or 'bundled example'} ({files} paths, {len(sources)} Python files), {args.edits} edits"
    )
    print(
        f"edit -> indexed, daemon running:    median {statistics.median(with_daemon) * 1000:.0f} ms"
        f" (max {max(with_daemon) * 1000:.0f} ms; includes the 0.3 s debounce)"
    )
    print(
        f"edit -> indexed, fresh `cq index`: median {statistics.median(without) * 1000:.0f} ms"
        f" (max {max(without) * 1000:.0f} ms)"
    )
    print(f"ratio daemon / fresh index: {statistics.median(with_daemon) / statistics.median(without):.2f}")
    print(f"idle: {idle_cpu:.2f} CPU seconds over {args.idle:.0f} s ({idle_cpu / args.idle * 100:.2f}% of one core)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
