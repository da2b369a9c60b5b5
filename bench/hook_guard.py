"""What the guarded hook command costs (issue 22, item 1): `ctx init` writes
`test -x P && exec P hook AGENT; <say once>; exit 0` instead of `P hook AGENT`.

Fresh processes, interleaved, run as agents run them (`/bin/sh -c COMMAND`, payload on stdin) in a
repository wired by `ctx init --no-index`: the guarded command, the plain absolute one, the bare `ctx` of
earlier versions (through PATH), the guarded command whose path is gone, and `python -c pass`.

    uv run python bench/hook_guard.py [--runs 15]
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

from ctxops_core import agents


def timed(command: str, repo: Path, payload: str, env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        ["/bin/sh", "-c", command], input=payload, cwd=repo, env=env, capture_output=True, text=True, check=False
    )
    elapsed = (time.perf_counter() - start) * 1000
    assert done.returncode == 0, (command, done.stderr)
    return elapsed


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    ctx = Path(sys.executable).parent / "ctx"
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        subprocess.run(
            [str(ctx), "init", "--agent", "claude-code", "--no-index"], cwd=repo, check=True, capture_output=True
        )
        guarded = agents.guarded_hook((str(ctx),), "claude-code", str(repo))
        gone = agents.guarded_hook((str(Path(tmp) / "gone" / "ctx"),), "claude-code", str(repo))
        commands = {
            "python -c pass": f"exec {sys.executable} -c pass",
            "guarded (this version)": guarded,
            "plain absolute path": f"{ctx} hook claude-code",
            "bare ctx via PATH": "ctx hook claude-code",
            "guarded, path gone": gone,
        }
        payload = json.dumps(
            {
                "hook_event_name": "PostToolUse",
                "session_id": "bench",
                "cwd": str(repo),
                "tool_name": "Bash",
                "tool_input": {"command": "ls"},
                "tool_response": {"stdout": "a.py\n", "stderr": "", "exit_code": 0},
            }
        )
        env = {**os.environ, "PATH": f"{ctx.parent}:{os.environ.get('PATH', '')}"}
        times: dict[str, list[float]] = {name: [] for name in commands}
        for command in commands.values():  # warm-up: caches filled, the gone note written
            timed(command, repo, payload, env)
        for _ in range(args.runs):
            for name, command in commands.items():
                times[name].append(timed(command, repo, payload, env))
    print(f"PostToolUse through /bin/sh -c, {args.runs} fresh processes each (ms; load {os.getloadavg()[0]:.1f})")
    for name, values in times.items():
        print(f"  {name:<24} p50 {statistics.median(values):6.1f}  p95 {pct(values, 0.95):6.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
