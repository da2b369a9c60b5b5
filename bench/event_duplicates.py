"""Duplicate event lines under many concurrent hook processes, with and without kill -9.

Usage: uv run python bench/event_duplicates.py [--writers 16] [--events 200] [--kill] [--hold-lock] [--python PATH]

``--writers`` threads each run ``--events`` fresh `python -m ctxops_hooks_capture claude-code` processes
(one per event, as agents run them) against one git repository, so the day file's lock is contended and
events spill and are merged by later captures. With ``--kill`` a second set of processes is started and
killed with SIGKILL at a random moment (mid-append, mid-merge). With ``--hold-lock`` a thread holds the
day file's lock 0.35 s of every 0.6 s (past the hooks' 0.2 s budget), so most events spill and many
captures race to merge the same spills (on a machine with few cores the writers alone rarely spill).
At the end every spill is merged by one
more capture, then the event lines are counted against their unique ids: every line beyond the first of
an id is a duplicate. Prints lines, unique ids, duplicates, spills left and (without --kill) events lost.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path


def payload(repo: Path, writer: int, n: int) -> bytes:
    event = {
        "session_id": f"s{writer}",
        "cwd": str(repo),
        "hook_event_name": "UserPromptSubmit",
        "prompt": f"writer {writer} event {n}",
    }
    return json.dumps(event).encode()


def count(repo: Path) -> tuple[int, int, int, int]:
    """(lines, unique ids, raw lines, unique raw ids) in the repository's events."""
    events = repo / ".meta" / "events"
    ids: Counter[str] = Counter()
    raw_ids: Counter[str] = Counter()
    for path, counter in [(p, ids) for p in events.glob("*.jsonl")] + [
        (p, raw_ids) for p in (events / "raw").glob("*.jsonl")
    ]:
        for line in path.read_bytes().splitlines():
            try:
                counter[json.loads(line)["id"]] += 1
            except (ValueError, KeyError):
                continue  # a killed writer's partial line
    return sum(ids.values()), len(ids), sum(raw_ids.values()), len(raw_ids)


def hold_lock(path: Path, stop: threading.Event) -> None:
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        while not stop.is_set():
            fcntl.flock(fd, fcntl.LOCK_EX)
            time.sleep(0.35)
            fcntl.flock(fd, fcntl.LOCK_UN)
            time.sleep(0.25)
    finally:
        os.close(fd)


def run(python: str, writers: int, events: int, kill: bool, hold: bool = False) -> dict[str, int]:
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        cmd = [python, "-m", "ctxops_hooks_capture", "claude-code"]
        stop = threading.Event()
        completed = Counter[str]()

        def writer(w: int) -> None:
            for n in range(events):
                proc = subprocess.Popen(
                    cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
                )
                proc.communicate(payload(repo, w, n))
                completed["done"] += 1

        def killer() -> None:
            rng = random.Random(7)
            n = 0
            while not stop.is_set():
                proc = subprocess.Popen(
                    cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
                )
                assert proc.stdin is not None
                proc.stdin.write(payload(repo, 999, n))
                proc.stdin.close()
                time.sleep(rng.uniform(0.02, 0.12))
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait()
                completed["killed"] += 1
                n += 1

        threads = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
        killers = [threading.Thread(target=killer) for _ in range(4)] if kill else []
        day = repo / ".meta" / "events" / f"{time.strftime('%Y-%m-%d', time.gmtime())}.jsonl"
        killers += [threading.Thread(target=hold_lock, args=(day, stop))] if hold else []
        started = time.monotonic()
        for t in threads + killers:
            t.start()
        peak = 0
        while any(t.is_alive() for t in threads):
            spill_dir = repo / ".meta" / "events" / ".spill"
            peak = max(peak, len(list(spill_dir.glob("*.spill"))) if spill_dir.is_dir() else 0)
            time.sleep(0.05)
        for t in threads:
            t.join()
        stop.set()
        for t in killers:
            t.join()
        elapsed = time.monotonic() - started
        # One quiet capture merges whatever spilled.
        subprocess.run(cmd, input=payload(repo, 1000, 0), check=True)
        lines, unique, raw_lines, raw_unique = count(repo)
        spills = len(list((repo / ".meta" / "events" / ".spill").glob("*")))
        return {
            "writers": writers,
            "events sent": writers * events + 1,
            "killed": completed["killed"],
            "lines": lines,
            "unique ids": unique,
            "duplicates": lines - unique,
            "raw lines": raw_lines,
            "raw duplicates": raw_lines - raw_unique,
            "spill files left": spills,
            "peak spill files": peak,
            "lost (no kill only)": (writers * events + 1 - unique) if not kill else 0,
            "seconds": round(elapsed, 1),
        }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writers", type=int, default=16)
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--kill", action="store_true")
    parser.add_argument("--hold-lock", action="store_true")
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    result = run(args.python, args.writers, args.events, args.kill, args.hold_lock)
    for key, value in result.items():
        print(f"{key:>22}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
