"""BM25 on a small gold set, filters, the catalog's freshness, and the derived DuckDB index beside it."""

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
    assert result.engine == "catalog"
    assert result.hits and result.hits[0][0].id == gold[expected], [e.title for e, _ in result.hits]


def test_catalog_ranks_exactly_like_the_duckdb_sql(store: MemoryStore, gold: dict[str, str]) -> None:
    assert store.rebuild_index()
    for query, _ in GOLD_QUERIES:
        catalog = [(e.id, round(s, 9)) for e, s in store.find(query).hits]
        sql = store.index.search(query, Filters(), 10)
        assert sql is not None and catalog == [(i, round(s, 9)) for i, s in sql]


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


def test_an_edit_in_place_is_seen_by_a_fresh_store(store: MemoryStore, gold: dict[str, str]) -> None:
    path = store.path_of(gold["cart"])
    assert path is not None
    inode = path.stat().st_ino
    with path.open("r+", encoding="utf-8") as fh:  # an editor that rewrites the file in place
        text = fh.read().replace("sums line items", "sums line items and shipping surcharges")
        fh.seek(0)
        fh.write(text)
    assert path.stat().st_ino == inode
    assert MemoryStore(store.root).find("shipping surcharges").hits[0][0].id == gold["cart"]


def test_a_corrupt_duckdb_index_does_not_affect_search_and_rebuild_repairs_it(
    store: MemoryStore, gold: dict[str, str]
) -> None:
    assert store.rebuild_index()
    store.index.path.write_bytes(b"this is not a duckdb file" * 100)
    result = MemoryStore(store.root).find("float rounding money")
    assert result.engine == "catalog" and result.hits[0][0].id == gold["decimal"]
    assert store.index.search("money", Filters(), 5) is None  # the damaged file cannot answer
    assert MemoryStore(store.root).rebuild_index()
    repaired = store.index.search("float rounding money", Filters(), 5)
    assert repaired is not None and repaired[0][0] == gold["decimal"]


def test_a_rebuild_while_another_process_holds_the_duckdb_file(store: MemoryStore, gold: dict[str, str]) -> None:
    assert store.rebuild_index()
    script = (
        "import duckdb, sys, time\n"
        f"con = duckdb.connect({str(store.index.path)!r})\n"  # a writer: DuckDB locks the file
        "print('open', flush=True)\n"
        "time.sleep(60)\n"
    )
    writer = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    try:
        assert writer.stdout is not None and writer.stdout.readline().strip() == b"open"
        store.put(new_entry(kind="fact", title="Webhook signatures use HMAC-SHA256"))
        fresh = MemoryStore(store.root)
        result = fresh.find("webhook backoff")
        # The held file cannot be opened, so the rebuild writes a fresh one and swaps it in (os.replace):
        # the foreign writer keeps its old inode, and nobody waits on anybody.
        rebuilt = fresh.rebuild_index(lock_timeout=5)
    finally:
        writer.kill()
        writer.wait()
    assert result.hits[0][0].id == gold["retry"] and rebuilt


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


@pytest.mark.parametrize(
    "words",
    [
        ["queue", "queues", "queued", "queueing"],
        ["image", "images"],
        ["retry", "retries", "retried"],
        ["device", "devices"],
        ["box", "boxes"],
        ["ship", "shipped", "shipping"],
        ["status", "statuses"],
        ["agree", "agreed"],
    ],
)
def test_word_forms_share_one_term(words: list[str]) -> None:
    from ctxops_memory_store.terms import tokens

    assert len({tokens(w)[0] for w in words}) == 1, {w: tokens(w) for w in words}


def test_different_words_stay_apart() -> None:
    from ctxops_memory_store.terms import tokens

    assert len({tokens(w)[0] for w in ["class", "glass", "pass", "redis", "bus", "code", "tree"]}) == 7


def test_a_catalog_of_the_previous_format_is_rebuilt(repo: Path) -> None:
    """Format 2 stored the old stemmer's terms ("queued" -> queu, "queue" -> queue): a reader of this
    version must not trust them, or "queue" would never find "queued"."""
    import msgspec
    from ctxops_memory_store import catalog as catalog_module

    store = MemoryStore(repo)
    jobs = store.put(new_entry(kind="decision", title="Background jobs are queued in Postgres")).entry
    store.save_catalog()
    path = repo / ".meta" / "index" / catalog_module.CATALOG_NAME
    data = msgspec.msgpack.decode(path.read_bytes())
    assert data["format"] == catalog_module.FORMAT != 2
    for record in data["records"]:  # what the previous version stored for this entry
        record["terms"] = {"background": 2.0, "job": 2.0, "queu": 2.0, "postgr": 2.0}
    data["format"] = 2
    path.write_bytes(msgspec.msgpack.encode(data))
    assert [e.id for e in MemoryStore(repo).search("which queue do jobs use")] == [jobs.id]
