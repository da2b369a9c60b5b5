"""Where a full build's memory goes, phase by phase: the parent's RSS, DuckDB's own, Python's heap, the workers.

    uv run python bench/build_memory_profile.py DIR [--tracemalloc] [--top 12]

Runs `IndexWriter(DIR).build(full=True)` in this process with a sampler thread (every 0.2 s: this
process's VmRSS, each scan worker's VmRSS, and once a second DuckDB's `duckdb_memory()` total on a cursor of
its own). Phases are marked by wrapping the builder's steps (scan, load, resolve, rank, snapshot, compact,
publish): for each, the peak RSS inside it and, at its end, DuckDB's memory by tag and (with
`--tracemalloc`, slower) Python's traced heap and its largest allocation sites. A profiling aid, not a
benchmark of CPU: tracemalloc doubles the parent's Python time.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import sys
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any


def _rss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS"):
                    return int(line.split()[1])
    except OSError:
        return 0
    return 0


class MallInfo2(ctypes.Structure):
    """glibc's `struct mallinfo2` (glibc >= 2.33)."""

    _fields_ = [
        (name, ctypes.c_size_t)
        for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks")
    ] + [("keepcost", ctypes.c_size_t)]


class Allocators:
    """Who holds the process's memory besides DuckDB's buffer pool: DuckDB's own jemalloc (statically linked in
    `_duckdb`, its `mallctl` exported as `duckdb_je_mallctl`) and glibc's malloc (Python's large objects,
    SQLite, tree-sitter), read through `mallinfo2`; and the anonymous part of the resident set."""

    def __init__(self) -> None:
        import duckdb

        self._ct = ctypes
        self._je: Any = None
        self._libc: Any = None
        try:
            native = duckdb._duckdb.__file__  # type: ignore[attr-defined]
            lib = ctypes.CDLL(native, mode=getattr(os, "RTLD_NOLOAD", 4))
            self._je = lib.duckdb_je_mallctl
        except (OSError, AttributeError):
            self._je = None
        try:
            self._libc = ctypes.CDLL("libc.so.6")
            self._libc.mallinfo2  # noqa: B018 (glibc >= 2.33)
        except (OSError, AttributeError):
            self._libc = None

    def _je_size(self, name: str) -> int:
        ct = self._ct
        value, size = ct.c_size_t(0), ct.c_size_t(ct.sizeof(ct.c_size_t))
        if self._je(name.encode(), ct.byref(value), ct.byref(size), None, ct.c_size_t(0)) != 0:
            return 0
        return int(value.value)

    def read(self) -> dict[str, int]:
        """KiB by holder (0 where unreadable)."""
        out: dict[str, int] = {}
        ct = self._ct
        if self._je is not None:
            epoch = ct.c_uint64(1)
            self._je(b"epoch", None, None, ct.byref(epoch), ct.c_size_t(ct.sizeof(epoch)))
            out["je_allocated"] = self._je_size("stats.allocated") // 1024
            out["je_resident"] = self._je_size("stats.resident") // 1024
        if self._libc is not None:
            self._libc.mallinfo2.restype = MallInfo2
            mi = self._libc.mallinfo2()
            out["glibc_in_use"] = (mi.uordblks + mi.hblkhd) // 1024
            out["glibc_free"] = mi.fordblks // 1024
        try:
            with open("/proc/self/smaps_rollup") as fh:
                for line in fh:
                    if line.startswith(("Anonymous:", "Rss:")):
                        out[line.split(":")[0].lower()] = int(line.split()[1])
        except OSError:
            pass
        return out


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return [int(c) for c in fh.read().split()]
    except OSError:
        return []


