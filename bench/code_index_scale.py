"""The cold build at scale: files, lines, wall, CPU, peak RSS and index size beside `ctags -R` and the floor.

    uv run python bench/code_index_scale.py DIR [DIR ...] [--parts ctags,floor,build]

Each DIR is a git repository of sources (e.g. the CPython stdlib, a site-packages tree, /usr/include copied
and committed). For each, in the same run: `ctags -R` (definitions only, C), `bench/parse_floor.py` (only
tree-sitter's parse and tags query over the files code-scan would parse, on every core) and the full
build (`python -m ctxops_code_graph index --full`), each a fresh process. The build's resident set is
sampled every 0.25 s (the parent, where DuckDB runs; the largest forked scan worker; parent + workers) and its
`ru_maxrss` taken; the index size is the two stores on disk (DuckDB build store + SQLite lookup snapshot)
against the bytes of the files it indexed. Large corpora take many minutes on 2 shared cores: run once.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _rss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS"):
                    return int(line.split()[1])
    except OSError:
        return 0
    return 0


def _children(pid: int) -> list[int]:
    """The process's direct children (the forked scan workers of a build)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return [int(c) for c in fh.read().split()]
    except OSError:
        return []


def run(argv: list[str], sample: bool = False) -> dict[str, float]:
    """Wall and CPU (user + sys of the process and its children) of one fresh process; sampled, its peak RSS."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    # stderr to a file, not a pipe: a full pipe blocked the sampled build at 23k files (session 10).
    with tempfile.TemporaryFile("w+") as errors:
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=errors, text=True)
        peak = peak_worker = peak_total = 0
        while sample and proc.poll() is None:
            parent = _rss_kib(proc.pid)
            workers = [_rss_kib(c) for c in _children(proc.pid)]
            peak = max(peak, parent)
            peak_worker = max([peak_worker, *workers])
            peak_total = max(peak_total, parent + sum(workers))
            time.sleep(0.25)
        proc.wait()
        errors.seek(0)
        err = errors.read()
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise BuildFailed(f"{argv[:3]} failed ({proc.returncode}) after {wall:.0f} s: {err[-800:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    facts = {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2)}
    if sample:  # (RUSAGE_CHILDREN's ru_maxrss is the largest of every child so far: not this one's alone)
        facts["peak_rss_mib"] = round(peak / 1024)
        facts["peak_rss_worker_mib"] = round(peak_worker / 1024)  # the largest scan worker's
        facts["peak_rss_total_mib"] = round(peak_total / 1024)  # parent + workers, sampled together
    return facts


class BuildFailed(Exception):
    """A measured process exited non-zero (its stderr's tail in the message)."""


def source_facts(root: Path) -> dict[str, int]:
    from ctxops_code_scan.discover import discover

    files = discover(root).files
    size = lines = 0
    for f in files:
        data = (root / f.path).read_bytes()
        size += len(data)
        lines += data.count(b"\n")
    return {"files": len(files), "lines": lines, "source_bytes": size}


def index_bytes(root: Path) -> int:
    index = root / ".meta" / "index"
    current = (index / "code-lookup.current").read_text().strip()
    return (index / "code.duckdb").stat().st_size + (index / current).stat().st_size


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("roots", type=Path, nargs="+")
    ap.add_argument("--parts", default="ctags,floor,build")
    args = ap.parse_args()
    parts = set(args.parts.split(","))
    py = sys.executable
    for root in (r.resolve() for r in args.roots):
        row: dict[str, object] = {"corpus": str(root), **source_facts(root)}
        if "ctags" in parts:
            tags = Path(tempfile.gettempdir(), f"scale-tags-{os.getpid()}")
            row["ctags"] = run(["ctags", "-R", "-f", str(tags), str(root)])
            tags.unlink(missing_ok=True)
        if "floor" in parts:
            row["floor"] = run([py, str(HERE / "parse_floor.py"), str(root)])
        if "build" in parts:
            try:
                row["build"] = run([py, "-m", "ctxops_code_graph", "index", "--full", str(root)], sample=True)
            except BuildFailed as exc:  # the figures measured so far still print (session 11's 46k run lost them)
                row["build_failed"] = str(exc)
                print(json.dumps(row), flush=True)
                return 1
            row["index_bytes"] = index_bytes(root)
            row["index_x_source"] = round(int(row["index_bytes"]) / max(1, int(row["source_bytes"])), 2)  # type: ignore[call-overload]
        build = row.get("build")
        floor = row.get("floor")
        if isinstance(build, dict) and isinstance(floor, dict) and floor["cpu_s"]:
            row["build_cpu_x_floor"] = round(build["cpu_s"] / floor["cpu_s"], 2)
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
