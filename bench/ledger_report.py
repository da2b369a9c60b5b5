"""Ledger reports over 1M recorded calls, warm, each as a fresh `python -m ctxops_ledger_report` process.

    uv run python bench/ledger_report.py [--records 1000000] [--keep] [--data DIR] [--phases] [--compare]

Writes --records UsageRecords (90 days, 40 repositories, 4,000 sessions, 6 models one of them unpriced,
tool attribution on a third) as the JSONL truth token-capture appends, loads them once, then times each
report twice and keeps the second (warm: page cache and DuckDB file hot), wall and CPU (user+sys of the
child). Each report runs from the hourly roll-up (the default) and, beside it in the same round, from the
calls themselves (`CTXOPS_LEDGER_ROLLUP=0`). The peers, measured in the same run: `python -c pass`, and
DuckDB answering the day-by-model sums straight from the JSONL with `read_json` (what a report without a
ledger would cost). Target: every report <= 1 s warm. `--phases` adds where one warm report's CPU goes,
in-process (imports, opening the ledger, the query, the status-line snapshot, JSON). `--compare` checks, at
this scale, that every grouping from the roll-up equals the same report from the calls (both pricing
rules; all calls, a window whose bounds fall inside hours, Europe/Paris). `--data DIR` reuses a data dir
kept by `--keep`.
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
from pathlib import Path

import duckdb

MODELS = ["claude-sonnet-4-5", "claude-opus-4-8", "claude-haiku-4-5", "gpt-5-codex", "gemini-2.5-pro", "in-house-7b"]


def write_records(data: Path, count: int) -> None:
    """The JSONL a ledger holds, written by DuckDB (fast) in the UsageRecord shape."""
    usage = data / "usage"
    usage.mkdir(parents=True)
    models = "[" + ", ".join(f"'{m}'" for m in MODELS) + "]"
    duckdb.sql(
        f"""
