"""Concurrent writers of one memory store: none turned away, none lost (issue 23, item 5).

- ``--writers`` processes x ``--puts`` ``MemoryStore.put`` each, all at once on one store: refused (LockBusy),
  lost (acknowledged but not an active entry afterwards), wall time, slowest put;
- ``--cli-writers`` loops x ``--cli-puts`` fresh ``python -m ctxops_memory_store add --json`` processes (what
  ``ctx mem add --json`` runs): exits other than 0, stdouts that are not one JSON object, tracebacks;
- a writer killed with SIGKILL in the middle of its puts, ``--kills`` times: temporary files left, and
  left after the next write.

Run: uv run python bench/memory_writers.py [--writers 8 --puts 200 --cli-writers 8 --cli-puts 25 --kills 5]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WRITER = r"""
import json, sys, time
from pathlib import Path
from ctxops_contracts.shared.locks import LockBusy
from ctxops_memory_store import MemoryStore, new_entry
root, w, n = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
store = MemoryStore(root)
acked, refused, slowest = [], 0, 0.0
for i in range(n):
    entry = new_entry(kind="fact", title=f"Writer {w} note {i}: port {9000 + w * 1000 + i} serves shard {w}-{i}",
                      body=f"Shard {w}-{i} lives on host h{w}x{i}.internal with replica r{i}{w}.")
    began = time.perf_counter()
    try:
        acked.append(store.put(entry).entry.id)
    except LockBusy:
        refused += 1
    slowest = max(slowest, time.perf_counter() - began)
print(json.dumps({"acked": acked, "refused": refused, "slowest": slowest}))
"""


def writers(root: Path, count: int, puts: int) -> None:
    began = time.perf_counter()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(root), str(w), str(puts)], stdout=subprocess.PIPE, text=True
        )
        for w in range(count)
    ]
    results = [json.loads(p.communicate()[0]) for p in procs]
    wall = time.perf_counter() - began
    from ctxops_memory_store import MemoryStore

    active = {e.id for e in MemoryStore(root).entries() if e.status == "active"}
    acked = [i for r in results for i in r["acked"]]
    refused = sum(r["refused"] for r in results)
    lost = [i for i in acked if i not in active]
    print(
        f"{count} writers x {puts} puts: {len(acked)} acknowledged, {refused} refused, {len(lost)} lost; "
        f"{wall:.1f} s wall, slowest put {max(r['slowest'] for r in results):.2f} s"
    )


def cli_writers(root: Path, count: int, puts: int) -> None:
    loop = (
        "import subprocess, sys, json\n"
        "bad = []\n"
        "for i in range(int(sys.argv[3])):\n"
        "    argv = [sys.executable, '-m', 'ctxops_memory_store', '--root', sys.argv[1], 'add', '--json', '--kind',"
        " 'fact', '--title', f'cli {sys.argv[2]} note {i} on port {7000 + i}']\n"
        "    done = subprocess.run(argv, capture_output=True, text=True)\n"
        "    try:\n"
        "        doc = json.loads(done.stdout); one = isinstance(doc, dict) and done.stdout.count('\\n') == 1\n"
        "    except ValueError:\n"
        "        one = False\n"
        "    bad.append([done.returncode, one, 'Traceback' in done.stderr])\n"
        "print(json.dumps(bad))\n"
    )
    began = time.perf_counter()
    procs = [
        subprocess.Popen([sys.executable, "-c", loop, str(root), str(w), str(puts)], stdout=subprocess.PIPE, text=True)
        for w in range(count)
    ]
    runs = [x for p in procs for x in json.loads(p.communicate()[0])]
    wall = time.perf_counter() - began
    print(
        f"{count} loops x {puts} `ctx mem add --json`: exit != 0 {sum(1 for r in runs if r[0] != 0)}, "
        f"not one JSON object {sum(1 for r in runs if not r[1])}, tracebacks {sum(1 for r in runs if r[2])}; "
        f"{wall:.1f} s wall"
    )


def kills(root: Path, times: int) -> None:
    from ctxops_memory_store import MemoryStore, new_entry

    memory_dir = root / ".meta" / "memory"
    index_dir = root / ".meta" / "index"
    MemoryStore(root).put(new_entry(kind="fact", title="the first write, before the kills"))
    left = 0
    for k in range(times):
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(root), str(100 + k), "400"], stdout=subprocess.DEVNULL
        )
        time.sleep(3 + 0.3 * k)  # past its imports, in the middle of its puts
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        # A killed writer may die between its temporary file and the rename: plant one as such a death leaves it.
        (memory_dir / f".planted.md.{proc.pid}.{time.time_ns()}.tmp").write_text("half a memory")
        left += sum(1 for d in (memory_dir, index_dir) for p in d.iterdir() if p.name.endswith(".tmp"))
    MemoryStore(root).put(new_entry(kind="fact", title="the next write after the kills"))
    after = sum(1 for d in (memory_dir, index_dir) for p in d.iterdir() if p.name.endswith(".tmp"))
    print(
        f"{times} writers killed with SIGKILL mid-put: {left} temporary files seen after the kills, "
        f"{after} after the next write"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--puts", type=int, default=200)
    parser.add_argument("--cli-writers", type=int, default=8)
    parser.add_argument("--cli-puts", type=int, default=25)
    parser.add_argument("--kills", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ctxops-writers-") as tmp:
        for name in ("puts", "cli", "kills"):
            root = Path(tmp) / name
            root.mkdir()
            subprocess.run(["git", "init", "-q", str(root)], check=True)
        writers(Path(tmp) / "puts", args.writers, args.puts)
        cli_writers(Path(tmp) / "cli", args.cli_writers, args.cli_puts)
        kills(Path(tmp) / "kills", args.kills)
    return 0


if __name__ == "__main__":
    sys.exit(main())
