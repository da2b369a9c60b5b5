"""BM25 on a small gold set, filters, and the fallbacks when the DuckDB index is locked or damaged."""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from ctxops_memory_store.index import Filters
from ctxops_memory_store.store import MemoryStore, new_entry

GOLD_ENTRIES = {
    "decimal": (
        "decision",
        "Money is decimal.Decimal",
        "Order totals, refunds and taxes use decimal.Decimal with two places. Never float.",
        ["api/**"],
        ["money"],
    ),
    "retry": (
        "convention",
        "Webhook retries use exponential backoff",
        "The Go worker retries failed webhooks three times with backoff of 1s, 4s, 16s.",
        ["worker/**"],
        ["webhooks"],
    ),
    "state": (
        "constraint",
        "Order state changes go through the state machine",
        "Never assign order.status directly; call transition() in api/orders/state_machine.py.",
        ["api/orders/**"],
        [],
    ),
    "race": (
        "lesson",
        "Run go tests with -race",
        "The worker had a data race in the retry queue that only go test -race found.",
        ["worker/**"],
        ["tests"],
    ),
    "cart": (
        "fact",
        "The cart total is computed in the front end",
        "web/src/cart.ts sums line items; the API recomputes it before charging.",
        ["web/**"],
        [],
    ),
    "zh": ("preference", "日志使用结构化格式", "所有服务的日志都用 JSON 格式输出，方便检索。", [], ["logging"]),
    "migrate": (
        "lesson",
        "Apply migrations before running API tests",
        "Tests against a fresh database fail with 'no such table' until migrations run.",
        ["api/**"],
        [],
    ),
}

GOLD_QUERIES = [
    ("float rounding money", "decimal"),
    ("webhook backoff", "retry"),
    ("set order status", "state"),
    ("data race worker tests", "race"),
    ("cart total", "cart"),
    ("日志 格式", "zh"),
    ("no such table", "migrate"),
    ("refunds taxes", "decimal"),
]


@pytest.fixture
def gold(store: MemoryStore) -> dict[str, str]:
    ids = {}
    for key, (kind, title, body, scope, tags) in GOLD_ENTRIES.items():
        ids[key] = store.put(new_entry(kind=kind, title=title, body=body, scope=scope, tags=tags)).entry.id
    return ids


@pytest.mark.parametrize(("query", "expected"), GOLD_QUERIES)
def test_gold_set_top_hit(store: MemoryStore, gold: dict[str, str], query: str, expected: str) -> None:
    result = store.find(query)
    assert result.engine == "duckdb"
    assert result.hits and result.hits[0][0].id == gold[expected], [e.title for e, _ in result.hits]


def test_scan_fallback_ranks_exactly_like_duckdb(store: MemoryStore, gold: dict[str, str]) -> None:
    for query, _ in GOLD_QUERIES:
        sql = [(e.id, round(s, 9)) for e, s in store.find(query).hits]
        scanned = [(e.id, round(s, 9)) for e, s in store._scan(query, Filters(), 10)]
        assert sql == scanned


def test_filters_kind_scope_status_time(store: MemoryStore, gold: dict[str, str]) -> None:
    assert [e.id for e, _ in store.find("worker", Filters(kinds=("lesson",))).hits] == [gold["race"]]
    scoped = store.find("tests", Filters(scope_path="api/orders/views.py")).hits
    assert [e.id for e, _ in scoped] == [gold["migrate"]]  # worker/** entries do not apply to api/
    later = datetime(2100, 1, 1, tzinfo=UTC)
    assert store.find("worker", Filters(since=later)).hits == []
    store.forget(gold["race"], "obsolete")
    assert gold["race"] not in [e.id for e, _ in store.find("race").hits]
    assert gold["race"] in [e.id for e, _ in store.find("race", Filters(statuses=None)).hits]


def test_index_is_rebuilt_when_a_file_changes(store: MemoryStore, gold: dict[str, str]) -> None:
    assert store.find("webhook").hits
    path = store.path_of(gold["cart"])
    assert path is not None
    time.sleep(0.01)
    path.write_text(path.read_text().replace("sums line items", "sums line items and webhook fees"))
    hits = [e.id for e, _ in MemoryStore(store.root).find("webhook fees").hits]
    assert hits[0] == gold["cart"]


def test_a_corrupt_index_falls_back_to_scanning(store: MemoryStore, gold: dict[str, str]) -> None:
    store.find("money")  # builds the index
    store.index.path.write_bytes(b"this is not a duckdb file" * 100)
    # Another writer holds the rebuild lock, so this reader cannot repair it now: it must still answer.
    holder = _hold_lock(store.index_dir / "memory.lock")
    try:
        result = MemoryStore(store.root).find("float rounding money")
    finally:
        holder.kill()
        holder.wait()
    assert result.engine == "scan" and result.hits[0][0].id == gold["decimal"]
    assert result.note
    repaired = MemoryStore(store.root).find("float rounding money")  # lock free again: rebuilt
    assert repaired.engine == "duckdb" and repaired.hits[0][0].id == gold["decimal"]


def test_a_reader_while_another_process_holds_the_duckdb_file(store: MemoryStore, gold: dict[str, str]) -> None:
    store.find("money")
    script = (
        "import duckdb, sys, time\n"
        f"con = duckdb.connect({str(store.index.path)!r})\n"  # a writer: DuckDB locks the file
        "print('open', flush=True)\n"
        "time.sleep(60)\n"
    )
    writer = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    try:
        assert writer.stdout is not None and writer.stdout.readline().strip() == b"open"
        result = MemoryStore(store.root).find("webhook backoff")
    finally:
        writer.kill()
        writer.wait()
    assert result.hits[0][0].id == gold["retry"]
    # The reader could not open the held file, so it built a fresh one and swapped it in (os.replace):
    # the foreign writer keeps its old inode, and nobody waited on anybody.
    assert result.engine == "duckdb"


@pytest.mark.slow
def test_parallel_rebuilds_and_searches(store: MemoryStore, gold: dict[str, str]) -> None:
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from ctxops_memory_store.store import MemoryStore\n"
        "root = Path(sys.argv[1])\n"
        "for i in range(5):\n"
        "    s = MemoryStore(root)\n"
        "    s.rebuild_index(lock_timeout=5)\n"
        "    hits = s.find('webhook backoff').hits\n"
        "    assert hits and hits[0][0].title.startswith('Webhook'), hits\n"
        "print('ok')\n"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(store.root)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for _ in range(4)
    ]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1].decode()[-500:] for o in outputs]


def _hold_lock(path: Path) -> subprocess.Popen[bytes]:
    script = (
        "import fcntl, os, time, sys\n"
        f"fd = os.open({str(path)!r}, os.O_RDWR | os.O_CREAT)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\n"
        "print('locked', flush=True)\n"
        "time.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.readline().strip() == b"locked"
    return proc
