"""Hook capture wall time per event, side by side with `python -c pass` (the floor any Python hook pays).

Usage: uv run python bench/hook_capture.py [--runs N] [--python PATH]

Each event type is captured N times as a real subprocess (`python -m ctxops_hooks_capture claude-code`),
interleaved with `python -c pass` runs so machine load hits both alike. Prints medians and the ratio.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def payloads(repo: Path) -> dict[str, dict[str, object]]:
    base = {"session_id": "bench", "cwd": str(repo), "transcript_path": "/tmp/t.jsonl", "prompt_id": "p1"}
    output = "".join(f"line {i}\n" for i in range(50_000))  # ~0.4 MB of tool output
    return {
        "SessionStart": {**base, "hook_event_name": "SessionStart", "source": "startup"},
        "UserPromptSubmit": {**base, "hook_event_name": "UserPromptSubmit", "prompt": "No, use Decimal instead"},
        "PostToolUse Read": {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": f"{repo}/api/app.py"},
            "tool_response": {"file": {"content": "x = 1\n" * 200}},
        },
        "PostToolUse Bash+secret": {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "export OPENAI_API_KEY=sk-proj-SECRETSECRET123 && pytest"},
            "tool_response": {"stdout": "....\n4 passed in 0.1s", "stderr": ""},
        },
        "PostToolUse Bash 0.4 MB": {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "cat big.log"},
            "tool_response": {"stdout": output, "stderr": ""},
        },
        "Stop": {**base, "hook_event_name": "Stop", "last_assistant_message": "Done.", "stop_hook_active": False},
    }


def timed(argv: list[str], stdin: bytes, cwd: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, input=stdin, cwd=cwd, capture_output=True, check=False)
    elapsed = (time.perf_counter() - started) * 1000
    if done.returncode != 0 or done.stdout:
        raise SystemExit(f"{argv} misbehaved: exit {done.returncode}, stdout {done.stdout[:200]!r}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--python", default=sys.executable, help="interpreter of the environment to measure")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        (repo / ".git").mkdir(parents=True)
        floor: list[float] = []
        rows = []
        for n, (name, payload) in enumerate(payloads(repo).items()):
            data = json.dumps(payload).encode()
            hook: list[float] = []
            for i in range(args.runs):
                if name.startswith("PostToolUse"):
                    data = json.dumps({**payload, "tool_use_id": f"t{n}-{i}"}).encode()  # not a duplicate
                floor.append(timed([args.python, "-c", "pass"], b"", repo))
                hook.append(timed([args.python, "-m", "ctxops_hooks_capture", "claude-code"], data, repo))
            rows.append((name, statistics.median(hook), len(data)))
        base = statistics.median(floor)
        stored = sum(1 for day in (repo / ".meta" / "events").glob("*.jsonl") for _ in day.open("rb"))
    print(f"hook capture wall time, median of {args.runs} runs each ({args.python})")
    print(f"{'event':<26}{'payload':>10}{'hook ms':>10}{'python -c pass ms':>20}{'ratio':>8}{'over floor ms':>15}")
    for name, median, size in rows:
        print(f"{name:<26}{size:>10}{median:>10.1f}{base:>20.1f}{median / base:>8.2f}{median - base:>15.1f}")
    print(f"{stored} events stored ({len(rows) * args.runs} captures)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
