"""The hook's SQLite read snapshot answers exactly as the catalog does, and steps aside when files change."""

from __future__ import annotations

from pathlib import Path

import pytest
from ctxops_memory_inject import build, snapshot
from ctxops_memory_inject.build import build_injection
from ctxops_memory_store import MemoryStore, new_entry


@pytest.fixture
def small_is_tiny(monkeypatch: pytest.MonkeyPatch) -> None:
    # The snapshot serves stores of more than SMALL files, past the racy window; shrink both for the test.
    monkeypatch.setattr(build, "SMALL", 2)
    monkeypatch.setattr(snapshot, "SMALL", 2)
    monkeypatch.setattr(snapshot, "RACY_NS", 0)


def _fill(repo: Path) -> MemoryStore:
    store = MemoryStore(repo)
    store.put(new_entry(kind="decision", title="Money is decimal.Decimal", pinned=True))
    store.put(new_entry(kind="convention", title="Logs are structured JSON", body="one object per line"))
    store.put(new_entry(kind="lesson", title="Run migrations before API tests", body="no such table otherwise"))
    store.put(new_entry(kind="lesson", title="Retry webhooks with backoff", scope=["worker/**"]))
    store.put(new_entry(kind="summary", title="Session abc: fix tests", body="Goal: fix tests", tags=["digest"]))
    return store


def test_the_snapshot_answers_like_the_catalog(
    repo: Path, small_is_tiny: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _fill(repo)
    store.save_catalog()
    queries = ["API tests fail with no such table", "webhook retries in worker/queue.go", "log format", ""]
    from_catalog = [build_injection(repo, q, budget=400) for q in queries]  # builds the snapshot
    assert (repo / ".meta" / "index" / snapshot.NAME).exists()

    def no_catalog(*args: object, **kwargs: object) -> object:
        raise AssertionError("the trusted snapshot should have answered")

    with monkeypatch.context() as patch:
        patch.setattr(build, "load_catalog", no_catalog)
        from_snapshot = [build_injection(repo, q, budget=400) for q in queries]
    assert [i.text for i in from_snapshot] == [i.text for i in from_catalog]
    assert [i.memory_ids for i in from_snapshot] == [i.memory_ids for i in from_catalog]

    # A write changes the directory: the snapshot steps aside, the catalog answers and updates it.
    added = MemoryStore(repo).put(new_entry(kind="lesson", title="Migrations need a fresh schema")).entry
    assert snapshot.open_trusted(str(repo / ".meta" / "index"), str(repo / ".meta" / "memory")) is None
    again = build_injection(repo, "migrations", budget=400)
    assert added.id in again.memory_ids
    with monkeypatch.context() as patch:
        patch.setattr(build, "load_catalog", no_catalog)
        assert added.id in build_injection(repo, "migrations", budget=400).memory_ids
