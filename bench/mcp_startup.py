"""How long `ctx mcp` and `cq mcp` take to answer `initialize` and `tools/list` (issue 22, item 2).

Each figure is over fresh processes (p50/p95 ms), printed beside `python -c pass` measured the same way
in the same run: the floor any Python server pays. `--load N` adds N busy processes for the loaded run.

    uv run python bench/mcp_startup.py [--runs 15] [--load 2]
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

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def _readline(proc: subprocess.Popen[bytes]) -> dict:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        raise RuntimeError(f"server closed stdout: {proc.stderr.read().decode() if proc.stderr else ''}")
    return json.loads(line)


def one(argv: list[str], cwd: Path) -> tuple[float, float, int]:
    """ms to the initialize answer, ms to the tools/list answer (both from spawn), tool count."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None
    try:
        proc.stdin.write((json.dumps(INIT) + "\n").encode())
        proc.stdin.flush()
        assert _readline(proc)["id"] == 1
        t_init = time.perf_counter() - start
        proc.stdin.write((json.dumps(INITIALIZED) + "\n" + json.dumps(LIST) + "\n").encode())
        proc.stdin.flush()
        answer = _readline(proc)
        t_list = time.perf_counter() - start
        return t_init * 1000, t_list * 1000, len(answer["result"]["tools"])
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def floor(cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], cwd=cwd, check=True)
    return (time.perf_counter() - start) * 1000


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def burn() -> None:
    while True:
        pass


def measure(runs: int, repo: Path, servers: dict[str, list[str]], label: str) -> None:
    rows: dict[str, list[tuple[float, float, int]]] = {name: [] for name in servers}
    floors: list[float] = []
    for _ in range(runs):  # interleaved, so a burst of load hits every server alike
        floors.append(floor(repo))
        for name, argv in servers.items():
            rows[name].append(one(argv, repo))
    print(f"\n{label} ({runs} fresh processes each, ms; load average {os.getloadavg()[0]:.1f})")
    print(f"  {'python -c pass':<22} p50 {statistics.median(floors):6.0f}  p95 {pct(floors, 0.95):6.0f}")
    for name, values in rows.items():
        inits = [v[0] for v in values]
        lists = [v[1] for v in values]
        print(
            f"  {name + ' initialize':<22} p50 {statistics.median(inits):6.0f}  p95 {pct(inits, 0.95):6.0f}"
            f"   tools/list p50 {statistics.median(lists):6.0f}  p95 {pct(lists, 0.95):6.0f}"
            f"   ({values[0][2]} tools)"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--load", type=int, default=2, help="busy processes for the loaded run (0: skip it)")
    args = parser.parse_args()
    bindir = Path(sys.executable).parent
    servers = {
        name: [str(bindir / tool), "mcp"]
        for name, tool in (("ctx mcp", "ctx"), ("cq mcp", "cq"))
        if (bindir / tool).exists()
    }
    if not servers:
        print("neither ctx nor cq is installed beside this interpreter", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp)
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        (repo / "a.py").write_text("def f():\n    return 1\n")
        measure(args.runs, repo, servers, "ambient")
        if args.load:
            import multiprocessing

            burners = [multiprocessing.Process(target=burn, daemon=True) for _ in range(args.load)]
            for p in burners:
                p.start()
            try:
                measure(args.runs, repo, servers, f"with {args.load} extra busy processes")
            finally:
                for p in burners:
                    p.terminate()
                    p.join()
    shutil.rmtree(repo, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
