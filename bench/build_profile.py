"""Where one full build's CPU goes, part by part, in parts that add up to the build (no cProfile).

    nice -n 10 uv run python bench/build_profile.py DIR [--json OUT]           # the build, wrapped
    nice -n 10 uv run python bench/build_profile.py DIR --by-module [--json OUT]  # the extraction under cProfile
    nice -n 10 uv run python bench/build_profile.py DIR --floor-split          # the floor's parse and query apart
    uv run python bench/build_profile.py --table R1.json R2.json R3.json --floor F1 F2 F3 [--module-json M.json]

The first form runs `IndexWriter(DIR).build(full=True, workers=1)` in this process with these functions wrapped
to add up the process's CPU (`time.process_time`: every thread's) while they run: `scan_file` (read, hash,
depth caps, extract), `extract`, tree-sitter's `Parser.parse` and each `QueryCursor`'s `matches`/`captures`
(by the module that runs the query), `cap_depth`/`cap_indent`, the chunk's encoding (`ChunkWriter.__call__`,
its SQLite shard apart), the chunk's load into DuckDB, every statement resolution runs (`duck_store.resolve`
is given a connection whose `execute` is timed: each `_RESOLVE_STEPS` step, each `type_eval` statement), the
file graph, the rank, the snapshot's copies and the compacted store. So that the parts do not overlap, the
snapshot's background copies run on the calling thread when started (the build runs them beside resolution
and the rank: the same work, later); with one worker the scan runs in this process and its one chunk is loaded
after the scan ends. The start-up (interpreter, imports) is the process's CPU before the build. Prints a table:
part, CPU-s, % of the process. The wrappers cost a few calls per file and per statement.

The second form runs what the build's scan runs for each file (`scan_file`, the cyclic collector on as in a
one-worker build) under cProfile on a CPU clock and sums each function's own time by module (code-scan's
modules; tree-sitter's methods; builtins; msgspec): the extraction's Python split by module. cProfile inflates
Python calls, so read its shares, scaled to the first form's unprofiled figure, not its seconds. The third
form prints the parts' medians over rounds beside the floor's median (`parse_floor.py DIR --workers 1`'s
CPU-s, given), and the scan's Python split by the second form's shares.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

_START = resource.getrusage(resource.RUSAGE_SELF)

CPU: dict[str, float] = defaultdict(float)
CALLS: dict[str, int] = defaultdict(int)


def _proc() -> float:
    return time.process_time()


def _timed(owner: Any, name: str, label: str) -> None:
    fn = getattr(owner, name)

    def timed(*args: Any, **kwargs: Any) -> Any:
        start = _proc()
        try:
            return fn(*args, **kwargs)
        finally:
            CPU[label] += _proc() - start
            CALLS[label] += 1

    setattr(owner, name, timed)


class _Parser:
    """tree-sitter's parser with `parse` timed."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def parse(self, *args: Any, **kwargs: Any) -> Any:
        start = _proc()
        try:
            return self._real.parse(*args, **kwargs)
        finally:
            CPU["ts.parse"] += _proc() - start
            CALLS["ts.parse"] += 1

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def _cursor_class(real_cls: Any) -> Any:
    class Cursor:
        """tree-sitter's query cursor with `matches`/`captures` timed by the module that asks."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            self._real = real_cls(*args, **kwargs)
            self._who = sys._getframe(1).f_globals.get("__name__", "?").rsplit(".", 1)[-1]

        def _run(self, what: str, *args: Any, **kwargs: Any) -> Any:
            start = _proc()
            try:
                return getattr(self._real, what)(*args, **kwargs)
            finally:
                key = f"ts.query {self._who}.{what}"
                CPU[key] += _proc() - start
                CALLS[key] += 1

        def matches(self, *args: Any, **kwargs: Any) -> Any:
            return self._run("matches", *args, **kwargs)

        def captures(self, *args: Any, **kwargs: Any) -> Any:
            return self._run("captures", *args, **kwargs)

        def __getattr__(self, name: str) -> Any:
            return getattr(self._real, name)

    return Cursor


def _label(sql: str) -> str:
    from ctxops_code_graph import duck_store

    text = sql.strip()
    for i, (group, step) in enumerate(duck_store._RESOLVE_STEPS):
        if step.strip() == text:
            return f"resolve step {i:02d} ({group or '-'}): {_head(text)}"
    who = sys._getframe(2)
    return f"{who.f_globals.get('__name__', '?').rsplit('.', 1)[-1]}.{who.f_code.co_name}: {_head(text)}"


def _head(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("--")]
    head = " ".join(lines)
    return head[:70]


class _Con:
    """A DuckDB connection whose `execute` is timed, statement by statement."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def execute(self, sql: str, *args: Any) -> Any:
        label = "resolve " + _label(sql)
        start = _proc()
        try:
            return self._real.execute(sql, *args)
        finally:
            CPU[label] += _proc() - start
            CALLS[label] += 1

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


