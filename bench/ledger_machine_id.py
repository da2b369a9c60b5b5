"""What machine ids and skipped team parts cost: each figure printed beside the run it is compared with.

    uv run python bench/ledger_machine_id.py [--calls 300000] [--days 60]

1. A ledger of ``--calls`` calls written before records carried machine ids (JSONL without ``machine_id``):
   its first load (every row stamped with this machine's id on the way in) beside the same load of records
   that carry an id already (nothing to stamp).
2. The same ledger as the previous version left it (no ``machine_id`` column, a roll-up without it): its
   first open by this version (one ``UPDATE`` and a roll-up rebuild) beside a load of one new call into the
   migrated ledger, and the per-load check (``count(*) WHERE machine_id IS NULL``) alone.
3. ``report --from`` over the pushed layout (``--days`` days, one part file each): the footer checks that find
   damaged, foreign and newer parts, beside the read they precede, and with 4 unreadable parts added.
Timings are in process, wall seconds, best of 3 where repeated; the machine is shared, so ratios carry.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

T0 = datetime(2026, 9, 1, tzinfo=UTC)
MODELS = ("claude-sonnet-4-5", "claude-opus-4-8", "claude-haiku-4-5")


def write_records(root: Path, calls: int, days: int, machine: str | None) -> None:
    (root / "usage").mkdir(parents=True, exist_ok=True)
    step = days * 86400 / calls
    with open(root / "usage" / "transcript-2026-09.jsonl", "w", encoding="utf-8") as out:
        for i in range(calls):
            doc = {
                "schema_version": "1.2",
                "id": f"r{i:09d}",
                "ts": (T0 + timedelta(seconds=i * step)).isoformat().replace("+00:00", "Z"),
                "provider": "anthropic",
                "model": MODELS[i % 3],
                "session_id": f"s{i // 40:07d}",
                "cwd": f"/home/dev/p{i % 5}",
                "message_id": f"msg_{i:09d}",
                "request_id": f"req_{i:09d}",
                "input_tokens": 50 + i % 997,
                "output_tokens": 20 + i % 613,
                "cache_read_tokens": (i % 11) * 1200,
                "origin": "transcript",
                "dedupe_key": f"anthropic:msg_{i:09d}:req_{i:09d}",
            }
            if machine:
                doc["machine_id"] = machine
            out.write(json.dumps(doc, separators=(",", ":")) + "\n")


def timed(fn, repeat: int = 1) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=300_000)
    parser.add_argument("--days", type=int, default=60)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ctxops-machine-bench-"))
    os.environ["CTXOPS_MACHINE_ID"] = "bench-laptop"
    os.environ["XDG_STATE_HOME"] = str(work / "state")
    os.environ["CTXOPS_CONFIG"] = str(work / "config.toml")
    import duckdb
    from ctxops_token_capture.ledger import Ledger, stamp_machine
    from ctxops_token_capture.report import IngestReport

    try:
        print(f"{args.calls:,} calls over {args.days} days")
        old, stamped = work / "old", work / "stamped"
        write_records(old, args.calls, args.days, None)
        write_records(stamped, args.calls, args.days, "bench-laptop")
        warm = work / "warm"  # imports and DuckDB's first connection, out of the figures
        write_records(warm, 100, 1, None)
        Ledger(warm).load(IngestReport())
        t_stamped = timed(lambda: Ledger(stamped).load(IngestReport()))
        t_old = timed(lambda: Ledger(old).load(IngestReport()))
        print(
            f"1. first load: records without ids (stamped on load) {t_old:.2f} s | records with ids {t_stamped:.2f} s"
        )

        con = duckdb.connect(str(old / "ledger.duckdb"))
        con.execute("ALTER TABLE usage DROP COLUMN machine_id")
        con.execute("ALTER TABLE usage_hourly DROP COLUMN machine_id")
        con.execute("UPDATE usage_hourly_state SET version = 2")
        con.close()
        with open(old / "usage" / "transcript-2026-09.jsonl", "a", encoding="utf-8") as out:
            out.write(json.dumps({**_one(), "dedupe_key": "late-1", "id": "late-1"}) + "\n")
        t_migrate = timed(lambda: Ledger(old).load(IngestReport()))
        with open(old / "usage" / "transcript-2026-09.jsonl", "a", encoding="utf-8") as out:
            out.write(json.dumps({**_one(), "dedupe_key": "late-2", "id": "late-2"}) + "\n")
        t_one = timed(lambda: Ledger(old).load(IngestReport()))
        con = duckdb.connect(str(old / "ledger.duckdb"))
        t_check = timed(lambda: stamp_machine(con), repeat=3)
        left = con.execute("SELECT count(*) FROM usage WHERE machine_id IS NULL").fetchone()[0]
        con.close()
        print(
            f"2. first open of a ledger of the previous version (UPDATE + roll-up rebuild) {t_migrate:.2f} s | "
            f"a load of one new call afterwards {t_one:.3f} s | the per-load check alone {t_check * 1000:.1f} ms "
            f"(rows left without an id: {left})"
        )

        from ctxops_ledger_report.prices import PriceBook
        from ctxops_ledger_report.store import open_view
        from ctxops_ledger_report.team import _checked_parts, load_usage, open_location, push

        shared = work / "shared"
        with open_view(old, book=PriceBook.bundled()) as view:
            push(view, open_location(str(shared), create=True), "bench-laptop", old)
        location = open_location(str(shared), create=False)
        files = sorted(str(p) for p in shared.rglob("part-*.parquet"))

        def check() -> None:
            c = duckdb.connect()
            _checked_parts(c, location, files)
            c.close()

        def read() -> None:
            c = duckdb.connect()
            load_usage(c, location)
            c.execute("SELECT count(*), sum(input_tokens) FROM usage").fetchall()
            c.close()

        t_check_parts = timed(check, repeat=3)
        t_read = timed(read, repeat=3)
        mallory = shared / "day=2026-09-01" / "machine=mallory"
        mallory.mkdir()
        (mallory / "part-0.parquet").write_bytes(b"PAR1 truncated")
        duckdb.sql(f"COPY (SELECT 1 AS x) TO '{mallory / 'part-1.parquet'}' (FORMAT parquet)")
        victim = Path(files[0]).read_bytes()
        footer = int.from_bytes(victim[-8:-4], "little") + 8
        scrambled = bytes(b ^ 0x5A for b in victim[4 : len(victim) - footer])
        (mallory / "part-2.parquet").write_bytes(victim[:4] + scrambled + victim[len(victim) - footer :])
        shutil.copy(files[1], mallory / "part-3.parquet")
        c = duckdb.connect()
        started = time.perf_counter()
        got = load_usage(c, location)
        t_skip = time.perf_counter() - started
        c.close()
        print(
            f"3. report --from over {len(files)} parts: footer checks {t_check_parts:.3f} s | the read they precede "
            f"{t_read:.3f} s; with 3 unreadable parts and 1 copy added: {t_skip:.3f} s, "
            f"{len(got['skipped'])} skipped, {got['calls']:,} calls"
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def _one() -> dict[str, object]:
    return {
        "schema_version": "1.2",
        "ts": "2026-09-02T10:00:00Z",
        "provider": "anthropic",
        "model": MODELS[0],
        "input_tokens": 10,
        "output_tokens": 5,
        "origin": "transcript",
    }


if __name__ == "__main__":
    sys.exit(main())
