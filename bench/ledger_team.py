"""The team ledger at scale: 3 machines push, then per-day totals from ``ctx ledger report --from`` vs engines.

    uv run python bench/ledger_team.py [--calls 1000000] [--machines 3] [--overlap 0.05] [--spark] [--keep DIR]

Each simulated machine has its own data dir and machine id and holds its share of ``--calls`` distinct calls
(3 models, 60 days) plus, for ``--overlap`` of them, a copy of a call the next machine also holds (the same
provider message: a transcript copied between laptops). Each machine loads its ledger (``ctx ledger totals``,
which loads the JSONL into DuckDB), pushes to a shared directory (``ctx ledger push``) and pushes again (must
write nothing). Then the per-day calls, tokens and cost of ``ctx ledger report day --from DIR --json`` are
compared with DuckDB reading the same Hive layout directly (``read_parquet(..., hive_partitioning=true)``,
one row per provider message id) and, with ``--spark``, Spark SQL (pyspark and a JRE: ``uv pip install
pyspark``, ``apt-get install default-jre-headless``) over the same directory. Counts and tokens must be equal
and costs equal to 1e-6 USD; the script exits 1 if not. Timings are printed beside each other.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

MODELS = ("claude-sonnet-4-5", "claude-opus-4-8", "claude-haiku-4-5")
T0 = datetime(2026, 9, 1, tzinfo=UTC)
SPAN_S = 60 * 86400


def ctx(*argv: str, env: dict[str, str]) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "ctxops_ledger_report", *argv],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
    )
    took = time.perf_counter() - started
    if done.returncode not in (0, 1):
        sys.exit(f"ctx ledger {' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return took, done.stdout


def write_machine(root: Path, machine: int, machines: int, calls: int, overlap: float) -> int:
    """Write this machine's JSONL: calls i with i % machines == machine, plus copies of the next machine's."""
    (root / "usage").mkdir(parents=True)
    lines = 0
    step = SPAN_S / calls
    with open(root / "usage" / "transcript-2026-09.jsonl", "w", encoding="utf-8") as out:
        for i in range(machine, calls, machines):
            out.write(_line(i, step))
            lines += 1
            j = i + 1  # the next machine's call: copied here for `overlap` of them
            if j < calls and (j * 2654435761 % 1000) < overlap * 1000:
                out.write(_line(j, step))
                lines += 1
    return lines


def _line(i: int, step: float) -> str:
    ts = T0 + timedelta(seconds=i * step)
    doc = {
        "schema_version": "1.2",
        "id": f"r{i:09d}",
        "ts": ts.isoformat().replace("+00:00", "Z"),
        "provider": "anthropic",
        "model": MODELS[i % 3],
        "session_id": f"s{i // 40:07d}",
        "cwd": f"/home/dev/p{i % 5}",
        "message_id": f"msg_{i:09d}",
        "request_id": f"req_{i:09d}",
        "input_tokens": 50 + i % 997,
        "output_tokens": 20 + i % 613,
        "cache_creation_tokens": (i % 7) * 300,
        "cache_read_tokens": (i % 11) * 1200,
        "origin": "transcript",
        "dedupe_key": f"anthropic:msg_{i:09d}:req_{i:09d}",
    }
    return json.dumps(doc, separators=(",", ":")) + "\n"


DAY_SQL = """
SELECT day, count(*) AS calls, sum(input_tokens) AS input, sum(output_tokens) AS output,
       sum(cache_creation_tokens) AS cache_write, sum(cache_read_tokens) AS cache_read, sum(cost_usd) AS cost
FROM (SELECT * FROM {source}
      QUALIFY row_number() OVER (
        PARTITION BY CASE WHEN message_id IS NOT NULL AND message_id <> '' THEN provider || ':' || message_id
                          ELSE dedupe_key END
        ORDER BY rank DESC, pushed_at DESC, machine) = 1)
GROUP BY day ORDER BY day
"""


def duckdb_days(shared: Path) -> tuple[float, dict[str, tuple]]:
    import duckdb

    started = time.perf_counter()
    con = duckdb.connect()
    source = f"read_parquet('{shared}/*/*/*.parquet', hive_partitioning = true)"
    rows = con.execute(DAY_SQL.format(source=source)).fetchall()
    return time.perf_counter() - started, {str(r[0]): tuple(r[1:]) for r in rows}


def spark_days(shared: Path) -> tuple[float, float, dict[str, tuple]]:
    from pyspark.sql import SparkSession

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # the driver binds to loopback only
    started = time.perf_counter()
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("ctxops-team-ledger")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    boot = time.perf_counter() - started
    started = time.perf_counter()
    spark.read.parquet(str(shared)).createOrReplaceTempView("ledger")
    # Spark has no QUALIFY: the same dedupe as a window in a subquery.
    sql = """
SELECT day, count(*) AS calls, sum(input_tokens), sum(output_tokens), sum(cache_creation_tokens),
       sum(cache_read_tokens), sum(cost_usd)