COPY (
  SELECT
    '1.1' AS schema_version,
    printf('01J%023d', i) AS id,
    strftime(TIMESTAMP '2026-09-01 00:00:00' + to_seconds(i * (90 * 86400 // {count})), '%Y-%m-%dT%H:%M:%SZ') AS ts,
    CASE WHEN i % 6 = 3 THEN 'openai' WHEN i % 6 = 4 THEN 'google' ELSE 'anthropic' END AS provider,
    {models}[1 + i % 6] AS model,
    printf('session-%04d', (i // 250) % 4000) AS session_id,
    printf('/home/dev/repo-%02d', (i // 250) % 40) AS repo,
    CASE WHEN i % 3 = 0 THEN 'main' ELSE printf('feature-%d', (i // 5000) % 50) END AS git_branch,
    100 + i % 900 AS input_tokens,
    20 + i % 2000 AS output_tokens,
    CASE WHEN i % 5 = 0 THEN 3000 ELSE 0 END AS cache_creation_tokens,
    CASE WHEN i % 10 = 0 THEN 1000 ELSE 0 END AS cache_creation_1h_tokens,
    20000 + i % 150000 AS cache_read_tokens,
    'provider-reported' AS source,
    'transcript' AS origin,
    printf('bench:%d', i) AS dedupe_key,
    CASE WHEN i % 3 = 0 THEN [{{'tool': 'Read', 'files': [printf('src/m%03d.py', i % 500)], 'bytes': 4000,
                              'tokens': 1000}}]
         ELSE [] END AS attribution
  FROM range({count}) t(i)
) TO '{usage}/transcript-2026-09.jsonl' (FORMAT json)
"""
    )


def timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall and CPU (user+sys of the child) seconds of one run."""
    # Bytecode caching on, as in an installed package (this workspace exports PYTHONDONTWRITEBYTECODE=1).
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    before = os.times()
    started = time.perf_counter()
    subprocess.run(command, capture_output=True, check=True, env={**base, "CTXOPS_CONFIG": os.devnull, **(env or {})})
    wall = time.perf_counter() - started
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return wall, cpu


PHASES = r"""
import json, sys, time
t0 = time.process_time()
import duckdb
t1 = time.process_time()
from pathlib import Path
from ctxops_contracts.shared.cli import dumps
from ctxops_ledger_report.prices import PriceBook
from ctxops_ledger_report.config import load_config
from ctxops_ledger_report.reports import Filters, build
from ctxops_ledger_report.snapshot import refresh_snapshot
from ctxops_ledger_report.store import open_view
t2 = time.process_time()
data, kind = Path(sys.argv[1]), sys.argv[2]
with open_view(data, book=PriceBook.bundled()) as view:
    t3 = time.process_time()
    report = build(view, kind, Filters(), breakdown=kind == "day")
    t4 = time.process_time()
    refresh_snapshot(view, load_config([]), data)
    t5 = time.process_time()
t6 = time.process_time()
dumps(report.as_dict())
t7 = time.process_time()
print(json.dumps({"duckdb import": t1 - t0, "other imports": t2 - t1, "open + load check": t3 - t2,
                  "query + rows": t4 - t3, "snapshot": t5 - t4, "close": t6 - t5, "JSON": t7 - t6}))
"""


COMPARE = r"""
import math, sys
from datetime import UTC, datetime
from pathlib import Path
from ctxops_ledger_report.prices import PriceBook
from ctxops_ledger_report.reports import Filters, build
from ctxops_ledger_report.store import open_view
from ctxops_token_capture.timerange import TimeRange

def same(a, b, where):
    if isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{where}[{i}]")
    elif isinstance(a, float) and isinstance(b, float):
        assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9), f"{where}: {a} != {b}"
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"

window = TimeRange(datetime(2026, 9, 10, 7, 13, tzinfo=UTC), datetime(2026, 10, 20, 18, 41, 5, tzinfo=UTC))
cases = (
    ("all", Filters(), "UTC"),
    ("window", Filters(window=window), "UTC"),
    ("Europe/Paris", Filters(), "Europe/Paris"),
)
for mode in ("exact", "ccusage"):
    with open_view(Path(sys.argv[1]), book=PriceBook.bundled(), mode=mode) as view:
        for kind in ("day", "week", "month", "session", "task", "repo", "model", "block"):
            for label, filters, tz in cases:
                view.rollup = True
                rolled = build(view, kind, filters, tz=tz, breakdown=kind == "day").as_dict()
                view.rollup = False
                calls = build(view, kind, filters, tz=tz, breakdown=kind == "day").as_dict()
                same(rolled, calls, f"{mode} {kind} {label}")
                print(f"{mode:<8} {kind:<8} {label:<13} equal ({len(rolled['rows'])} rows)")
"""


def compare(data: Path) -> None:
    print("\nroll-up vs calls, every grouping:")
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run(
        [sys.executable, "-c", COMPARE, str(data)], env={**base, "CTXOPS_CONFIG": os.devnull}, text=True, check=False
    )
    if done.returncode:
        raise SystemExit("the roll-up and the calls disagree (above)")


def phases(data: Path, kinds: tuple[str, ...]) -> None:
    print("\nwhere one warm report's CPU goes (in-process, CPU seconds of all its threads; second run):")
    header = None
    for kind in kinds:
        for label, env in (("roll-up", {}), ("calls", {"CTXOPS_LEDGER_ROLLUP": "0"})):
            command = [sys.executable, "-c", PHASES, str(data), kind]
            base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
            run_env = {**base, "CTXOPS_CONFIG": os.devnull, **env}
            subprocess.run(command, capture_output=True, check=True, env=run_env)
            out = subprocess.run(command, capture_output=True, check=True, env=run_env, text=True).stdout
            parts = json.loads(out)
            if header is None:
                header = list(parts)
                print(f"{'report':<16}" + "".join(f"{h:>18}" for h in header))
            print(f"{kind + ' ' + label:<16}" + "".join(f"{parts[h]:>18.3f}" for h in header))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=1_000_000, help="calls to write (default 1,000,000)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary data directory")
    parser.add_argument("--data", type=Path, help="a data dir kept by an earlier --keep run (skips writing)")
    parser.add_argument("--phases", action="store_true", help="also show where one warm report's time goes")
    parser.add_argument("--compare", action="store_true", help="also check the roll-up against the calls")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ctxops-bench-report-")) if args.data is None else args.data.parent
    data = args.data or work / "data"
    try:
        base = [sys.executable, "-m", "ctxops_ledger_report"]
        if args.data is None:
            started = time.perf_counter()
            write_records(data, args.records)
            size = (data / "usage" / "transcript-2026-09.jsonl").stat().st_size
            took = time.perf_counter() - started
            print(f"records: {args.records:,} calls, {size / 2**20:.0f} MB of JSONL (written in {took:.1f} s)")
            wall, cpu = timed([*base, "totals", "--data-dir", str(data), "--json"])
            print(f"first load into the ledger (validate + DuckDB + roll-up): {wall:.2f} s ({cpu:.2f} CPU-s)")
        print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        jsonl = str(data / "usage" / "*.jsonl")
        peer_sql = (
            f"SELECT strftime(ts, '%Y-%m-%d') d, model, count(*), sum(input_tokens), sum(output_tokens) "
            f"FROM read_json('{jsonl}', format='newline_delimited') GROUP BY ALL"
        )
        peer_cmd = [sys.executable, "-c", f"import duckdb; duckdb.sql({peer_sql!r}).fetchall()"]
        floor_cmd = [sys.executable, "-c", "pass"]
        for command in (peer_cmd, floor_cmd):
            timed(command)
        peer, peer_cpu = timed(peer_cmd)
        floor, floor_cpu = timed(floor_cmd)
        print(f"peer: DuckDB read_json day x model sums, warm: {peer:.2f} s ({peer_cpu:.2f} CPU-s)")
        print(f"floor: python -c pass: {floor:.3f} s ({floor_cpu:.3f} CPU-s)\n")
        head = ("roll-up wall", "CPU", "calls wall", "CPU", "/ calls", "/ peer")
        print(f"{'report':<8}" + "".join(f"{h:>13}" for h in head))
        worst = 0.0
        kinds = ("day", "week", "month", "session", "task", "repo", "model", "block", "tool", "file")
        for kind in kinds:
            command = [*base, "report", kind, "--json", "--data-dir", str(data)]
            if kind == "day":
                command.append("--breakdown")
            results = []
            for env in ({}, {"CTXOPS_LEDGER_ROLLUP": "0"}):
                timed(command, env)
                results.append(timed(command, env))
            (wall, cpu), (raw, raw_cpu) = results
            worst = max(worst, wall)
            cells = (f"{wall:.2f} s", f"{cpu:.2f}", f"{raw:.2f} s", f"{raw_cpu:.2f}", f"{wall / raw:.2f}")
            print(f"{kind:<8}" + "".join(f"{c:>13}" for c in (*cells, f"{wall / peer:.2f}")))
        print(f"slowest report: {worst:.2f} s (target <= 1.00 s)")
        if args.phases:
            phases(data, kinds[:8])
        if args.compare:
            compare(data)
        return 0
    finally:
        if args.keep or args.data is not None:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
