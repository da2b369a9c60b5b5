"""Memory at scale: 10,000 memories made from docstrings of the CPython stdlib and the installed third-party
packages (text nobody here wrote).

Measures, side by side in one run:
- add: ``MemoryStore.put`` one by one (dedupe, folding, conflicts, atomic file write, the hook's read
  snapshot kept in step), in-process, wall and CPU, for the last ``--measure`` memories (the first ones are
  written as files directly, then read once; the read snapshot's first build is reported apart);
- search: ``MemoryStore.find`` (catalog BM25) against the DuckDB SQL BM25 of the same index (``index.search``);
- the store's read path of the hook, in-process: ``build_injection`` (snapshot open, query, rank, block);
- the first hook after the writes reads the snapshot as the writer left it: no catalog read, no rows rebuilt;
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
import sqlite3
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
    return sorted(values)[max(0, int(len(values) * 0.95) - 1)]


def spread(values: list[float]) -> str:
    return f"p50 {statistics.median(values):.1f} ms, p95 {p95(values):.1f} ms"


def run_child(command: list[str], payload: str | None, env: dict[str, str]) -> tuple[float, float, str]:
    """Wall ms, CPU ms (user+sys of the child) and stdout of one fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, input=payload, capture_output=True, text=True, env=env, check=True)
    wall = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu, done.stdout


def snapshot_rows(root: Path) -> tuple[int, int]:
    from ctxops_memory_store import snapshot

    con = sqlite3.connect(root / ".meta" / "index" / snapshot.NAME)
    try:
        count, last = con.execute("SELECT count(*), max(doc) FROM docs").fetchone()
    finally:
        con.close()
    return int(count), int(last)


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
    # The read snapshot's first build: a write to a store this large hands it to a detached sync (the
    # hook reads the catalog meanwhile), which builds it in steps of the write lock. Here, in-process.
    started, cpu = time.perf_counter(), time.process_time()
    MemoryStore(root).sync_snapshot()
    build = (time.perf_counter() - started, time.process_time() - cpu)
    adds, add_cpu, floor = [], [], []
    peer_dir = root.parent / "fsync-peer"
    for i, (title, body) in enumerate(memories[prefill:], prefill):
        entry = new_entry(kind=KINDS[i % len(KINDS)], title=title, body=body, scope=[f"pkg{i % 40}/**"])
        started, cpu = time.perf_counter(), time.process_time()
        store.put(entry)
        adds.append((time.perf_counter() - started) * 1000)
        add_cpu.append((time.process_time() - cpu) * 1000)
        # The peer: the one durable step a put cannot skip, alone (the same file, written, fsynced, renamed).
        started = time.perf_counter()
        atomic_write(peer_dir / f"{i}.md", render_entry(entry))
        floor.append((time.perf_counter() - started) * 1000)
    store.save_catalog()
    print(
        f"add (store growing {prefill} -> {len(memories)} memories, in-process): wall {spread(adds)}; "
        f"CPU {spread(add_cpu)}; first read of {prefill} files {first_load:.1f} s; the read snapshot's first "
        f"build (a detached sync, in steps): wall {build[0]:.1f} s, CPU {build[1]:.1f} s"
    )
    print(f"peer, the same file written with one fsync and renamed, after each put: wall {spread(floor)}")

    # The first hook after the writes: it must read the snapshot the writer left, not the catalog, and
    # rebuild nothing (asserted on what it read and wrote, not on time).
    from ctxops_memory_store import snapshot

    env = {**os.environ, "CTXOPS_DATA_DIR": str(root.parent / "data")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as an installed wheel runs: bytecode cached
    catalog_file = root / ".meta" / "index" / "memory-catalog.msgpack"
    catalog_file.unlink()
    rows = snapshot_rows(root)
    payload = {
        "hook_event_name": "UserPromptSubmit",
        "session_id": "first",
        "cwd": str(root),
        "prompt": memories[-1][0],
    }
    hook = [sys.executable, "-m", "ctxops_memory_inject", "hook", "claude-code"]
    # Warm-up on a one-memory repository: bytecode written and the tokenizer's line cache in place there,
    # so the figure below is the big store's read path, not a first compile.
    small = root.parent / "small"
    (small / ".git").mkdir(parents=True)
    MemoryStore(small).put(new_entry(kind="lesson", title=memories[-1][0]))
    run_child(hook, json.dumps({**payload, "cwd": str(small)}), env)
    wall, cpu, out = run_child(hook, json.dumps(payload), env)
    assert not catalog_file.exists(), "the first hook after the writes read the catalog"
    assert not (root / ".meta" / "index" / snapshot.SYNC_STARTED).exists(), "the first hook started a sync"
    assert snapshot_rows(root) == rows, "the first hook rebuilt snapshot rows"
    assert json.loads(out)["hookSpecificOutput"]["additionalContext"]
    print(
        f"first inject hook after the writes: wall {wall:.0f} ms, CPU {cpu:.0f} ms; snapshot as written, catalog unread"
    )
    store.catalog.dirty = True  # its file was removed above
    store.save_catalog()

    store.rebuild_index(lock_timeout=30)
    ours, ours_cpu, sql = [], [], []
    for q in queries:
        started, cpu = time.perf_counter(), time.process_time()
        store.find(q, limit=10)  # the first query builds the postings (kept in step by later writes)
        ours.append((time.perf_counter() - started) * 1000)
        ours_cpu.append((time.process_time() - cpu) * 1000)
        started = time.perf_counter()
        store.index.search(q, Filters(), 10)
        sql.append((time.perf_counter() - started) * 1000)
    print(
        f"search ({len(queries)} queries): catalog wall {spread(ours)}, CPU {spread(ours_cpu)} (the first query "
        f"builds the postings: {ours[0]:.0f} ms); "
        f"DuckDB SQL {spread(sql)}; ratio p95 {p95(sql) / p95(ours):.1f}x"
    )

    # The store's read path of the hook, in-process (process start-up and imports are not in it).
    from ctxops_memory_inject.build import build_injection

    build_injection(root, queries[0])  # imports and the token cache, as the hook's process has them
    reads, read_cpu = [], []
    for q in queries:
        started, cpu = time.perf_counter(), time.process_time()
        build_injection(root, q)
        reads.append((time.perf_counter() - started) * 1000)
        read_cpu.append((time.process_time() - cpu) * 1000)
    print(
        f"inject read path in-process (build_injection, {len(queries)} prompts): wall {spread(reads)}; "
        f"CPU {spread(read_cpu)}"
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