FROM (SELECT *, row_number() OVER (
        PARTITION BY CASE WHEN message_id IS NOT NULL AND message_id <> '' THEN concat(provider, ':', message_id)
                          ELSE dedupe_key END
        ORDER BY rank DESC, pushed_at DESC, machine) AS _n FROM ledger)
WHERE _n = 1 GROUP BY day ORDER BY day"""
    rows = spark.sql(sql).collect()
    took = time.perf_counter() - started
    spark.stop()
    return boot, took, {str(r[0]): tuple(r[1:]) for r in rows}


def compare(name: str, ours: dict[str, tuple], theirs: dict[str, tuple]) -> bool:
    if ours.keys() != theirs.keys():
        print(f"  {name}: days differ: {sorted(ours.keys() ^ theirs.keys())[:5]}")
        return False
    bad = [
        d
        for d in ours
        if ours[d][:5] != tuple(int(v) for v in theirs[d][:5]) or abs(ours[d][5] - float(theirs[d][5])) > 1e-6
    ]
    for d in bad[:5]:
        print(f"  {name}: {d}: ctx {ours[d]} vs {theirs[d]}")
    return not bad


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1_000_000, help="distinct calls over all machines")
    parser.add_argument("--machines", type=int, default=3)
    parser.add_argument("--overlap", type=float, default=0.05, help="share of calls also held by another machine")
    parser.add_argument("--spark", action="store_true", help="also read the layout with Spark SQL (pyspark + JRE)")
    parser.add_argument("--keep", metavar="DIR", help="work in DIR and keep it (default: a temporary directory)")
    parser.add_argument("--reuse", action="store_true", help="with --keep: read DIR/shared as pushed by a previous run")
    args = parser.parse_args()
    if args.reuse and not (args.keep and (Path(args.keep) / "shared").is_dir()):
        parser.error("--reuse needs --keep DIR holding a previous run's shared/")

    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="ctxops-team-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    shared = work / "shared"
    try:
        print(f"{args.calls:,} distinct calls on {args.machines} machines, {args.overlap:.0%} also on a second one")
        rows_total = 0
        timings: dict[str, list[float]] = {"load": [], "push": [], "re-push": []}
        for m in range(0 if args.reuse else args.machines):
            data = work / f"machine-{m}"
            shutil.rmtree(data, ignore_errors=True)
            rows = write_machine(data, m, args.machines, args.calls, args.overlap)
            rows_total += rows
            env = {"CTXOPS_DATA_DIR": str(data), "CTXOPS_MACHINE_ID": f"laptop-{m}", "XDG_STATE_HOME": str(data)}
            timings["load"].append(ctx("totals", "--no-ingest", "--json", env=env)[0])
            took, out = ctx("push", str(shared), "--no-ingest", "--json", env=env)
            timings["push"].append(took)
            pushed = json.loads(out)
            assert pushed["rows"] == rows, (pushed["rows"], rows)
            took, out = ctx("push", str(shared), "--no-ingest", "--json", env=env)
            timings["re-push"].append(took)
            assert json.loads(out)["rows"] == 0, "a re-push wrote rows"
            print(
                f"machine laptop-{m}: {rows:,} calls; load {timings['load'][-1]:.2f} s, "
                f"push {timings['push'][-1]:.2f} s, re-push {timings['re-push'][-1]:.2f} s (0 rows)"
            )
        files = list(shared.rglob("*.parquet"))
        size = sum(f.stat().st_size for f in files)
        print(
            f"layout: {len(files)} part files, {size / 1e6:.1f} MB"
            + (f", {rows_total:,} rows pushed" if rows_total else "")
        )

        took, out = ctx("report", "day", "--from", str(shared), "--json", env={})
        report = json.loads(out)
        ours = {
            r["day"]: (
                r["calls"],
                r["input_tokens"],
                r["output_tokens"],
                r["cache_write_tokens"],
                r["cache_read_tokens"],
                r["cost_usd"],
            )
            for r in report["rows"]
        }
        calls = sum(v[0] for v in ours.values())
        print(f"ctx ledger report day --from: {took:.2f} s, {len(ours)} days, {calls:,} calls")
        ok = calls == args.calls
        if not ok:
            print(f"  expected {args.calls:,} distinct calls")
        duck_s, duck = duckdb_days(shared)
        same = compare("duckdb", ours, duck)
        print(f"duckdb read_parquet(hive_partitioning=true): {duck_s:.2f} s, {len(duck)} days; equal: {same}")
        ok = ok and same
        if args.spark:
            try:
                boot, spark_s, spark = spark_days(shared)
            except ImportError as exc:
                print(f"spark: not run ({exc}; `uv pip install pyspark` and a JRE)")
            else:
                same = compare("spark", ours, spark)
                print(
                    f"spark sql (local[2]): {spark_s:.2f} s (+{boot:.1f} s JVM start), {len(spark)} days; equal: {same}"
                )
                ok = ok and same
        print("ALL EQUAL" if ok else "MISMATCH")
        return 0 if ok else 1
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