class Profile:
    def __init__(self, trace: bool, top: int) -> None:
        self.phase = "discover"
        self.trace = trace
        self.top = top
        self.con: Any = None
        self.rows: list[dict[str, Any]] = []
        self.peak: dict[str, int] = {}
        self.peak_total: dict[str, int] = {}
        self.peak_duck: dict[str, int] = {}
        self.workers: dict[int, int] = {}  # pid -> peak VmRSS KiB
        self.worker_first: dict[int, int] = {}
        self.started = time.perf_counter()
        self.alloc = Allocators()
        self.peak_alloc: dict[str, dict[str, int]] = {}  # phase -> holder -> KiB, each at the parent's RSS peak
        self._stop = threading.Event()
        self._lock = threading.Lock()

    def sample(self) -> None:
        me = os.getpid()
        cursor = None
        last_duck = 0.0
        while not self._stop.is_set():
            parent = _rss_kib(me)
            kids = {pid: _rss_kib(pid) for pid in _children(me)}
            with self._lock:
                p = self.phase
                if parent > self.peak.get(p, 0):
                    self.peak_alloc[p] = self.alloc.read()
                self.peak[p] = max(self.peak.get(p, 0), parent)
                self.peak_total[p] = max(self.peak_total.get(p, 0), parent + sum(kids.values()))
                for pid, kib in kids.items():
                    self.workers[pid] = max(self.workers.get(pid, 0), kib)
                    self.worker_first.setdefault(pid, kib)
            if self.con is not None and time.perf_counter() - last_duck > 1.0:
                last_duck = time.perf_counter()
                try:
                    if cursor is None:
                        cursor = self.con.cursor()
                    used = cursor.execute("SELECT sum(memory_usage_bytes) FROM duckdb_memory()").fetchone()[0]
                    with self._lock:
                        self.peak_duck[p] = max(self.peak_duck.get(p, 0), int(used or 0))
                except Exception:  # the store is closed or busy: skip this sample
                    cursor = None
            time.sleep(0.2)

    def mark(self, name: str) -> None:
        """End the current phase (record its end state) and start `name`."""
        row: dict[str, Any] = {
            "phase": self.phase,
            "t_end_s": round(time.perf_counter() - self.started, 1),
            "rss_end_mib": round(_rss_kib(os.getpid()) / 1024),
            "end_mib": {k: round(v / 1024) for k, v in self.alloc.read().items()},
        }
        if self.con is not None:
            try:
                by_tag = (
                    self.con.cursor()
                    .execute("SELECT tag, memory_usage_bytes FROM duckdb_memory() WHERE memory_usage_bytes > 0")
                    .fetchall()
                )
                row["duckdb_end_mib"] = {t: round(b / 2**20, 1) for t, b in by_tag}
            except Exception as exc:
                row["duckdb_end_mib"] = f"unavailable: {exc}"
        if self.trace:
            current, peak = tracemalloc.get_traced_memory()
            row["py_heap_mib"] = round(current / 2**20, 1)
            row["py_heap_peak_mib"] = round(peak / 2**20, 1)
            tracemalloc.reset_peak()
            stats = tracemalloc.take_snapshot().statistics("lineno")[: self.top]
            row["py_top"] = [f"{s.size / 2**20:.1f} MiB {s.count} {s.traceback[0]}" for s in stats]
        with self._lock:
            self.rows.append(row)
            self.phase = name

    def finish(self) -> dict[str, Any]:
        self._stop.set()
        for row in self.rows:
            p = row["phase"]
            row["rss_peak_mib"] = round(self.peak.get(p, 0) / 1024)
            row["rss_peak_with_workers_mib"] = round(self.peak_total.get(p, 0) / 1024)
            row["duckdb_peak_mib"] = round(self.peak_duck.get(p, 0) / 2**20)
            row["at_rss_peak_mib"] = {k: round(v / 1024) for k, v in self.peak_alloc.get(p, {}).items()}
        return {
            "phases": self.rows,
            "workers": len(self.workers),
            "worker_peak_mib": sorted(round(k / 1024) for k in self.workers.values()),
            "worker_first_mib": sorted(round(k / 1024) for k in self.worker_first.values()),
        }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", type=Path)
    ap.add_argument("--tracemalloc", action="store_true")
    ap.add_argument("--top", type=int, default=12)
    ap.add_argument("--set", action="append", default=[], help="a DuckDB setting for the build store, `name=value`")
    args = ap.parse_args()
    if not args.root.is_dir():
        print(f"error: {args.root} is not a directory", file=sys.stderr)
        return 2

    from ctxops_code_graph import builder, duck_store, lookup_db

    prof = Profile(args.tracemalloc, args.top)
    connect = duck_store.connect

    def connect_and_keep(
        path: Path, memory_limit: str | None = None, wait: float = 0.0, block_size: int | None = None
    ) -> Any:
        con = connect(path, memory_limit=memory_limit, wait=wait, block_size=block_size)
        if memory_limit:  # the full build's store
            prof.con = con
            for setting in args.set:
                name, _, value = setting.partition("=")
                con.execute(f"SET {name} = '{value}'")
        return con

    duck_store.connect = connect_and_keep

    scan_chunks = getattr(builder, "scan_chunks")  # noqa: B009 (the name the builder calls, replaced below)

    def scan_marked(*a: Any, **k: Any) -> Any:
        prof.mark("scan")
        yield from scan_chunks(*a, **k)
        prof.mark("load")

    setattr(builder, "scan_chunks", scan_marked)  # noqa: B010

    def around(obj: Any, attr: str, before: str | None, after: str | None) -> None:
        original = getattr(obj, attr)

        def wrapped(*a: Any, **k: Any) -> Any:
            if before:
                prof.mark(before)
            out = original(*a, **k)
            if after:
                prof.mark(after)
            return out

        setattr(obj, attr, wrapped)

    around(duck_store, "resolve", "resolve", "rank")
    around(lookup_db.GenerationWriter, "finish", "snapshot", None)
    around(duck_store, "write_compacted", "compact", "close")
    around(lookup_db, "publish", "publish", "done")

    if args.tracemalloc:
        tracemalloc.start(1)
    sampler = threading.Thread(target=prof.sample, daemon=True)
    sampler.start()
    report = builder.IndexWriter(args.root.resolve()).build(full=True)
    prof.mark("end")
    out = prof.finish()
    out["cpu"] = report.cpu
    out["timings"] = report.timings
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
