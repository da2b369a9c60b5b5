"""What redacting a wrapped command's output on its way to the spool costs, per command.

Runs the same commands three ways, side by side, with `bash -c` as Claude Code does: unwrapped, wrapped
the way the guard did before session 7 (output teed raw to a spool file), and wrapped now (through a FIFO
and `spool_filter`, redacted before the first byte is written). Prints medians and the added cost.

    uv run python bench/guard_spool_filter.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ctxops_memory_inject.guard.hook import handle_pre_tool_use

# The wrapper as it was (raw tee into the spool), for the side-by-side figure.
OLD = (
    "{{ {command}\n}} > {spool} 2>&1; __ctxops_s=$?; "
    'if [ "$(wc -c < {spool})" -gt 16000 ]; then head -c 8000 {spool}; '
    "printf '\\n[ctxops: %s bytes, middle cut]\\n' \"$(wc -c < {spool})\"; tail -c 8000 {spool}; "
    "else cat {spool}; fi; printf '\\n[ctxops-exit %s x]\\n' \"$__ctxops_s\"; rm -f {spool}"
)

CASES = {
    "no output (true)": "pytest() { :; }; pytest",
    "100 lines": "pytest() { seq 1 100 | sed 's/^/tests\\/t.py::test_ PASSED /'; }; pytest",
    "20k lines (~0.9 MB)": "pytest() { seq 1 20000 | sed 's/^/tests\\/test_m.py::test_case PASSED [ 50%] /'; }; pytest",
    "0.5 s sleep, 2k lines": "pytest() { seq 1 2000 | sed 's/^/tests\\/t.py::test_ PASSED /'; sleep 0.5; }; pytest",
}


def _median(argv: list[str], cwd: Path, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        spool = root / "old.log"
        baseline = _median([sys.executable, "-c", "pass"], root, args.runs)
        print(f"python -c pass: {baseline * 1000:.0f} ms (the unit: added cost / this = start-ups' worth)")
        print(f"{'case':26} {'unwrapped':>10} {'raw tee':>10} {'redacted':>10} {'added':>10}")
        for name, command in CASES.items():
            plain = _median(["bash", "-c", command], root, args.runs)
            old = _median(["bash", "-c", OLD.format(command=command, spool=str(spool))], root, args.runs)
            new_times = []
            for _ in range(args.runs):
                payload = {"cwd": str(root), "tool_name": "Bash", "tool_input": {"command": command}}
                out = handle_pre_tool_use({"hook_event_name": "PreToolUse", **payload}, str(root))
                assert out is not None
                wrapped = out["hookSpecificOutput"]["updatedInput"]["command"]
                started = time.perf_counter()
                subprocess.run(["bash", "-c", wrapped], cwd=root, stdout=subprocess.DEVNULL, check=False)
                new_times.append(time.perf_counter() - started)
                for leftover in (root / ".meta" / ".state" / "guard" / "spool").glob("*.log"):
                    leftover.unlink()
            new = statistics.median(new_times)
            added = new - old
            print(
                f"{name:26} {plain * 1000:8.0f}ms {old * 1000:8.0f}ms {new * 1000:8.0f}ms {added * 1000:+8.0f}ms"
                f"  ({added / baseline:.1f}x python -c pass)"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
