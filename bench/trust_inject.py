"""The cost of memory trust on the inject hook: `ctx hook claude-code` (UserPromptSubmit) of this tree beside the
same hook of a peer tree without it (default: /work/main), on the same repositories, interleaved.

Usage: uv run python bench/trust_inject.py [--peer /path/to/other/checkout/.venv/bin/ctx] [--runs 30] [--n 300 3000]

For each store size (the catalog path up to 2,000 memories, the read snapshot above), memories written with
this tree's store, then the hook in three states of this tree:
- own: every memory written on this machine (each record read is hashed and looked up: the common case);
- trusted: the repository trusted with `ctx trust` (no hashing);
- from git: a per-user data dir that vouches for none of them (all held back; one notice line injected);
and the peer's hook (no trust check) on the same repository. p50/p95 of wall time and the ratio to the peer.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HERE_CTX = Path(sys.executable).with_name("ctx")
WORDS = [
    "refund",
    "order",
    "cart",
    "payment",
    "invoice",
    "ledger",
    "token",
    "cache",
    "index",
    "retry",
    "queue",
    "worker",
    "schema",
    "migration",
]


def build(repo: Path, n: int, data: Path) -> None:
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    env = {**os.environ, "CTXOPS_DATA_DIR": str(data)}
    code = (
        "import sys\nfrom pathlib import Path\nfrom ctxops_memory_store import MemoryStore, new_entry\n"
        f"words = {WORDS!r}\nstore = MemoryStore(Path(sys.argv[1]))\n"
        "for i in range(int(sys.argv[2])):\n"
        "    a, b, c = words[i % 14], words[(i * 3) % 14], words[(i * 7) % 14]\n"
        "    kind = ('lesson', 'fact', 'convention', 'decision')[i % 4]\n"
        "    store.put(new_entry(kind=kind, title=f'{a} {b} rule {i}: keep {c} idempotent', "
        "body=f'When the {a} {b} path retries, the {c} must stay idempotent (case {i}).', scope=[f'src/{a}/**']))\n"
        "store.save_catalog()\nstore.sync_snapshot()\n"
    )
    subprocess.run([sys.executable, "-c", code, str(repo), str(n)], check=True, env=env)


def timed(argv: list[str], payload: bytes, cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(argv, input=payload, cwd=cwd, capture_output=True, check=False, env=env)
    elapsed = (time.perf_counter() - started) * 1000
    if done.returncode != 0:
        raise SystemExit(f"{argv} exited {done.returncode}: {done.stderr[:300]!r}")
    text = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"] if done.stdout.strip() else ""
    return elapsed, text


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer", default="/work/main/.venv/bin/ctx", help="the ctx of a tree without trust")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--n", type=int, nargs="+", default=[300, 3000])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="trust-bench-") as tmp_name:
        tmp = Path(tmp_name)
        for n in args.n:
            repo, own, trusted, stranger = tmp / f"repo-{n}", tmp / f"own-{n}", tmp / f"trusted-{n}", tmp / f"git-{n}"
            build(repo, n, own)
            subprocess.run(["cp", "-r", str(own), str(trusted)], check=True)
            env_t = {**os.environ, "CTXOPS_DATA_DIR": str(trusted)}
            subprocess.run([str(HERE_CTX), "trust"], cwd=repo, env=env_t, check=True, capture_output=True)
            arms = {
                "peer (no trust check)": ([args.peer], own),
                "own (hash + lookup)": ([str(HERE_CTX)], own),
                "trusted repository": ([str(HERE_CTX)], trusted),
                "from git (all held back)": ([str(HERE_CTX)], stranger),
            }
            times: dict[str, list[float]] = {name: [] for name in arms}
            sizes: dict[str, int] = {}
            for run in range(args.runs + 2):
                for name, (ctx, data) in arms.items():
                    payload = {
                        "hook_event_name": "UserPromptSubmit",
                        "session_id": f"bench-{name}-{run}",  # a new session each time: nothing was given yet
                        "cwd": str(repo),
                        "prompt": "the refund payment retry keeps the ledger idempotent?",
                    }
                    env = {**os.environ, "CTXOPS_DATA_DIR": str(data)}
                    elapsed, text = timed([*ctx, "hook", "claude-code"], json.dumps(payload).encode(), repo, env)
                    if run >= 2:  # two warm-up rounds (caches, catalog) are not counted
                        times[name].append(elapsed)
                    sizes[name] = len(text)
            peer = statistics.median(times["peer (no trust check)"])
            print(f"\n{n} memories, {args.runs} fresh processes each, interleaved (ms)")
            print(f"  {'arm':<28} {'p50':>7} {'p95':>7} {'p50/peer':>9} {'chars injected':>15}")
            for name, values in times.items():
                p50 = statistics.median(values)
                print(f"  {name:<28} {p50:7.1f} {p95(values):7.1f} {p50 / peer:9.3f} {sizes[name]:15d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
