"""Issue 23, item 5: no writer turned away, no traceback under --json, a copied file counted once, no
temporary file a killed writer left. Real processes, a real store (bench/memory_writers.py: full scale)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from ctxops_contracts.shared.locks import file_lock
from ctxops_memory_store import MemoryStore, new_entry
from ctxops_memory_store.write_turn import WRITE_LOCK

WRITER = r"""
import json, sys
from pathlib import Path
from ctxops_contracts.shared.locks import LockBusy
from ctxops_memory_store import MemoryStore, new_entry
root, w, n = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
store, acked, refused = MemoryStore(root), [], 0
for i in range(n):
    entry = new_entry(kind="fact", title=f"Writer {w} note {i}: port {9000 + w * 100 + i} serves shard {w}-{i}")
    try:
        acked.append(store.put(entry).entry.id)
    except LockBusy:
        refused += 1
print(json.dumps({"acked": acked, "refused": refused}))
"""


def test_concurrent_writers_all_land(repo: Path) -> None:
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(repo), str(w), "12"], stdout=subprocess.PIPE, text=True)
        for w in range(4)
    ]
    results = [json.loads(p.communicate(timeout=600)[0]) for p in procs]
    assert sum(r["refused"] for r in results) == 0
    acked = [i for r in results for i in r["acked"]]
    assert len(acked) == 48
    active = {e.id for e in MemoryStore(repo).entries() if e.status == "active"}
    assert set(acked) <= active  # none lost


def test_a_writer_waits_for_a_held_lock_instead_of_giving_up(repo: Path) -> None:
    MemoryStore(repo).put(new_entry(kind="fact", title="first"))
    with file_lock(repo / ".meta" / "index" / WRITE_LOCK, timeout=5):
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(repo), "2", "1"], stdout=subprocess.PIPE, text=True
        )
        time.sleep(13)  # longer than the 10 s after which a writer used to be turned away (LockBusy)
        assert writer.poll() is None  # still waiting its turn
    out = json.loads(writer.communicate(timeout=300)[0])
    assert out["refused"] == 0 and len(out["acked"]) == 1


def _cli(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctxops_memory_store", "--root", str(repo), *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def test_json_errors_are_one_object_never_a_traceback(repo: Path) -> None:
    MemoryStore(repo).put(new_entry(kind="fact", title="first"))
    memory = repo / ".meta" / "memory"
    lock = repo / ".meta" / "index" / WRITE_LOCK
    lock.unlink()
    lock.mkdir()  # the write lock cannot be opened (as root, a read-only directory would not stop a write)
    cases = [
        _cli(repo, "show", "NOSUCHID", "--json"),
        _cli(repo, "add", "--json", "--kind", "nonsense", "--title", "x"),
        _cli(repo, "add", "--json", "--title", "a note while the lock cannot be taken"),
    ]
    lock.rmdir()
    for done in cases:
        assert done.returncode in {2, 4}, (done.returncode, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr and "Traceback" not in done.stdout
        lines = done.stdout.splitlines()
        assert len(lines) == 1 and isinstance(json.loads(lines[0]), dict), done.stdout
    assert memory.is_dir()


def test_a_copied_memory_file_is_detected(repo: Path) -> None:
    entry = MemoryStore(repo).put(new_entry(kind="constraint", title="Payments answer within 200 ms")).entry
    path = MemoryStore(repo).path_of(entry.id)
    assert path is not None
    (path.parent / ("copy-" + path.name)).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    store = MemoryStore(repo)
    assert any("duplicate id" in str(e) for e in store.errors)  # named, with both files
    assert [e.id for e in store.entries()].count(entry.id) == 1
    done = _cli(repo, "search", "payments", "--json")
    assert [h["id"] for h in json.loads(done.stdout)["hits"]] == [entry.id]


def test_temporary_files_of_a_killed_writer_are_swept(repo: Path) -> None:
    MemoryStore(repo).put(new_entry(kind="fact", title="first"))
    memory, index = repo / ".meta" / "memory", repo / ".meta" / "index"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(repo), "7", "400"], stdout=subprocess.DEVNULL)
    time.sleep(2)
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait()
    # What a death between the temporary file and its rename leaves (atomic_write's name: pid, clock).
    orphan = memory / f".fact-orphan-abcdef.md.{writer.pid}.{time.time_ns()}.tmp"
    orphan.write_text("half a memory", encoding="utf-8")
    stale_index = index / f".memory-catalog.msgpack.{writer.pid}.{time.time_ns()}.tmp"
    stale_index.write_bytes(b"half a catalog")
    MemoryStore(repo).put(new_entry(kind="fact", title="the next write"))
    assert not orphan.exists() and not stale_index.exists()
    orphan.write_text("half a memory", encoding="utf-8")
    done = _cli(repo, "rebuild", "--json")
    assert done.returncode == 0, done.stderr
    assert not orphan.exists()