class _SyncThread:
    """Runs a snapshot copy on the caller's thread when started, so it overlaps nothing."""

    def __init__(self, target: Any, args: tuple[Any, ...] = (), daemon: bool = False) -> None:
        self._target, self._args = target, args

    def start(self) -> None:
        self._target(*self._args)

    def join(self, timeout: float | None = None) -> None:
        pass

    def is_alive(self) -> bool:
        return False


def _instrument() -> None:
    import types

    import tree_sitter
    from ctxops_code_graph import builder, bulk_load, duck_store, lookup_db, rank, type_eval
    from ctxops_code_scan import depth, extract, scan

    real_parser = extract._parser
    extract._parser = lambda lang: _Parser(real_parser(lang))  # type: ignore[assignment]
    tree_sitter.QueryCursor = _cursor_class(tree_sitter.QueryCursor)  # type: ignore[misc]
    _timed(scan, "scan_file", "scan.scan_file")
    _timed(extract, "extract", "scan.extract")
    _timed(depth, "cap_depth", "scan.cap_depth")
    _timed(depth, "cap_indent", "scan.cap_indent")
    _timed(bulk_load.ChunkWriter, "__call__", "encode.chunk")
    _timed(bulk_load.ChunkWriter, "_shard", "encode.shard (SQLite)")
    _timed(bulk_load, "_load_chunk", "load.chunk into DuckDB")
    _timed(type_eval, "evaluate", "resolve type_eval.evaluate (all)")
    real_resolve = duck_store.resolve

    def resolve(con: Any, **kwargs: Any) -> None:
        start = _proc()
        try:
            real_resolve(_Con(con), **kwargs)
        finally:
            CPU["resolve (all)"] += _proc() - start

    duck_store.resolve = resolve  # type: ignore[assignment]
    lookup_db.threading = types.SimpleNamespace(Thread=_SyncThread)  # type: ignore[attr-defined]
    _timed(lookup_db.GenerationWriter, "_copy_early", "snapshot.copy early")
    _timed(lookup_db.GenerationWriter, "_copy_edges", "snapshot.copy edges")
    _timed(lookup_db.GenerationWriter, "finish", "snapshot.finish")
    _timed(duck_store, "rebuild_file_edges", "rank.file graph")
    _timed(builder, "pagerank", "rank.pagerank")
    del rank
    _timed(duck_store, "write_compacted", "publish.write_compacted")


def build(root: Path, no_gc: bool = False) -> dict[str, Any]:
    import gc

    from ctxops_code_graph.builder import IndexWriter

    imported = resource.getrusage(resource.RUSAGE_SELF)
    _instrument()
    if no_gc:
        gc.disable()  # as a scan worker runs its chunk (`_scan_chunk`); a one-worker build scans with it on
    cpu0 = _proc()
    report = IndexWriter(root).build(full=True, workers=1)
    cpu1 = _proc()
    end = resource.getrusage(resource.RUSAGE_SELF)

    def cpu(r: Any) -> float:
        return float(r.ru_utime + r.ru_stime)

    return {
        "start-up before main (interpreter, site)": cpu(_START),
        "imports": cpu(imported) - cpu(_START),
        "build": cpu1 - cpu0,
        "process": cpu(end),
        "phases": report.cpu,
        "parts": {k: round(v, 3) for k, v in sorted(CPU.items())},
        "calls": dict(sorted(CALLS.items())),
    }


