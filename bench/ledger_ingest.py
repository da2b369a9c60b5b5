"""Ledger ingest vs ccusage@17 on a large, generated Claude Code corpus (>= 500 MB by default).

    uv run python bench/ledger_ingest.py [--size-mb 520] [--keep] [--rounds 3] [--against CHECKOUT]

Generates deterministic, realistic transcripts (one line per content block with repeated usage, tool
results with their toolUseResult copy, request blobs, subagents) in a temporary directory, warms the page
cache, then times side by side: ccusage@17 `daily --json --offline`, our first ingest, and a second ingest
with nothing new. Checks that both report the same token totals, and per day and model the same tokens and
(to 1e-6 USD) the same cost on every model both price. ccusage is installed with npm on first use.

``--against CHECKOUT`` (a checkout of another commit, e.g. ``git worktree add --detach /tmp/before REV``)
also times that build's first ingest + ``report day`` and no-op re-ingest in every round, alternating with
this one (its token-capture, ledger-report and contracts sources first on ``PYTHONPATH``), so a before/after
comparison on a shared machine is of runs seconds apart.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the shared test-data writer
from ledger_synthetic import write_claude_sessions

CACHE = Path(os.environ.get("CTXOPS_TEST_CACHE", Path.home() / ".cache" / "ctxops-tests"))


def ensure_ccusage() -> Path:
    prefix = CACHE / "ccusage-17"
    binary = prefix / "node_modules" / ".bin" / "ccusage"
    if not binary.exists():
        prefix.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "ccusage@17"], check=True)
    return binary


def corpus_bytes(config: Path) -> int:
    return sum(p.stat().st_size for p in (config / "projects").rglob("*.jsonl"))


def generate(config: Path, size_mb: int) -> tuple[int, int]:
    calls, batch = 0, 0
    start = datetime(2026, 9, 1, tzinfo=UTC)
    while corpus_bytes(config) < size_mb << 20 if (config / "projects").exists() else True:
        truth = write_claude_sessions(
            config,
            sessions=40,
            turns=80,
            seed=1000 + batch,
            start=start + timedelta(days=12 * batch),
            result_size=(300, 9000),
            subagent_every=3,
            projects=6,
        )
        calls += truth.calls
        batch += 1
    return corpus_bytes(config), calls


CPU: dict[str, float] = {}  # user+sys seconds of each timed command, by its first two words
LAST_CPU = [0.0]  # the last timed command's


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str], env: dict[str, str]) -> tuple[float, str]:
    cpu_before = _children_cpu()
    started = time.perf_counter()
    # Bytecode caching on, as in an installed package (this workspace exports PYTHONDONTWRITEBYTECODE=1).
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run(command, capture_output=True, text=True, env={**base, **env}, check=True)
    wall = time.perf_counter() - started
    name = " ".join(Path(part).name for part in command[:4])
    runs = sum(1 for key in CPU if key.startswith(name))
    CPU[f"{name} (run {runs + 1})"] = LAST_CPU[0] = _children_cpu() - cpu_before
    return wall, done.stdout


def _same_costs(ccusage: Path, env: dict[str, str], data: Path) -> tuple[bool, int]:
    """Per (day, model): equal tokens, and USD within 1e-6 on every model both price (untimed runs).

    Returns whether all agree and how many (day, model) rows had a price on both sides.
    """
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    theirs_out = subprocess.run(
        [str(ccusage), "daily", "--json", "--offline", "--breakdown", "--timezone", "UTC"],
        capture_output=True,
        text=True,
        env={**base, **env},
        check=True,
    ).stdout
    report = ["report", "day", "--breakdown", "--compat", "ccusage", "--json", "--data-dir", str(data)]
    ours_out = subprocess.run(
        [sys.executable, "-m", "ctxops_ledger_report", *report],
        capture_output=True,
        text=True,
        env=base,
        check=True,
    ).stdout
    theirs = {(d["date"], m["modelName"]): m for d in json.loads(theirs_out)["daily"] for m in d["modelBreakdowns"]}
    ours = {(r["day"], r["model"]): r for r in json.loads(ours_out)["rows"]}
    if set(theirs) != set(ours):
        return False, 0
    priced = 0
    for key, peer in theirs.items():
        row = ours[key]
        tokens = (peer["inputTokens"], peer["outputTokens"], peer["cacheCreationTokens"], peer["cacheReadTokens"])
        if tokens != (row["input_tokens"], row["output_tokens"], row["cache_write_tokens"], row["cache_read_tokens"]):
            return False, priced
        if peer["cost"] > 0 and row["cost_usd"] is not None:
            priced += 1
            if abs(peer["cost"] - row["cost_usd"]) > 1e-6:
                return False, priced
    return priced > 0, priced


def _time_build(checkout: Path, ingest_cmd: list[str], report_cmd: list[str], data: Path) -> tuple[float, ...]:
    """First ingest, ``report day`` and a no-op re-ingest of the build at ``checkout`` (wall and CPU)."""
    paths = ("packages/ledger/token-capture/src", "packages/ledger/ledger-report/src", "contracts/src")
    env = {"PYTHONPATH": os.pathsep.join(str(checkout.resolve() / p) for p in paths)}
    ours = dict(CPU)  # this build's CPU list (printed at the end) leaves the other build's runs out
    shutil.rmtree(data, ignore_errors=True)
    first_s, _ = timed(ingest_cmd, env)
    first_cpu = LAST_CPU[0]
    report_s, _ = timed(report_cmd, env)
    report_cpu = LAST_CPU[0]
    noop_s, _ = timed(ingest_cmd, env)
    CPU.clear()
    CPU.update(ours)
    return first_s, first_cpu, report_s, report_cpu, noop_s


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-mb", type=int, default=520)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument(
        "--rounds", type=int, default=3, help="alternate ccusage and a first ingest this many times (median ratio)"
    )
    parser.add_argument("--against", type=Path, help="a checkout of another build to time alternately (see above)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ctxops-bench-ledger-"))
    try:
        config, data = work / "claude", work / "data"
        t0 = time.perf_counter()
        size, calls = generate(config, args.size_mb)
        files = list((config / "projects").rglob("*.jsonl"))
        took = time.perf_counter() - t0
        print(f"corpus: {size / 2**20:.0f} MB in {len(files)} files, {calls} model calls (generated in {took:.0f} s)")
        for path in files:  # warm the page cache so neither tool pays for the first disk read
            path.read_bytes()
        ccusage = ensure_ccusage()
        env = {"CLAUDE_CONFIG_DIR": str(config), "TZ": "UTC"}
        ingest_cmd = [
            sys.executable,
            "-m",
            "ctxops_token_capture",
            "ingest",
            "--claude-dir",
            str(config),
            "--data-dir",
            str(data),
        ]
        report_cmd = [sys.executable, "-m", "ctxops_ledger_report", "report", "day", "--json", "--data-dir", str(data)]
        # A shared machine's load changes by the minute: the peer and a first ingest alternate, each round's
        # ratio is of runs seconds apart, and the median round is the figure.
        rounds: list[tuple[float, float, float, float, float, float]] = []
        other: list[tuple[float, float, float, float, float]] = []  # --against: first, cpu, report, cpu, no-op
        for number in range(max(1, args.rounds)):
            peer_s, peer_out = timed([str(ccusage), "daily", "--json", "--offline", "--timezone", "UTC"], env)
            peer_cpu = LAST_CPU[0]
            if args.against and number % 2 == 0:
                other.append(_time_build(args.against, ingest_cmd, report_cmd, data))
            shutil.rmtree(data, ignore_errors=True)
            first_s, first_out = timed(ingest_cmd, {})
            first_cpu = LAST_CPU[0]
            report_first_s, _ = timed(report_cmd, {})
            rounds.append((peer_s, peer_cpu, first_s, first_cpu, report_first_s, LAST_CPU[0]))
            if args.against and number % 2 == 1:
                other.append(_time_build(args.against, ingest_cmd, report_cmd, data))
        for number, (p_s, p_cpu, f_s, f_cpu, r_s, r_cpu) in enumerate(rounds, 1):
            print(
                f"round {number}: ccusage {p_s:6.2f} s ({p_cpu:5.2f} cpu), first ingest {f_s:6.2f} s ({f_cpu:5.2f} cpu)"
                f" + report day {r_s:5.2f} s ({r_cpu:4.2f} cpu): ratio {(f_s + r_s) / p_s:5.3f} wall,"
                f" {(f_cpu + r_cpu) / p_cpu:5.3f} cpu"
            )
        for number, ((p_s, p_cpu, *_), (o_f, o_fc, o_r, o_rc, o_n)) in enumerate(zip(rounds, other, strict=False), 1):
            print(
                f"round {number}, --against build: first ingest {o_f:6.2f} s ({o_fc:5.2f} cpu)"
                f" + report day {o_r:5.2f} s ({o_rc:4.2f} cpu): ratio {(o_f + o_r) / p_s:5.3f} wall,"
                f" {(o_fc + o_rc) / p_cpu:5.3f} cpu;"
                f" no-op {o_n:5.3f} s ({o_n / o_f:5.3f} of its first)"
            )
        by_wall = sorted(rounds, key=lambda r: (r[2] + r[4]) / r[0])
        peer_s, _, first_s, _, report_first_s, _ = by_wall[len(by_wall) // 2]
        median_cpu = sorted((r[3] + r[5]) / r[1] for r in rounds)[len(rounds) // 2]
        second_s, _ = timed(ingest_cmd, {})
        report_s, report_out = timed(report_cmd, {})
        _, totals_out = timed(
            [sys.executable, "-m", "ctxops_token_capture", "totals", "--by", "day", "--json", "--data-dir", str(data)],
            {},
        )
        # Steady state: a few new sessions since the last run, then the daily report (what a user runs).
        write_claude_sessions(
            config, sessions=4, turns=80, seed=99, start=datetime(2026, 12, 1, tzinfo=UTC), projects=6
        )
        delta_s, _ = timed(ingest_cmd, {})
        delta_report_s, _ = timed(report_cmd, {})
        costs_equal, compared = _same_costs(ccusage, env, data)
        peer = json.loads(peer_out)["totals"]
        ours = json.loads(totals_out)["total"]
        same = (
            peer["inputTokens"] == ours["input_tokens"]
            and peer["outputTokens"] == ours["output_tokens"]
            and peer["cacheCreationTokens"] == ours["cache_creation_tokens"]
            and peer["cacheReadTokens"] == ours["cache_read_tokens"]
        )
        print(f"ccusage@17 daily --json --offline : {peer_s:6.2f} s")
        print(f"ctxops first ingest               : {first_s:6.2f} s   ({first_out.strip()})")
        print(f"ctxops second ingest (nothing new): {second_s:6.2f} s")
        print(f"ratio first ingest / ccusage      : {first_s / peer_s:6.2f}  (target <= 1.00)")
        days = len(json.loads(report_out)["rows"])
        print(f"ctxops report day (after first)   : {report_first_s:6.2f} s   (priced, tasks; {days} days)")
        print(f"ctxops report day (warm)          : {report_s:6.2f} s")
        print(f"ctxops ingest of 4 new sessions   : {delta_s:6.2f} s, then report day {delta_report_s:6.2f} s")
        print(f"ratio second / first ingest       : {second_s / first_s:6.3f} (target <= 0.03)")
        print(
            f"ratio (first ingest + report) / ccusage : {(first_s + report_first_s) / peer_s:6.3f} (median round;"
            f" target <= 0.25); by cpu {median_cpu:6.3f}"
        )
        print(f"ratio (no-op ingest + report) / ccusage : {(second_s + report_s) / peer_s:6.3f} (target <= 0.25)")
        steady = (delta_s + delta_report_s) / peer_s
        print(f"ratio (new-sessions ingest + report) / ccusage : {steady:6.3f} (target <= 0.25)")
        print(f"token totals equal ccusage's      : {same}  ({ours['calls']} calls)")
        print(f"per day x model: tokens equal, USD within 1e-6 where both price : {costs_equal}  ({compared} rows)")
        print(f"load average (1, 5, 15 min) at the end : {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        for name, seconds in CPU.items():
            print(f"cpu (user+sys) {name:<50}: {seconds:6.2f} s")
        return 0 if same and costs_equal else 1
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
