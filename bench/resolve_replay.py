"""Resolution replayed on a built index's DuckDB store under a small memory cap, its edges fingerprinted.

    uv run python bench/resolve_replay.py REPO --memory 60MB [--threads N] [--save edges.parquet]
    uv run python bench/resolve_replay.py REPO --memory 60MB --compare edges.parquet

REPO has a built index (`cq --root REPO index`). Its build store is copied to a temporary directory (the
index itself is never written) and `duck_store.resolve(all_refs=True)` re-runs there with DuckDB's
`memory_limit` at `--memory`: the statement that cannot stay under the cap (DuckDB: "failed to pin block")
is printed with its error. On success it prints the wall, CPU and the edges' count and order-free
fingerprint; `--save` writes the edges (sorted) to Parquet, `--compare` checks them row for row against a
saved run (exit 1 on any difference). `--after` then runs, under the same cap, what a full build runs next
in DuckDB: resolution's scratch dropped, the snapshot's edge copy read slice by slice on a cursor of its own
(its rows fetched and dropped, no SQLite) while the file graph is rebuilt, as the build overlaps them.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ctxops_code_graph import duck_store

_EDGE_ORDER = "ORDER BY ALL"


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _traced(con: Any, log: list[str], costs: dict[str, list[float]] | None = None) -> Any:
    """A proxy of `con` that records the last statement it ran (to name the one that fails) and, with
    `costs`, each statement's CPU-s (all of DuckDB's threads) and calls, keyed by its text."""

    class Traced:
        def execute(self, sql: str, *args: Any) -> Any:
            log.append(sql)
            if costs is None:
                return con.execute(sql, *args)
            cpu0 = _cpu()
            try:
                return con.execute(sql, *args)
            finally:
                cost = costs.setdefault(" ".join(sql.split()), [0.0, 0])
                cost[0] += _cpu() - cpu0
                cost[1] += 1

        def __getattr__(self, name: str) -> Any:
            return getattr(con, name)

    return Traced()


def _after_resolution(con: Any) -> str:
    """The build's DuckDB work after resolution, overlapped as in `builder._full_build`; the failure, if any."""
    import threading

    from ctxops_code_graph import lookup_db, rid_slices

    duck_store.drop_scratch(con)
    con.execute("CREATE OR REPLACE TABLE snap_fk AS SELECT path, row_number() OVER (ORDER BY path) AS fk FROM files")
    con.execute(
        "CREATE OR REPLACE TABLE snap_sk AS SELECT id, row_number() OVER (ORDER BY path, line, id) AS sk FROM symbols"
    )
    errors: list[str] = []

    def copy_reads(cursor: Any) -> None:
        try:
            query = lookup_db._EDGES_FROM_DUCKDB["edges"]
            for where in list(rid_slices.ranges(cursor, "edge_rows", lookup_db.EDGE_COPY_ROWS)):
                cursor.execute(query.format(slice=where.replace("rid", "e.rid")))
                while cursor.fetchmany(50_000):
                    pass
        except Exception as exc:
            errors.append(f"edge copy: {type(exc).__name__}: {str(exc).splitlines()[0]}")
        finally:
            cursor.close()

    thread = threading.Thread(target=copy_reads, args=(con.cursor(),))
    thread.start()
    try:
        duck_store.rebuild_file_edges(con)
    except Exception as exc:
        errors.append(f"file graph: {type(exc).__name__}: {str(exc).splitlines()[0]}")
    thread.join()
    return "; ".join(errors)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo", type=Path)
    ap.add_argument("--memory", default="60MB", help="DuckDB memory_limit for the replay")
    ap.add_argument("--threads", type=int, default=0, help="DuckDB threads (0: DuckDB's default)")
    ap.add_argument("--set", action="append", default=[], help="a DuckDB setting for the replay, `name=value`")
    ap.add_argument("--slice-rows", type=int, default=0, help="references per slice (0: the package's default)")
    ap.add_argument("--save", type=Path, help="write the resolved edges, sorted, to this Parquet file")
    ap.add_argument("--compare", type=Path, help="compare the resolved edges with this saved Parquet file")
    ap.add_argument("--after", action="store_true", help="then the file graph and the edge copy's reads, same cap")
    ap.add_argument("--statements", type=int, default=0, help="print the N statements that cost the most CPU")
    args = ap.parse_args(argv)
    if args.slice_rows:
        from ctxops_code_graph import rid_slices

        rid_slices.ROWS = args.slice_rows
    store = args.repo / ".meta" / "index" / "code.duckdb"
    if not store.is_file():
        print(f"error: no build store at {store} (run `cq --root {args.repo} index` first)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="resolve-replay-") as tmp:
        copy = Path(tmp) / "code.duckdb"
        shutil.copyfile(store, copy)
        con = duck_store.connect(copy, memory_limit=args.memory)
        if args.threads:
            con.execute(f"SET threads TO {args.threads}")
        for setting in args.set:
            name, _, value = setting.partition("=")
            con.execute(f"SET {name} = '{value}'")
        log: list[str] = []
        costs: dict[str, list[float]] | None = {} if args.statements else None
        cpu0, wall0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        try:
            duck_store.resolve(_traced(con, log, costs), all_refs=True)
        except Exception as exc:  # the replay's point is to name the failing statement
            statement = " ".join((log[-1] if log else "?").split())
            print(f"FAILED at {args.memory}: {type(exc).__name__}: {str(exc).splitlines()[0]}")
            print(f"statement ({len(log)} run): {statement[:200]} ... {statement[-400:]}")
            return 1
        cpu1 = resource.getrusage(resource.RUSAGE_SELF)
        cpu = cpu1.ru_utime - cpu0.ru_utime + cpu1.ru_stime - cpu0.ru_stime
        count, digest = con.execute("SELECT count(*), bit_xor(hash(e)) FROM (SELECT * FROM edges) e").fetchone()
        print(
            f"ok at {args.memory}: resolve {time.perf_counter() - wall0:.2f} s wall, {cpu:.2f} CPU-s,"
            f" edges {count}, fingerprint {digest}, peak RSS {cpu1.ru_maxrss / 1024:.0f} MiB"
        )
        if costs:
            ranked = sorted(costs.items(), key=lambda item: -item[1][0])
            for sql, (spent, calls) in ranked[: args.statements]:
                shown = sql if len(sql) <= 150 else f"{sql[:70]} ... {sql[-75:]}"
                print(f"{spent:7.2f} CPU-s {int(calls):4d}x  {shown}")
            print(f"{sum(c[0] for c in costs.values()):7.2f} CPU-s in {sum(int(c[1]) for c in costs.values())} calls")
        if args.after:
            failed = _after_resolution(con)
            after = resource.getrusage(resource.RUSAGE_SELF)
            if failed:
                print(f"FAILED after resolution at {args.memory}: {failed}")
                return 1
            peak = after.ru_maxrss / 1024
            print(f"ok at {args.memory}: the file graph and the edge copy's reads, peak RSS {peak:.0f} MiB")
        con.execute("RESET memory_limit")  # (the checks below are not what is measured)
        if args.save:
            con.execute(f"COPY (SELECT * FROM edges {_EDGE_ORDER}) TO '{args.save}' (FORMAT parquet)")
        if args.compare:
            extra, missing = con.execute(
                f"SELECT (SELECT count(*) FROM (SELECT * FROM edges EXCEPT ALL SELECT * FROM '{args.compare}')),"
                f" (SELECT count(*) FROM (SELECT * FROM '{args.compare}' EXCEPT ALL SELECT * FROM edges))"
            ).fetchone()
            print(f"against {args.compare}: {extra} edges not in it, {missing} of its edges missing")
            if extra or missing:
                return 1
        con.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