def floor_split(root: Path) -> dict[str, Any]:
    """`parse_floor.py`'s work in this process (no fork), its parse and its query timed apart."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import parse_floor
    from ctxops_code_scan.discover import discover
    from ctxops_code_scan.languages import BY_NAME

    imported = resource.getrusage(resource.RUSAGE_SELF)
    _instrument()
    files = [f for f in discover(root).files if f.lang in BY_NAME and BY_NAME[f.lang].grammar is not None]
    start = _proc()
    parse_floor._work((str(root), [(f.path, f.lang) for f in files]))
    end = resource.getrusage(resource.RUSAGE_SELF)
    return {
        "work": round(_proc() - start, 3),
        "start-up and imports": round(imported.ru_utime + imported.ru_stime, 3),
        "process": round(end.ru_utime + end.ru_stime, 3),
        "parts": {k: round(v, 3) for k, v in sorted(CPU.items())},
    }


def by_module(root: Path) -> dict[str, Any]:
    import cProfile
    import pstats

    from ctxops_code_scan.discover import discover
    from ctxops_code_scan.scan import scan_file

    files = discover(root).files
    prof = cProfile.Profile(time.process_time)
    start = time.process_time()
    prof.enable()
    for f in files:
        scan_file(root, f.path, f.lang)
    prof.disable()
    total = time.process_time() - start
    buckets: dict[str, float] = defaultdict(float)
    for (path, _line, name), (_cc, _nc, tt, _ct, _callers) in pstats.Stats(prof).stats.items():  # type: ignore[attr-defined]
        if "ctxops_code_scan" in path:
            key = "code-scan " + Path(path).name
        elif "tree_sitter" in name:
            key = "tree-sitter " + name.split("'")[1] if "'" in name else "tree-sitter " + name
        elif "msgspec" in name or "msgspec" in path:
            key = "msgspec"
        elif path == "~":
            key = "builtin " + (name.split("'")[1] if "'" in name else name)
        else:
            key = "other Python " + Path(path).name
        buckets[key] += tt
    return {"files": len(files), "profiled_cpu_s": round(total, 3), "own_time": dict(sorted(buckets.items()))}


def _median(xs: list[float]) -> float:
    import statistics

    return statistics.median(xs)


def _exclusive(run: dict[str, Any]) -> list[tuple[str, float]]:
    """One wrapped run's parts, each exclusive of the others: they add up to the process's CPU."""
    p, ph = run["parts"], run["phases"]

    def g(key: str) -> float:
        return float(p.get(key, 0.0))

    queries = {k: v for k, v in p.items() if k.startswith("ts.query ")}
    other_queries = sum(v for k, v in queries.items() if k != "ts.query extract.matches")
    caps = g("scan.cap_depth") + g("scan.cap_indent")
    typing = g("resolve type_eval.evaluate (all)")
    resolve_all = g("resolve (all)")
    ranked = g("rank.file graph") + g("rank.pagerank")
    rows = [
        ("start-up and imports", run["start-up before main (interpreter, site)"] + run["imports"]),
        ("discover", ph["discover"]),
        ("scan: tree-sitter parse", g("ts.parse")),
        ("scan: tree-sitter tags query (matches)", g("ts.query extract.matches")),
        ("scan: tree-sitter other queries", other_queries),
        (
            "scan: extraction's Python (extract less tree-sitter's parse and queries)",
            g("scan.extract") - g("ts.parse") - sum(queries.values()),
        ),
        ("scan: depth caps (cap_depth, cap_indent)", caps),
        ("scan: read, hash, checks (scan_file less extract, caps)", g("scan.scan_file") - g("scan.extract") - caps),
        ("scan: records' encoding (JSON lines, rows)", g("encode.chunk") - g("encode.shard (SQLite)")),
        ("scan: snapshot shard (SQLite)", g("encode.shard (SQLite)")),
        ("scan: chunk load into DuckDB", g("load.chunk into DuckDB")),
        ("scan: rest", ph["scan"] - g("scan.scan_file") - g("encode.chunk") - g("load.chunk into DuckDB")),
        ("load: imports' targets", ph["load"]),
        ("resolve: type_eval (receiver types)", typing),
        ("resolve: _RESOLVE_STEPS and the rest of resolve()", resolve_all - typing),
        ("resolve phase: snapshot's early copy (beside resolution in a build)", g("snapshot.copy early")),
        ("resolve phase: rest", ph["resolve"] - resolve_all - g("snapshot.copy early")),
        ("rank: file graph + pagerank", ranked),
        ("rank phase: snapshot's edge copy (beside the rank in a build)", g("snapshot.copy edges")),
        ("rank phase: rest (ranks, meta)", ph["rank"] - ranked - g("snapshot.copy edges")),
        ("snapshot: finish (late tables, indexes)", ph["snapshot"]),
        ("publish: compacted store", g("publish.write_compacted")),
        ("publish: rest", ph["publish"] - g("publish.write_compacted")),
    ]
    rows.append(("unaccounted (process less the above)", run["process"] - sum(v for _, v in rows)))
    return rows


def _statements(runs: list[dict[str, Any]], top: int) -> list[tuple[str, float, int]]:
    keys = {k for r in runs for k in r["parts"] if k.startswith("resolve ") and not k.endswith("(all)")}
    med = [(k, _median([float(r["parts"].get(k, 0.0)) for r in runs]), runs[0]["calls"].get(k, 0)) for k in keys]
    return sorted(med, key=lambda t: -t[1])[:top]


def table(paths: list[Path], floors: list[float], by_module_path: Path | None, top: int) -> None:
    """Print the parts' medians over the runs, beside the floor's median."""
    runs = [json.loads(p.read_text()) for p in paths]
    per = [_exclusive(r) for r in runs]
    floor = _median(floors)
    build = _median([r["process"] for r in runs])
    print(
        f"runs {len(runs)}; floor median {floor:.2f} CPU-s; build (process) median {build:.2f} ({build / floor:.2f}x)"
    )
    print("| part | CPU-s (median) | runs | % of build | x floor |\n|---|---:|---|---:|---:|")
    total = 0.0
    for i, (name, _) in enumerate(per[0]):
        vals = [p[i][1] for p in per]
        m = _median(vals)
        total += m
        each = ", ".join(f"{v:.2f}" for v in vals)
        print(f"| {name} | {m:.2f} | {each} | {100 * m / build:.1f}% | {m / floor:.2f}x |")
    print(f"| sum of the medians | {total:.2f} | | {100 * total / build:.1f}% | {total / floor:.2f}x |")
    print("\nresolution's costliest statements (median CPU-s, calls in one run):")
    for k, m, n in _statements(runs, top):
        print(f"  {m:6.3f} {n:4d}  {k}")
    if by_module_path is None:
        return
    own = json.loads(by_module_path.read_text())["own_time"]
    timed = ("tree-sitter parse", "tree-sitter matches", "tree-sitter captures")
    rest = {k: v for k, v in own.items() if k not in timed}
    python = _median(
        [
            dict(p)["scan: extraction's Python (extract less tree-sitter's parse and queries)"]
            + dict(p)["scan: depth caps (cap_depth, cap_indent)"]
            + dict(p)["scan: read, hash, checks (scan_file less extract, caps)"]
            for p in per
        ]
    )
    groups: dict[str, float] = defaultdict(float)
    for k, v in rest.items():
        if k.startswith("code-scan "):
            groups[k] += v
        elif k.startswith("tree-sitter "):
            groups["tree-sitter node methods (child_by_field_name, named_child, ...)"] += v
        elif k.startswith("builtin "):
            groups["builtins (dict/list/str methods, bytes.decode, re)"] += v
        else:
            groups["other (msgspec, stdlib Python)"] += v
    whole = sum(groups.values())
    print(f"\nthe scan's Python ({python:.2f} CPU-s unprofiled) by module, cProfile's own-time shares:")
    print("| module | share | CPU-s (scaled) |\n|---|---:|---:|")
    for k, v in sorted(groups.items(), key=lambda kv: -kv[1]):
        if v >= 0.004 * whole:
            print(f"| {k} | {100 * v / whole:.1f}% | {python * v / whole:.2f} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", type=Path, nargs="?")
    ap.add_argument("--by-module", action="store_true")
    ap.add_argument("--floor-split", action="store_true", help="parse_floor's work here, parse and query apart")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--no-gc", action="store_true", help="the cyclic collector off for the whole build")
    ap.add_argument("--table", type=Path, nargs="+", help="the wrapped runs' --json files: print the parts' medians")
    ap.add_argument("--floor", type=float, nargs="+", default=[], help="the same rounds' parse_floor CPU-s")
    ap.add_argument("--module-json", type=Path, help="a --by-module --json file, to split the scan's Python")
    ap.add_argument("--top", type=int, default=12)
    args = ap.parse_args()
    if args.table:
        table(args.table, args.floor, args.module_json, args.top)
        return 0
    root = args.root.resolve()
    load = Path("/proc/loadavg").read_text().split()[0]
    if args.floor_split:
        out = floor_split(root)
        out["load"] = load
        print(json.dumps(out))
    elif args.by_module:
        out = by_module(root)
        out["load"] = load
        total = sum(out["own_time"].values())
        for key, tt in sorted(out["own_time"].items(), key=lambda kv: -kv[1]):
            if tt >= 0.005 * total:
                print(f"{key:55s} {tt:8.2f} {100 * tt / total:5.1f}%")
        print(f"{'all own time (profiled)':55s} {total:8.2f}")
    else:
        out = build(root, args.no_gc)
        out["load"] = load
        width = max(len(k) for k in out["parts"]) + 2
        for key, value in out["parts"].items():
            print(f"{key:{width}s} {value:8.3f} {out['calls'].get(key, 0):8d}")
        print(
            json.dumps(
                {
                    k: out[k]
                    for k in (
                        "start-up before main (interpreter, site)",
                        "imports",
                        "build",
                        "process",
                        "phases",
                        "load",
                    )
                }
            )
        )
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
