"""Ledger reports over 1M recorded calls, warm, each as a fresh `python -m ctxops_ledger_report` process.

    uv run python bench/ledger_report.py [--records 1000000] [--keep]

Writes --records UsageRecords (90 days, 40 repositories, 4,000 sessions, 6 models one of them unpriced,
tool attribution on a third) as the JSONL truth token-capture appends, loads them once, then times each
report twice and keeps the second (warm: page cache and DuckDB file hot). The peer, measured in the same
run: DuckDB answering the same day-by-model sums straight from the JSONL with `read_json` (what a report
without a ledger would cost). Target: every report <= 1 s warm.
"""

from __future__ import annotations

import argparse
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


def timed(command: list[str]) -> float:
    started = time.perf_counter()
    # Bytecode caching on, as in an installed package (this workspace exports PYTHONDONTWRITEBYTECODE=1).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(command, capture_output=True, check=True, env={**env, "CTXOPS_CONFIG": os.devnull})
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=1_000_000, help="calls to write (default 1,000,000)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary data directory")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ctxops-bench-report-"))
    data = work / "data"
    try:
        started = time.perf_counter()
        write_records(data, args.records)
        size = (data / "usage" / "transcript-2026-09.jsonl").stat().st_size
        took = time.perf_counter() - started
        print(f"records: {args.records:,} calls, {size / 2**20:.0f} MB of JSONL (written in {took:.1f} s)")
        base = [sys.executable, "-m", "ctxops_ledger_report"]
        load = timed([*base, "totals", "--data-dir", str(data), "--json"])
        print(f"first load into the ledger (validate + DuckDB): {load:.2f} s")
        jsonl = str(data / "usage" / "*.jsonl")
        peer_sql = (
            f"SELECT strftime(ts, '%Y-%m-%d') d, model, count(*), sum(input_tokens), sum(output_tokens) "
            f"FROM read_json('{jsonl}', format='newline_delimited') GROUP BY ALL"
        )
        peer_cmd = [sys.executable, "-c", f"import duckdb; duckdb.sql({peer_sql!r}).fetchall()"]
        timed(peer_cmd)
        peer = timed(peer_cmd)
        print(f"peer: DuckDB read_json day x model sums, warm : {peer:.2f} s")
        worst = 0.0
        for kind in ("day", "week", "month", "session", "task", "repo", "model", "block", "tool", "file"):
            command = [*base, "report", kind, "--breakdown" if kind == "day" else "--json", "--data-dir", str(data)]
            if kind == "day":
                command.append("--json")
            timed(command)
            warm = timed(command)
            worst = max(worst, warm)
            print(f"ctx ledger report {kind:<6} warm: {warm:.2f} s   ratio to peer {warm / peer:.2f}")
        print(f"slowest report: {worst:.2f} s (target <= 1.00 s)")
        return 0
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
