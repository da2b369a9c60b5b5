"""Fresh `ctx mem` processes and the inject hook at any store size (issue 23, item 4).

``--n`` memories (docstrings of the stdlib and installed packages, as bench/memory_inject_speed.py) are
written as files and the store's read snapshot built once (what the detached sync does). Then, each in a
fresh process, interleaved with ``python -c pass`` so machine load hits all alike, ``--runs`` times:
``python -m ctxops_memory_store search WORDS --json`` (= ``ctx mem search``), ``show ID``, ``add``, and the
inject hook (``python -m ctxops_memory_inject hook claude-code``, UserPromptSubmit) right after a
``git pull`` that brought 3 memories (files written outside the store). p50/p95 wall and CPU per command,
each beside ``python -c pass``.

Run: uv run python bench/memory_cli_speed.py [--n 50000] [--runs 20]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from memory_inject_speed import KINDS, docstrings, p95, run_child


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    from ctxops_contracts.shared.files import atomic_write
    from ctxops_memory_store import MemoryStore, new_entry
    from ctxops_memory_store.entry_file import file_name, render_entry

    texts = docstrings(args.n + args.runs * 3 + 10)
    root = Path(tempfile.mkdtemp(prefix="memcli-")) / "repo"
    (root / ".git").mkdir(parents=True)
    memory = root / ".meta" / "memory"
    ids = []
    began = time.perf_counter()
    for i, (title, body) in enumerate(texts[: args.n]):
        entry = new_entry(kind=KINDS[i % len(KINDS)], title=title, body=body, scope=[f"pkg{i % 40}/**"])
        atomic_write(memory / file_name(entry), render_entry(entry), fsync=False)
        ids.append(entry.id)
    MemoryStore(root).sync_snapshot()
    from ctxops_memory_store.trust import trust_repository

    trust_repository(root)  # the files were written outside the store: trusted, as their author's clone
    print(f"{args.n} memories written and the read snapshot built in {time.perf_counter() - began:.0f} s")
    env = {k: v for k, v in __import__("os").environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    py = sys.executable
    extra = texts[args.n :]
    times: dict[str, tuple[list[float], list[float]]] = {}

    def timed(label: str, argv: list[str], payload: str | None = None) -> str:
        wall, cpu, out = run_child(argv, payload, env)
        times.setdefault(label, ([], []))[0].append(wall)
        times[label][1].append(cpu)
        return out

    for n in range(args.runs):
        words = " ".join(extra[n][0].split()[:4])
        timed("python -c pass", [py, "-c", "pass"])
        out = timed("ctx mem search", [py, "-m", "ctxops_memory_store", "--root", str(root), "search", words, "--json"])
        assert json.loads(out)["engine"] == "snapshot", out[:200]
        timed("ctx mem show", [py, "-m", "ctxops_memory_store", "--root", str(root), "show", ids[n * 7][-8:], "--json"])
        # A `git pull` that brings 3 memories, then the next hook.
        for title, body in extra[args.runs + n * 3 : args.runs + n * 3 + 3]:
            entry = new_entry(kind="lesson", title=title, body=body)
            atomic_write(memory / file_name(entry), render_entry(entry), fsync=False)
        payload = json.dumps(
            {"session_id": f"b{n}", "cwd": str(root), "hook_event_name": "UserPromptSubmit", "prompt": words}
        )
        timed("hook after git pull", [py, "-m", "ctxops_memory_inject", "hook", "claude-code"], payload)
        title = f"bench note {n}: {extra[n][0]}"
        timed("ctx mem add", [py, "-m", "ctxops_memory_store", "--root", str(root), "add", "--title", title, "--json"])
    floor_wall = p95(times["python -c pass"][0])
    print(f"{'command':<22} {'wall p50':>9} {'wall p95':>9} {'cpu p95':>8} {'p95 - floor':>12}")
    for label, (walls, cpus) in times.items():
        walls_sorted = sorted(walls)
        print(
            f"{label:<22} {walls_sorted[len(walls) // 2]:>8.0f}ms {p95(walls):>8.0f}ms {p95(cpus):>7.0f}ms "
            f"{p95(walls) - floor_wall:>10.0f}ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
