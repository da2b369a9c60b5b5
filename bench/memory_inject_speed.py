"""Memory at scale: 10,000 memories made from docstrings of the CPython stdlib and the installed third-party
packages (text nobody here wrote).

Measures, side by side in one run:
- add: ``MemoryStore.put`` one by one (dedupe, folding, conflicts, atomic file write), in-process, for the
  last ``--measure`` memories (the first ones are written as files directly, then read once);
- search: ``MemoryStore.find`` (catalog BM25) against the DuckDB SQL BM25 of the same index (``index.search``);
- the inject hook as an agent runs it (UserPromptSubmit, fresh processes): ``ctx hook claude-code`` (the
  console script ``ctx init`` writes) and the memory-only ``python -m ctxops_memory_inject hook claude-code``,
  interleaved with a bare ``python -c pass``: p50/p95 of wall and CPU time (user + system of the child),
  each as a ratio to ``python -c pass``; checks DuckDB is not imported.

Run: uv run python bench/memory_inject_speed.py [--n 10000] [--hooks-only REPO]
(``--hooks-only`` times the hooks on a repository an earlier run built and left under /tmp.)
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import resource
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

KINDS = ("decision", "constraint", "convention", "lesson", "preference", "fact")


def docstrings(limit: int) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    paths = sysconfig.get_paths()
    stdlib = sorted(p for p in Path(paths["stdlib"]).rglob("*.py") if "site-packages" not in p.parts)
    third_party = sorted(p for p in Path(paths["purelib"]).rglob("*.py") if "ctxops" not in str(p))
    for path in stdlib + third_party:
        if "test" in path.parts or "tests" in path.parts:
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node)
                if doc and len(doc) > 40:
                    first, _, rest = doc.strip().partition("\n")
                    out.append((f"{node.name}: {first.strip()}"[:120], rest.strip()[:600]))
                    if len(out) >= limit:
                        return out
    return out


def p95(values: list[float]) -> float:
    return sorted(values)[int(len(values) * 0.95) - 1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--hooks", type=int, default=40)
    parser.add_argument("--measure", type=int, default=1000, help="memories added through put() and timed")
    parser.add_argument("--hooks-only", type=Path, help="a repository an earlier run built: time the hooks only")
    args = parser.parse_args()
    if args.hooks_only:
        texts = docstrings(args.n + args.queries)
        time_hooks(args.hooks_only.resolve(), [t for t, _ in texts[args.n :]][: args.hooks])
        return
    from ctxops_memory_store import Filters, MemoryStore, new_entry

    texts = docstrings(args.n + args.queries)
    memories, queries = texts[: args.n], [t for t, _ in texts[args.n :]]
    root = Path(tempfile.mkdtemp(prefix="memscale-")) / "repo"
    (root / ".git").mkdir(parents=True)
    from ctxops_contracts.shared.files import atomic_write
    from ctxops_memory_store.entry_file import file_name, render_entry

    # The first memories are written as files directly (as a checkout with many entries has them); the last
    # --measure go through put(), timed, while the store grows to --n.
    prefill = max(0, len(memories) - args.measure)
    for i, (title, body) in enumerate(memories[:prefill]):
        entry = new_entry(kind=KINDS[i % len(KINDS)], title=title, body=body, scope=[f"pkg{i % 40}/**"])
        atomic_write(root / ".meta" / "memory" / file_name(entry), render_entry(entry), fsync=False)
    store = MemoryStore(root)
    started = time.perf_counter()
    store.load()
    first_load = time.perf_counter() - started
    adds = []
    for i, (title, body) in enumerate(memories[prefill:], prefill):
        entry = new_entry(kind=KINDS[i % len(KINDS)], title=title, body=body, scope=[f"pkg{i % 40}/**"])
        started = time.perf_counter()
        store.put(entry)
        adds.append((time.perf_counter() - started) * 1000)
    store.save_catalog()
    print(
        f"add (store growing {prefill} -> {len(memories)} memories, in-process): "
        f"p50 {statistics.median(adds):.1f} ms, p95 {p95(adds):.1f} ms; "
        f"first read of {prefill} files {first_load:.1f} s"
    )

    store.rebuild_index(lock_timeout=30)
    ours, sql = [], []
    for q in queries:
        started = time.perf_counter()
        store.find(q, limit=10)  # the first query builds the postings (kept in step by later writes)
        ours.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        store.index.search(q, Filters(), 10)
        sql.append((time.perf_counter() - started) * 1000)
    print(
        f"search ({len(queries)} queries): catalog p50 {statistics.median(ours):.1f} ms, p95 {p95(ours):.1f} ms; "
        f"DuckDB SQL p50 {statistics.median(sql):.1f} ms, p95 {p95(sql):.1f} ms; ratio p95 {p95(sql) / p95(ours):.1f}x"
    )

    print(f"repository (reuse with --hooks-only): {root}")
    time_hooks(root, queries[: args.hooks])


Times = dict[str, list[tuple[float, float]]]  # label -> (wall ms, CPU ms) per run


def _run(argv: list[str], data: str, env: dict[str, str], times: Times, label: str) -> str:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, input=data, capture_output=True, text=True, env=env, check=True)
    wall = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    times.setdefault(label, []).append((wall, cpu))
    return done.stdout


def time_hooks(root: Path, queries: list[str]) -> None:
    """The inject hook as an agent runs it, interleaved with ``python -c pass``."""
    # As an installed wheel runs: bytecode cached (this workspace exports PYTHONDONTWRITEBYTECODE=1).
    env = {**os.environ, "CTXOPS_DATA_DIR": str(root.parent / "data")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    script = Path(sys.executable).with_name("ctx")
    commands = {
        "ctx hook claude-code": [str(script), "hook", "claude-code"],
        "python -m ctxops_memory_inject hook": [sys.executable, "-m", "ctxops_memory_inject", "hook", "claude-code"],
    }
    times: Times = {}
    for i, q in enumerate(queries):
        payload = {"hook_event_name": "UserPromptSubmit", "session_id": f"bench-{i}", "cwd": str(root), "prompt": q}
        for label, argv in commands.items():
            data = json.dumps({**payload, "session_id": f"{label}-{i}"})
            out = _run(argv, data, env, times, label)
            assert out == "" or json.loads(out)["hookSpecificOutput"]["additionalContext"]
        _run([sys.executable, "-c", "pass"], "", env, times, "python -c pass")
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, json, io; sys.stdin = io.TextIOWrapper(io.BytesIO(json.dumps("
            f"{{'hook_event_name':'UserPromptSubmit','session_id':'probe','cwd':{str(root)!r},"
            "'prompt':'socket timeout'}"
            ").encode())); from ctxops_memory_inject.hook import main; main(['claude-code']); "
            "print('DUCKDB', 'duckdb' in sys.modules, 'LANCEDB', 'lancedb' in sys.modules, file=sys.stderr)",
        ],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    floor_wall = statistics.median(w for w, _ in times["python -c pass"])
    floor_cpu = statistics.median(c for _, c in times["python -c pass"])
    print(f"inject hook, fresh processes ({len(queries)} prompts each, interleaved); {probe.stderr.strip()}")
    print(f"{'command':<38} {'wall p50/p95 ms':>16} {'x floor':>8} {'CPU p50/p95 ms':>16} {'x floor':>8}")
    for label in ["python -c pass", *commands]:
        wall = [w for w, _ in times[label]]
        cpu = [c for _, c in times[label]]
        wall_p50, cpu_p50 = statistics.median(wall), statistics.median(cpu)
        print(
            f"{label:<38} {wall_p50:>7.0f}/{p95(wall):<7.0f} {wall_p50 / floor_wall:>8.2f}"
            f" {cpu_p50:>7.0f}/{p95(cpu):<7.0f} {cpu_p50 / floor_cpu:>8.2f}"
        )
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
