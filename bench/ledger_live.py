"""A live report's no-op check in a fresh process, beside `python -c pass` and ccusage@17 on the same files.

    uv run python bench/ledger_live.py [--files 2000] [--runs 15] [--before-src DIR]

Writes ``--files`` Claude Code session files (one call each, in one project directory, as in
``ledger_bounded.py``), ingests them once, then runs interleaved fresh processes, each timed from spawn to exit
(wall) with the child's own CPU time from ``wait4``:

- ``python -c pass``: the interpreter's start, the floor of any fresh process;
- the no-op check alone (``livecheck.unchanged`` on the data directory: what a live report, ``totals`` and
  ``check`` run before answering, in a process that imports nothing else);
- ``ctx ledger report day --json`` with nothing changed (the check, then the report from DuckDB);
- ccusage@17 ``daily --json --offline`` on the same files (it reads every file on every report);
- with ``--before-src`` (a checkout's ``packages/ledger/token-capture/src``, e.g. main before this change):
  that checkout's ``ingest.live`` in a fresh process on its own copy of the ledger.

Then the same report after one transcript file was appended to (a live report that ingests first).
Prints p50/p95 wall ms and mean CPU ms per command. The machine is shared: compare rows of one run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ledger_ingest import ensure_ccusage

CHECK = (
    "import sys\nfrom ctxops_token_capture.livecheck import unchanged\nsys.exit(0 if unchanged(sys.argv[1]) else 3)\n"
)
BEFORE = "import sys\nfrom pathlib import Path\nfrom ctxops_token_capture.ingest import live\nlive(Path(sys.argv[1]))\n"


def write_files(config: Path, count: int) -> Path:
    folder = config / "projects" / "-home-dev-many"
    folder.mkdir(parents=True)
    for number in range(count):
        line = {
            "type": "assistant",
            "timestamp": f"2026-10-{1 + number % 28:02d}T10:{number % 60:02d}:00.000Z",
            "sessionId": f"s-{number}",
            "requestId": f"req_{number}",
            "cwd": "/home/dev/many",
            "message": {
                "id": f"msg_{number}",
                "model": "claude-sonnet-4-5-20250929",
                "usage": {"input_tokens": 10 + number % 7, "output_tokens": 3, "cache_read_input_tokens": 100},
            },
        }
        (folder / f"s-{number}.jsonl").write_text(json.dumps(line) + "\n")
    return folder


def once(command: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """(wall ms, CPU ms, exit code) of one fresh child."""
    started = time.perf_counter()
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = (time.perf_counter() - started) * 1000
    return wall, (usage.ru_utime + usage.ru_stime) * 1000, os.waitstatus_to_exitcode(status)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=15, help="timed runs per command (after 2 warm-up runs)")
    parser.add_argument("--before-src", type=Path, help="token-capture's src/ of another checkout, timed beside")
    parser.add_argument("--no-ccusage", action="store_true")
    args = parser.parse_args()
    ccusage = None if args.no_ccusage else ensure_ccusage()
    work = Path(tempfile.mkdtemp(prefix="ctxops-bench-live-"))
    try:
        config, data = work / "claude", work / "data"
        folder = write_files(config, args.files)
        base = {k: v for k, v in os.environ.items() if k not in {"PYTHONDONTWRITEBYTECODE", "PYTHONPATH"}}
        env = {**base, "CLAUDE_CONFIG_DIR": str(config), "CTXOPS_DATA_DIR": str(data), "TZ": "UTC"}
        env.update(CODEX_HOME=str(work / "codex"), GEMINI_CLI_HOME=str(work / "gemini"))  # no real transcripts
        py = sys.executable
        ingest = [py, "-m", "ctxops_token_capture", "ingest", "--claude-dir", str(config)]
        subprocess.run(ingest, env=env, check=True, stdout=subprocess.DEVNULL)
        ctx = shutil.which("ctx") or str(Path(py).with_name("ctx"))
        commands: dict[str, tuple[list[str], dict[str, str]]] = {
            "python -c pass": ([py, "-c", "pass"], env),
            "no-op check (fresh process)": ([py, "-c", CHECK, str(data)], env),
            "ctx ledger report day --json": ([ctx, "ledger", "report", "day", "--json"], env),
        }
        if args.before_src:
            before_data = work / "before-data"
            before_env = {**env, "PYTHONPATH": str(args.before_src.resolve()), "CTXOPS_DATA_DIR": str(before_data)}
            subprocess.run(ingest, env=before_env, check=True, stdout=subprocess.DEVNULL)
            commands["before: ingest.live (fresh process)"] = ([py, "-c", BEFORE, str(before_data)], before_env)
        if ccusage is not None:
            commands["ccusage@17 daily --json --offline"] = ([str(ccusage), "daily", "--json", "--offline"], env)
        walls: dict[str, list[float]] = {name: [] for name in commands}
        cpus: dict[str, list[float]] = {name: [] for name in commands}
        for run in range(args.runs + 2):
            for name, (command, case_env) in commands.items():
                wall, cpu, code = once(command, case_env)
                if name.startswith("no-op") and code != 0:
                    raise SystemExit(f"the no-op check answered 'changed' (exit {code}) with nothing changed")
                if run >= 2:
                    walls[name].append(wall)
                    cpus[name].append(cpu)
        print(f"{args.files} transcript files, nothing changed since the last ingest; {args.runs} runs each")
        print(f"{'command':44} {'p50 ms':>8} {'p95 ms':>8} {'CPU ms':>8}")
        for name in commands:
            p50 = statistics.median(walls[name])
            p95 = statistics.quantiles(walls[name], n=20)[18] if len(walls[name]) > 1 else p50
            print(f"{name:44} {p50:8.1f} {p95:8.1f} {statistics.mean(cpus[name]):8.1f}")
        floor = statistics.median(walls["python -c pass"])
        check = statistics.median(walls["no-op check (fresh process)"])
        print(f"the check over the interpreter's start: {check - floor:.1f} ms (p50 difference)")
        # One file appended to: the live report ingests it first (fresh process each, the change made anew).
        target = folder / "s-0.jsonl"
        changed_walls = []
        for number in range(5):
            with target.open("a") as handle:
                line = json.loads(target.read_text().splitlines()[0])
                line["message"]["id"] = line["requestId"] = f"more-{number}"
                handle.write(json.dumps(line) + "\n")
            wall, _, _ = once(commands["ctx ledger report day --json"][0], env)
            changed_walls.append(wall)
        print(f"{'report day after one file was appended to':44} {statistics.median(changed_walls):8.1f}")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
