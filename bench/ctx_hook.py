"""`ctx hook claude-code` (core's composed hook) as an agent runs it, beside `python -c pass` and capture alone.

Usage: uv run python bench/ctx_hook.py [--runs N] [--venv dev|wheel|both]

A git repository of the bundled example with its code index built and a few memories; each event type
goes through a fresh process N times as `ctx hook claude-code` (capture, then injection / guard / digest
as installed, with files in play from the code index), interleaved with a bare `python -c pass` and with
`python -m ctxops_hooks_capture claude-code` (capture only), so machine load hits all alike. For every
hook kind it prints p50 and p95 of wall time and of CPU time (user + system of the child, less sensitive
to a loaded machine than wall time), each also as a ratio to `python -c pass` of the same environment
measured beside it.

Two environments (``--venv both``, the default), measured interleaved: ``dev``, this workspace's virtual
environment (editable installs: one ``.pth`` file and one ``sys.path`` entry per package), and ``wheel``,
the workspace's wheels (``uv build --all-packages --wheel``) installed with ``uv pip install
--compile-bytecode`` into a fresh ``uv venv`` of the same Python, as a user gets them. Each is compared
with its own floor. Bytecode is compiled first and PYTHONDONTWRITEBYTECODE is dropped for the children, as
a wheel install runs. The children use a fresh per-run cache directory (``CTXOPS_CACHE_DIR``: the regex
and code caches), filled by one warm-up round that is not counted, as a user's first event fills it.
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
        "PreToolUse Bash (test command: wrapped)": {
            **base,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "pytest -q"},
        },
        "PostToolUse Bash": {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "pytest -q"},
            "tool_response": {"stdout": "....\n4 passed in 0.1s", "stderr": ""},
        },
        "PostToolUse Bash, long (guarded)": {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "pytest -v"},
            "tool_response": {"stdout": _LONG_RUN, "stderr": "", "interrupted": False, "isImage": False},
        },
        "PostToolUse Read": {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": str(repo / "README.md")},
            "tool_response": {"type": "text", "file": {"filePath": str(repo / "README.md"), "content": "x\n" * 40}},
        },
        "Stop": {**base, "hook_event_name": "Stop", "last_assistant_message": "Done.", "stop_hook_active": False},
    }


_LONG_RUN = "\n".join(
    [f"tests/test_orders.py::test_case_{i} PASSED" for i in range(400)]
    + ["FAILED tests/test_orders.py::test_case_7 - AssertionError: 3 != 4", "1 failed, 399 passed in 2.31s"]
)


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


def wheel_venv(tmp: Path) -> Path:
    """The workspace's wheels installed into a fresh venv of this Python; its bin directory."""
    uv = os.environ.get("UV") or shutil.which("uv")  # `uv run` names itself in $UV
    if uv is None:
        raise SystemExit("--venv wheel needs uv: run the bench with `uv run` or `./dev uv run`")
    wheels, venv = tmp / "wheels", tmp / "wheel-venv"
    build = [uv, "build", "--all-packages", "--wheel", "--out-dir", str(wheels), "-q"]
    subprocess.run(build, cwd=ROOT, capture_output=True, check=True, env=ENV)
    subprocess.run([uv, "venv", "-q", "--python", sys.executable, str(venv)], capture_output=True, check=True, env=ENV)
    install = [uv, "pip", "install", "-q", "--compile-bytecode", "--python", str(venv / "bin" / "python")]
    subprocess.run([*install, *map(str, sorted(wheels.glob("*.whl")))], capture_output=True, check=True, env=ENV)
    return venv / "bin"


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30, help="fresh processes per event and command")
    parser.add_argument(
        "--venv",
        choices=("dev", "wheel", "both"),
        default="both",
        help="the workspace's editable venv, the wheels installed in a fresh venv, or both (default)",
    )
    args = parser.parse_args()
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(ROOT / "packages"), str(ROOT / "contracts")],
        env=ENV,
        capture_output=True,
        check=False,
    )
    with tempfile.TemporaryDirectory(prefix="ctx-hook-bench-") as tmp:
        ENV["CTXOPS_CACHE_DIR"] = str(Path(tmp) / "cache")
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
        bins: dict[str, Path] = {}
        if args.venv in ("dev", "both"):
            bins["dev"] = Path(sys.executable).parent
        if args.venv in ("wheel", "both"):
            bins["wheel"] = wheel_venv(Path(tmp))
        commands: dict[str, dict[str, list[str]]] = {}
        for env, bin_dir in bins.items():
            python = str(bin_dir / Path(sys.executable).name)
            script = bin_dir / "ctx"  # what `ctx init` writes: the console script
            commands[env] = {
                "ctx hook": [str(script), "hook", "claude-code"],
                "capture": [python, "-m", "ctxops_hooks_capture", "claude-code"],
                "python -c pass": [python, "-c", "pass"],
            }
        print(
            f"{args.runs} fresh processes per event and command, interleaved; Python {sys.version.split()[0]};"
            f" environments: {', '.join(bins)}"
        )
        wall: dict[str, list[float]] = {}
        events = payloads(repo)
        for round_ in range(-1, args.runs):  # round -1 warms the caches and is not counted
            for name, payload in events.items():
                data = json.dumps({**payload, "tool_use_id": f"bench-{round_}"}).encode()
                for env, cmds in commands.items():
                    for kind, argv in cmds.items():
                        label = f"{env}: {kind}" + ("" if kind == "python -c pass" else f": {name}")
                        elapsed = timed(argv, b"" if kind == "python -c pass" else data, repo, label)
                        if round_ < 0:
                            CPU[label].pop()
                            continue
                        wall.setdefault(label, []).append(elapsed)
        print(f"{'command':<60} {'wall p50/p95 ms':>16} {'x floor':>8} {'CPU p50/p95 ms':>16} {'x floor':>8}")
        for env in commands:
            floor = f"{env}: python -c pass"
            base_wall, base_cpu = statistics.median(wall[floor]), statistics.median(CPU[floor])
            mine = [k for k in wall if k.startswith(f"{env}: ")]
            for label in sorted(mine, key=lambda k: (k != floor, "ctx hook" not in k, k)):
                w, c = wall[label], CPU[label]
                print(
                    f"{label:<60} {statistics.median(w):>7.1f}/{p95(w):<7.1f} {statistics.median(w) / base_wall:>8.2f}"
                    f" {statistics.median(c):>7.1f}/{p95(c):<7.1f} {statistics.median(c) / base_cpu:>8.2f}"
                )
        print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
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
