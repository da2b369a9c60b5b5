"""The write path: exact dedupe, near-duplicate folding, pins, supersede, forget, review."""

from __future__ import annotations

import pytest
from ctxops_memory_store.store import InvalidTransition, MemoryStore, new_entry

BODY = "Amounts in the order API are decimal.Decimal with two places, never float, to avoid rounding errors."


def test_exact_duplicate_returns_the_existing_entry(store: MemoryStore) -> None:
    first = store.put(new_entry(kind="decision", title="Money is Decimal", body=BODY)).entry
    again = store.put(new_entry(kind="decision", title="money is  DECIMAL", body=BODY + "  "))
    assert again.action == "duplicate" and again.entry.id == first.id
    assert len(list(store.memory_dir.glob("*.md"))) == 1


def test_near_duplicates_fold_into_the_newest(store: MemoryStore) -> None:
    old = store.put(new_entry(kind="decision", title="Money is Decimal", body=BODY)).entry
    newer = store.put(
        new_entry(kind="decision", title="Money is Decimal", body=BODY.replace("two places", "two decimal places"))
    )
    assert newer.action == "added" and newer.folded == [old.id]
    assert newer.entry.history == [old.id]
    folded = store.resolve(old.id)
    assert folded.status == "folded" and folded.folded_into == newer.entry.id and folded.valid_until is not None
    assert [e.id for e in store.search("decimal money")] == [newer.entry.id]  # folded entries are not shown
    third = store.put(new_entry(kind="decision", title="Money is Decimal", body=BODY + " Always."))
    assert third.entry.history == [newer.entry.id, old.id]  # history carries over


def test_pinned_entries_never_fold(store: MemoryStore) -> None:
    pinned = store.put(new_entry(kind="decision", title="Money is Decimal", body=BODY, pinned=True)).entry
    newer = store.put(new_entry(kind="decision", title="Money is Decimal", body=BODY + " Really."))
    assert newer.folded == [] and newer.pinned_near_duplicates == [pinned.id]
    assert store.resolve(pinned.id).status == "active"


def test_same_subject_and_scope_supersedes(store: MemoryStore) -> None:
    old = store.put(
        new_entry(kind="decision", title="Money representation", body=BODY, scope=["api/**"], pinned=True)
    ).entry
    other_scope = store.put(
        new_entry(kind="decision", title="Money representation", body="Cents in the worker.", scope=["worker/**"])
    ).entry
    newer = store.put(
        new_entry(
            kind="decision",
            title="Money representation",
            body="Integer cents everywhere; Decimal was too slow for batch refunds.",
            scope=["api/**"],
        )
    )
    assert newer.superseded == [old.id]
    replaced = store.resolve(old.id)
    assert replaced.status == "superseded" and replaced.superseded_by == newer.entry.id
    assert replaced.valid_until is not None and newer.entry.valid_from is not None
    assert newer.entry.pinned  # the pin stays with the subject
    assert store.resolve(other_scope.id).status == "active"  # another scope is another subject


def test_explicit_supersede_with_a_new_entry(store: MemoryStore) -> None:
    old = store.put(new_entry(kind="convention", title="Tests live in tests/", body="One file per module.")).entry
    result = store.supersede(
        old.id, new_entry(kind="convention", title="Tests live next to code", body="test_x.py beside x.py.")
    )
    assert result.superseded == [old.id]
    assert store.resolve(old.id).superseded_by == result.entry.id


def test_forget_archives_with_a_reason_and_never_deletes(store: MemoryStore) -> None:
    entry = store.put(new_entry(kind="fact", title="Staging is at staging.example.com")).entry
    path = store.path_of(entry.id)
    forgotten = store.forget(entry.id[-6:], "staging was retired")
    assert forgotten.status == "archived" and forgotten.archive_reason == "staging was retired"
    assert path is not None and path.exists()
    assert store.search("staging") == []
    with pytest.raises(InvalidTransition):
        store.forget(entry.id, "  ")


def test_review_accepts_and_rejects_candidates(store: MemoryStore) -> None:
    a = store.put(new_entry(kind="lesson", title="Run migrations before tests", status="pending")).entry
    b = store.put(new_entry(kind="lesson", title="Restart the worker after config edits", status="pending")).entry
    assert store.search("migrations") == []  # candidates are not served until accepted
    accepted = store.accept(a.id)
    assert accepted.entry.status == "active" and store.search("migrations")[0].id == a.id
    rejected = store.reject(b.id, "not true anymore")
    assert rejected.status == "rejected" and rejected.archive_reason == "not true anymore"
    with pytest.raises(InvalidTransition):
        store.accept(a.id)
    # A rejected candidate is not proposed again.
    again = store.put(new_entry(kind="lesson", title="Restart the worker after config edits", status="pending"))
    assert again.action == "duplicate" and again.entry.status == "rejected"


def test_auto_accept(repo) -> None:
    from ctxops_memory_store.config import MemoryConfig

    store = MemoryStore(repo, MemoryConfig(auto_accept=True))
    entry = store.put(new_entry(kind="lesson", title="x y z", status="pending")).entry
    assert entry.status == "active"


def test_ids_resolve_by_prefix_or_suffix(store: MemoryStore) -> None:
    from ctxops_memory_store.store import EntryNotFound

    entry = store.put(new_entry(kind="fact", title="a fact")).entry
    assert store.resolve(entry.id[-8:].lower()).id == entry.id
    with pytest.raises(EntryNotFound, match="no memory entry"):
        store.resolve("ZZZZZZZZ")
