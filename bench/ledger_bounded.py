"""Ledger ingest on hostile input vs ccusage@17: files without a newline and many small files.

    uv run python bench/ledger_bounded.py [--sizes-mb 64,256] [--small-files 20000] [--no-ccusage]

Each case is a fresh Claude Code config directory holding a few real-looking sessions plus the case's
files: a zero-filled file made with ``truncate`` (no newline at all; what ``truncate -s 256M
projects/p/z.jsonl`` makes), a file whose one line is a JSON string over the 64 MB cap, or many small
session files. For each case this prints our first ``ctx ledger ingest`` and ccusage@17 ``daily --json
--offline`` side by side: wall seconds, CPU seconds and peak RSS (each child's own, from ``wait4``).
A peer run that fails or takes longer than ``--timeout`` is printed as such.
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
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from ledger_ingest import ensure_ccusage
from ledger_synthetic import write_claude_sessions


def run(command: list[str], env: dict[str, str], timeout: float) -> tuple[str, float, float, float]:
    """(status, wall s, cpu s, peak RSS MB) of one child, measured by wait4."""
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    started = time.perf_counter()
    child = subprocess.Popen(command, env={**base, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    status = "ok"
    deadline = started + timeout
    while True:
        pid, code, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            child.kill()
            pid, code, usage = os.wait4(child.pid, 0)
            status = f"killed after {timeout:.0f} s"
            break
        time.sleep(0.02)
    child.returncode = os.waitstatus_to_exitcode(code)
    if status == "ok" and child.returncode != 0:
        status = f"exit {child.returncode}"
        tail = (child.stderr.read() if child.stderr else b"").decode("utf-8", "replace").strip().splitlines()
        print(f"  ({command[0].rsplit('/', 1)[-1]} said: {tail[-1] if tail else ''})", file=sys.stderr)
    wall = time.perf_counter() - started
    return status, wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def base_config(root: Path) -> Path:
    config = root / "claude"
    write_claude_sessions(config, sessions=4, turns=5, seed=3, start=datetime(2026, 10, 1, tzinfo=UTC))
    return config


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes-mb", default="64,256", help="sizes of the no-newline files (2048 for 2 GB)")
    parser.add_argument("--small-files", type=int, default=20000, help="how many small session files")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--no-ccusage", action="store_true")
    args = parser.parse_args()
    ccusage = None if args.no_ccusage else ensure_ccusage()
    print(f"{'case':44} {'tool':8} {'status':>10} {'wall s':>8} {'cpu s':>8} {'RSS MB':>8}")
    with tempfile.TemporaryDirectory(prefix="ledger-bounded-") as tmp:
        root = Path(tmp)
        cases: list[tuple[str, Path]] = []
        for size in [int(s) for s in args.sizes_mb.split(",") if s]:
            config = root / f"zeros-{size}"
            shutil.copytree(base_config(root / f"base-{size}"), config)
            with (config / "projects" / "z.jsonl").open("wb") as handle:
                handle.truncate(size << 20)  # sparse, zero-filled, no newline
            cases.append((f"{size} MB zero-filled, no newline (truncate -s)", config))
            config = root / f"string-{size}"
            shutil.copytree(base_config(root / f"base-s-{size}"), config)
            with (config / "projects" / "z.jsonl").open("wb") as handle:
                handle.write(b'{"type":"assistant","message":{"content":"')
                block = b"a" * (8 << 20)
                for _ in range(size // 8):
                    handle.write(block)
            cases.append((f"{size} MB one unfinished JSON line", config))
        if args.small_files:
            config = root / "small"
            folder = config / "projects" / "-home-dev-many"
            folder.mkdir(parents=True)
            for number in range(args.small_files):
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
            cases.append((f"{args.small_files} small files, one call each", config))
        for name, config in cases:
            data = root / "data"
            shutil.rmtree(data, ignore_errors=True)
            for path in (config / "projects").rglob("*.jsonl"):  # warm the page cache for both tools
                with path.open("rb") as handle:
                    while handle.read(8 << 20):
                        pass
            ours = [sys.executable, "-m", "ctxops_token_capture", "ingest", "--claude-dir", str(config)]
            ours += ["--data-dir", str(data)]
            env = {"CLAUDE_CONFIG_DIR": str(config), "TZ": "UTC"}
            status, wall, cpu, rss = run(ours, env, args.timeout)
            print(f"{name:44} {'ctx':8} {status:>10} {wall:8.2f} {cpu:8.2f} {rss:8.0f}", flush=True)
            if name.endswith("one call each"):
                # What a live report adds when nothing changed: the stat-based check of every transcript file.
                code = (
                    "import time, sys\nfrom pathlib import Path\nfrom ctxops_token_capture.ingest import live\n"
                    "root = Path(sys.argv[1]); live(root)\nt = time.perf_counter()\n"
                    "for _ in range(10): live(root)\nprint((time.perf_counter() - t) * 100)\n"
                )
                took = subprocess.run(
                    [sys.executable, "-c", code, str(data)], capture_output=True, text=True, check=True
                )
                label = "  live report, nothing changed (ms)"
                print(f"{label:44} {'ctx':8} {'ok':>10} {float(took.stdout):8.1f}")
            if ccusage is not None:
                peer = [str(ccusage), "daily", "--json", "--offline", "--timezone", "UTC"]
                status, wall, cpu, rss = run(peer, env, args.timeout)
                print(f"{name:44} {'ccusage':8} {status:>10} {wall:8.2f} {cpu:8.2f} {rss:8.0f}", flush=True)
            shutil.rmtree(config)


if __name__ == "__main__":
    main()
