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


def test_a_near_duplicate_of_a_pinned_entry_folds_into_it(store: MemoryStore) -> None:
    pinned = store.put(new_entry(kind="decision", title="Money is Decimal", body=BODY, pinned=True)).entry
    newer = store.put(new_entry(kind="decision", title="Money is Decimal", body=BODY + " Really."))
    assert newer.action == "folded" and newer.pinned_near_duplicates == [pinned.id]
    assert newer.entry.status == "folded" and newer.entry.folded_into == pinned.id
    kept = store.resolve(pinned.id)
    assert kept.status == "active" and kept.pinned and kept.history == [newer.entry.id]
    assert [e.id for e in store.search("decimal money")] == [pinned.id]


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


def test_two_inserted_words_fold(store: MemoryStore) -> None:
    old = store.put(
        new_entry(kind="lesson", title="Restart the worker", body="Restart it after editing the config")
    ).entry
    newer = store.put(
        new_entry(kind="lesson", title="Restart the worker", body="Restart it right away after editing the config")
    )
    assert newer.folded == [old.id]


def test_chinese_near_duplicates_fold(store: MemoryStore) -> None:
    old = store.put(
        new_entry(kind="convention", title="提交信息格式", body="提交信息使用约定式提交格式，例如 feat: 新功能。")
    ).entry
    newer = store.put(
        new_entry(kind="convention", title="提交信息格式", body="提交信息统一使用约定式提交格式，例如 feat: 新功能。")
    )
    assert newer.folded == [old.id]
    other = store.put(new_entry(kind="convention", title="分支命名", body="分支名使用 feature/ 前缀加上工单号。"))
    assert other.folded == []


def test_a_likely_conflict_with_another_title_supersedes(store: MemoryStore) -> None:
    jwt = store.put(new_entry(kind="decision", title="Use JWT for auth sessions", body="Signed with RS256.")).entry
    opaque = store.put(
        new_entry(
            kind="decision",
            title="Switch auth sessions to opaque tokens",
            body="JWTs could not be revoked; sessions now use opaque tokens stored in Redis.",
        )
    )
    assert opaque.conflicts == [jwt.id] and opaque.superseded == [jwt.id]
    assert store.resolve(jwt.id).status == "superseded"
    assert [e.id for e in store.search("auth token format")] == [opaque.entry.id]
    unrelated = store.put(new_entry(kind="decision", title="Switch CI to GitHub Actions", body="Instead of Jenkins."))
    assert unrelated.conflicts == []


def test_conflicts_can_be_queued_for_review(repo) -> None:
    from ctxops_memory_store.config import MemoryConfig

    store = MemoryStore(repo, MemoryConfig(on_conflict="review"))
    jwt = store.put(new_entry(kind="decision", title="Use JWT for auth sessions")).entry
    queued = store.put(new_entry(kind="decision", title="Switch auth sessions to opaque tokens"))
    assert queued.action == "queued" and queued.entry.status == "pending"
    assert f"conflicts-with:{jwt.id}" in queued.entry.tags and store.resolve(jwt.id).status == "active"
    accepted = store.accept(queued.entry.id)
    assert accepted.superseded == [jwt.id] and not any(t.startswith("conflicts-with") for t in accepted.entry.tags)


def test_control_characters_in_a_title_round_trip(store: MemoryStore) -> None:
    entry = store.put(new_entry(kind="fact", title="a\x7fb \x01 c")).entry
    fresh = MemoryStore(store.root)
    assert fresh.errors == [] and fresh.resolve(entry.id).title == "a\x7fb \x01 c"


def test_every_write_path_redacts(store: MemoryStore) -> None:
    from ctxops_contracts import MemoryEntry
    from ctxops_memory_store.store import _with

    secret = "sk-proj-MEMSECRETq8Vd2LmXr4Tz9KpW"
    added = store.put(new_entry(kind="lesson", title=f"key {secret}", body=f"export OPENAI_API_KEY={secret}")).entry
    raw: MemoryEntry = _with(new_entry(kind="fact", title="plain"), title=f"built elsewhere {secret}")
    store.put(raw)
    rotated = store.supersede(added.id, _with(new_entry(kind="lesson", title="rotated"), body=f"old one was {secret}"))
    store.revise(rotated.entry.id, title="rotated again", body=f"the key was {secret}")
    store.forget(rotated.entry.id, f"leaked {secret}")
    candidate = store.put(new_entry(kind="lesson", title="candidate", body="maybe", status="pending")).entry
    store.reject(candidate.id, f"duplicate of the note with {secret}")
    files = list(store.memory_dir.glob("*.md"))
    assert len(files) == 4
    for path in files:
        assert secret not in path.read_text(), path


def test_supersede_keeps_a_pin_set_meanwhile(store: MemoryStore) -> None:
    old = store.put(new_entry(kind="convention", title="Tests live in tests/")).entry
    other = MemoryStore(store.root)
    store.load()  # this store read the entry unpinned ...
    other.pin(old.id)  # ... then another process pinned it
    result = store.supersede(old.id, new_entry(kind="convention", title="Tests live next to code"))
    assert result.entry.pinned  # the supersede read the entry under the lock and carried the pin over
