"""One huge single-line Bash output through `ctx hook claude-code`, beside `python -c pass`.

Usage: uv run python bench/hook_long_line.py [--sizes 50M] [--runs N] [--timeout S] [--venv DIR]

A git repository with `.meta/`; for each size, a single line of base64 (no dot, no newline: the input
that made the guard's location pattern quadratic) goes through the real hook path two ways, each as a
fresh `ctx hook claude-code` process, interleaved with a bare `python -c pass` of the same interpreter:

- ``payload``: a PostToolUse of a Bash call whose ``tool_response.stdout`` is the whole line (what a
  non-wrapped command, or an agent that does not cut outputs, hands the hook);
- ``spool``: the PreToolUse hook wraps a test command (the wrapper is what ``ctx hook`` answers in
  ``updatedInput``), bash runs the wrapped command for real, so the wrapper writes the whole line to the
  guard's spool and prints its head, tail and the exit trailer; then the PostToolUse hook gets that
  stdout and reads the spool in full.

Prints, per size and route, the median wall time and CPU time (user + system) of the PostToolUse hook,
each with its ratio to `python -c pass` measured beside it (target: at most 25x for 50 MB; on a machine
busy with other work, the CPU ratio is the steadier one). ``--venv DIR`` runs another environment's
``ctx`` (e.g. a checkout before a change); a run longer than ``--timeout`` seconds is stopped and reported
as such. ``--accounting inline`` also redacts the saved original inside the hook (the default,
``background``, leaves it to a detached process).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def size_of(text: str) -> int:
    units = {"k": 1000, "K": 1000, "m": 1_000_000, "M": 1_000_000}
    return int(float(text[:-1]) * units[text[-1]]) if text[-1] in units else int(text)


def make_line(size: int) -> bytes:
    """``size`` bytes of base64 on one line, no trailing newline (fast: one random block, repeated)."""
    import base64

    block = base64.b64encode(os.urandom(3 * 65536))  # 262,144 characters, no '=' padding, no dots
    return (block * (size // len(block) + 1))[:size]


def repo(tmp: Path, accounting: str) -> Path:
    where = tmp / "repo"
    where.mkdir()
    subprocess.run(["git", "init", "-q", str(where)], check=True)
    (where / ".meta").mkdir()
    # "background" (the default) redacts the saved original in a detached process; "inline" in the hook
    (where / ".meta" / "config.toml").write_text(f'[guard]\naccounting = "{accounting}"\n', encoding="utf-8")
    return where


CPU: list[float] = []  # CPU time (user + system) of each child run, beside its wall time


def run(argv: list[str], data: bytes, env: dict[str, str], timeout: float) -> tuple[float, bytes]:
    """One child run with ``data`` on its stdin, from a file: ``subprocess.run(input=...)`` would pump it
    through a pipe 4 kB at a time from Python, and a 50 MB payload would time the pump, not the hook."""
    with tempfile.TemporaryFile() as stdin:
        stdin.write(data)
        stdin.seek(0)
        return _run(argv, stdin, env, timeout)


def _run(argv: list[str], stdin: Any, env: dict[str, str], timeout: float) -> tuple[float, bytes]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    try:
        done = subprocess.run(argv, stdin=stdin, capture_output=True, env=env, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        CPU.append(float("inf"))
        return float("inf"), b""
    took = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return took, done.stdout


def post(where: Path, command: str, stdout: str) -> bytes:
    return json.dumps(
        {
            "session_id": "bench-long-line",
            "cwd": str(where),
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_use_id": f"t{time.monotonic_ns()}",
            "tool_input": {"command": command},
            "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False},
        }
    ).encode()


def spool_route(ctx: list[str], where: Path, blob: Path, env: dict[str, str], timeout: float) -> tuple[float, str]:
    """PreToolUse (wrap), the wrapped command in bash, PostToolUse: the time of the PostToolUse hook."""
    command = f"cat {blob}; pytest --version > /dev/null 2>&1"  # a test command: the guard wraps it
    pre = {
        "session_id": "bench-long-line",
        "cwd": str(where),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_use_id": f"t{time.monotonic_ns()}",
        "tool_input": {"command": command},
    }
    _, out = run(ctx, json.dumps(pre).encode(), env, timeout)
    try:
        wrapped = json.loads(out)["hookSpecificOutput"]["updatedInput"]["command"]
    except (ValueError, KeyError, TypeError):
        return float("nan"), "the PreToolUse hook did not wrap the command"
    shell = subprocess.run(["bash", "-c", wrapped], capture_output=True, cwd=where, check=False)
    took, answer = run(ctx, post(where, wrapped, shell.stdout.decode("utf-8", "replace")), env, timeout)
    return took, _what(answer)


def payload_route(ctx: list[str], where: Path, line: bytes, env: dict[str, str], timeout: float) -> tuple[float, str]:
    took, answer = run(ctx, post(where, "base64 -w0 blob.bin", line.decode()), env, timeout)
    return took, _what(answer)


def _what(answer: bytes) -> str:
    if not answer.strip():
        return "untouched"
    try:
        out = json.loads(answer)["hookSpecificOutput"]["updatedToolOutput"]["stdout"]
    except (ValueError, KeyError, TypeError):
        return "unreadable answer"
    return f"summarized to {len(out)} chars"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", default="50M", help="comma-separated line sizes (30k,80k,1M,50M)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--venv", type=Path, default=Path(sys.prefix), help="the environment whose ctx runs")
    parser.add_argument("--routes", default="payload,spool")
    parser.add_argument("--accounting", default="background", choices=["background", "inline", "off"])
    args = parser.parse_args()
    python = str(args.venv / "bin" / "python")
    ctx = [str(args.venv / "bin" / "ctx"), "hook", "claude-code"]
    routes = args.routes.split(",")
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        env = {**os.environ, "CTXOPS_CACHE_DIR": str(tmp / "cache")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        where = repo(tmp, args.accounting)
        run(ctx, post(where, "true", "warm-up"), env, 60)  # fills the regex cache, as a user's first event does
        print(f"ctx: {ctx[0]}  ({args.runs} runs each, median wall time; accounting {args.accounting})")
        for size_text in args.sizes.split(","):
            size = size_of(size_text)
            line = make_line(size)
            blob = tmp / "blob.b64"
            blob.write_bytes(line)
            times: dict[str, list[float]] = {"python -c pass": [], **{r: [] for r in routes}}
            cpu: dict[str, list[float]] = {name: [] for name in times}
            notes: dict[str, str] = {}
            for _ in range(args.runs):
                times["python -c pass"].append(run([python, "-c", "pass"], b"", env, 60)[0])
                cpu["python -c pass"].append(CPU[-1])
                for route in routes:
                    if route == "payload":
                        took, note = payload_route(ctx, where, line, env, args.timeout)
                    else:
                        took, note = spool_route(ctx, where, blob, env, args.timeout)
                    times[route].append(took)
                    cpu[route].append(CPU[-1])  # the PostToolUse hook's (the last child run)
                    notes[route] = note
                if any(t == float("inf") for r in routes for t in times[r]):
                    break  # one run over the timeout says enough
            floor, cpu_floor = statistics.median(times["python -c pass"]), statistics.median(cpu["python -c pass"])
            print(
                f"\n{size_text} single line ({size:,} bytes); python -c pass {floor * 1000:.1f} ms wall, "
                f"{cpu_floor * 1000:.1f} ms CPU"
            )
            for route in routes:
                t, c = statistics.median(times[route]), statistics.median(cpu[route])
                if t == float("inf"):
                    print(f"  {route:8} >{args.timeout:.0f} s (stopped)")
                    continue
                print(
                    f"  {route:8} {t * 1000:>8,.0f} ms wall {t / floor:6.1f}x   {c * 1000:>7,.0f} ms CPU "
                    f"{c / cpu_floor:6.1f}x python -c pass  ({notes.get(route, '')})"
                )
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
