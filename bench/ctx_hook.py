"""`ctx hook claude-code` (core's composed hook) as an agent runs it, side by side with capture alone.

Usage: uv run python bench/ctx_hook.py [--runs N]

A git repository of the bundled example with its code index built and a few memories; each event type
goes through a fresh process N times as `ctx hook claude-code` (capture, then injection / guard / digest
as installed, with files in play from the code index) and as `python -m ctxops_hooks_capture claude-code`
(capture only), interleaved so machine load hits both alike. Prints p50 and p95 per command and the
ratio of the composed hook to capture alone: the cost of composition; then the CPU time (user + system of
the child, less sensitive to a loaded machine than wall time) of each beside a bare `python -c pass`.
Bytecode is compiled first and PYTHONDONTWRITEBYTECODE is dropped for the children, as a wheel install runs.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def payloads(repo: Path) -> dict[str, dict[str, object]]:
    base = {"session_id": "bench", "cwd": str(repo), "transcript_path": "/tmp/t.jsonl"}
    return {
        "SessionStart": {**base, "hook_event_name": "SessionStart", "source": "startup"},
        "UserPromptSubmit (names code)": {
            **base,
            "hook_event_name": "UserPromptSubmit",
            "prompt": "why does OrderStateMachine.transition reject _apply_refunded callbacks?",
        },
        "PostToolUse Bash": {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "pytest -q"},
            "tool_response": {"stdout": "....\n4 passed in 0.1s", "stderr": ""},
        },
        "Stop": {**base, "hook_event_name": "Stop", "last_assistant_message": "Done.", "stop_hook_active": False},
    }


CPU: dict[str, list[float]] = {}
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(argv: list[str], stdin: bytes, cwd: Path, label: str = "") -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, input=stdin, cwd=cwd, capture_output=True, check=False, env=ENV)
    elapsed = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    CPU.setdefault(label or " ".join(argv[2:4]), []).append(cpu)
    if done.returncode != 0:
        raise SystemExit(f"{argv} exited {done.returncode}: {done.stderr[:300]!r}")
    if done.stdout:
        json.loads(done.stdout)  # only the agent's JSON may be printed
    return elapsed


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30, help="fresh processes per event and command")
    args = parser.parse_args()
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(ROOT / "packages"), str(ROOT / "contracts")],
        env=ENV,
        capture_output=True,
        check=False,
    )
    with tempfile.TemporaryDirectory(prefix="ctx-hook-bench-") as tmp:
        repo = Path(tmp) / "order-service"
        subprocess.run(
            [sys.executable, str(ROOT / "examples" / "make_history.py"), str(repo)], check=True, capture_output=True
        )
        subprocess.run(
            [sys.executable, "-m", "ctxops_code_query", "index", "--root", str(repo)], check=True, capture_output=True
        )
        for title in ("Money is Decimal, never float", "Refund callbacks are idempotent by payment id"):
            subprocess.run(
                [sys.executable, "-m", "ctxops_core", "mem", "add", "--kind", "lesson", "--title", title],
                cwd=repo,
                check=True,
                capture_output=True,
            )
        script = Path(sys.executable).with_name("ctx")  # what `ctx init` writes: the console script
        composed = [
            str(script) if script.exists() else sys.executable,
            *([] if script.exists() else ["-m", "ctxops_core"]),
            "hook",
            "claude-code",
        ]
        capture = [sys.executable, "-m", "ctxops_hooks_capture", "claude-code"]
        print(f"{args.runs} fresh processes per event and command; {sys.version.split()[0]}")
        print(f"{'event':<32} {'ctx hook p50/p95':>18} {'capture p50/p95':>18} {'ratio p50':>10}")
        all_c: list[float] = []
        all_b: list[float] = []
        for name, payload in payloads(repo).items():
            data = json.dumps(payload).encode()
            ours: list[float] = []
            base: list[float] = []
            for _ in range(args.runs):
                ours.append(timed(composed, data, repo, f"ctx hook: {name}"))
                base.append(timed(capture, data, repo, f"capture: {name}"))
                timed([sys.executable, "-c", "pass"], b"", repo, "python -c pass")
            all_c += ours
            all_b += base
            ratio = statistics.median(ours) / statistics.median(base)
            print(
                f"{name:<32} {statistics.median(ours):>8.0f}/{p95(ours):<5.0f} ms"
                f" {statistics.median(base):>8.0f}/{p95(base):<5.0f} ms {ratio:>9.2f}x"
            )
        print(
            f"{'all events':<32} {statistics.median(all_c):>8.0f}/{p95(all_c):<5.0f} ms"
            f" {statistics.median(all_b):>8.0f}/{p95(all_b):<5.0f} ms"
            f" {statistics.median(all_c) / statistics.median(all_b):>9.2f}x"
        )
        print("CPU time (user+sys of the child), ms:")
        floor = statistics.median(CPU["python -c pass"])
        for label, values in CPU.items():
            print(
                f"  {label:<48} p50 {statistics.median(values):6.1f}  p95 {p95(values):6.1f}"
                f"  ({statistics.median(values) / floor:.2f}x python -c pass)"
            )
        # The code line's share of an injection: files in play for a prompt, imports included, in a fresh
        # process (it runs only when memory-inject offers a hook handler, so it is timed on its own here).
        probe = (
            "import time; t = time.perf_counter(); from ctxops_core.hook_cmd import files_in_play; "
            f"f = files_in_play({str(repo)!r}, 'why does OrderStateMachine.transition reject _apply_refunded?'); "
            "print((time.perf_counter() - t) * 1000, len(f))"
        )
        lookups = []
        for _ in range(args.runs):
            out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
            elapsed, found = out.split()
            assert int(found) == 2, out
            lookups.append(float(elapsed))
        print(
            f"files in play (2 names -> 2 files), in a fresh process: p50 {statistics.median(lookups):.0f} ms,"
            f" p95 {p95(lookups):.0f} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
