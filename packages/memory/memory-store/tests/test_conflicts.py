"""Conflicts without cue words: the same subject frame with another value replaces; complementary facts do not."""

from __future__ import annotations

import pytest
from ctxops_memory_store.conflicts import likely_conflict
from ctxops_memory_store.store import InvalidTransition, MemoryStore, new_entry

# (older title, newer title): recorded from the quality gold sets and from real project memories.
REPLACEMENTS = [
    ("Logs are plain text lines", "Logs are structured JSON"),
    ("Store timestamps in local time", "Store timestamps in UTC"),
    ("List endpoints use offset pagination", "List endpoints use cursor pagination"),
    ("Python is formatted with black", "Python is formatted with ruff format"),
    ("Speeds are stored in km/h", "Speeds are stored in metres per second"),
    ("Map tiles come from Mapbox", "Map tiles come from our own tile server"),
    ("Logs are shipped to Elasticsearch", "Logs are shipped to Loki"),
    ("日志使用纯文本", "日志使用结构化 JSON"),
    ("默认时区是柏林时间", "默认时区是 UTC"),
    # Session 4: the value counted in content words ("next to the code they test" is three of them).
    ("Tests live in the tests/ folder", "Tests live next to the code they test"),
]

# Pairs that must both stay: complementary facts, other subjects, refinements, translations.
COMPLEMENTARY = [
    ("Logs are structured JSON", "Logs are shipped to Loki"),
    ("Logs are shipped to Loki", "Logs are kept for 30 days"),
    ("Service A must answer within 100 ms", "Service B must answer within 200 ms"),
    ("Logs are JSON", "Logs are structured JSON"),  # a refinement: folding's business, not a replacement
    ("Logs are structured JSON", "日志使用结构化 JSON"),
    ("Store timestamps in UTC", "Store prices in cents"),
    ("Tests use pytest", "Tests use pytest fixtures for the database"),
    ("Commit messages follow Conventional Commits", "Commit messages are written in English"),
    ("Deploys need a green CI run and a reviewer", "Deploys are announced in the release channel"),
    ("Floats are fine for sensor readings", "Never use float for money"),  # a prohibition drops nothing
]


@pytest.mark.parametrize(("old", "new"), REPLACEMENTS)
def test_same_frame_other_value_is_a_conflict(old: str, new: str) -> None:
    assert likely_conflict(new, "", old, "")
    assert likely_conflict(old, "", new, "")  # the shape is symmetric; which one is newer decides the outcome


@pytest.mark.parametrize(("old", "new"), COMPLEMENTARY)
def test_complementary_facts_are_not_conflicts(old: str, new: str) -> None:
    assert not likely_conflict(new, "", old, "")
    assert not likely_conflict(old, "", new, "")


def test_a_cue_less_replacement_supersedes_at_write_time(store: MemoryStore) -> None:
    plain = store.put(new_entry(kind="convention", title="Logs are plain text lines", body="Human readable.")).entry
    loki = store.put(new_entry(kind="convention", title="Logs are shipped to Loki", body="Through promtail.")).entry
    json_logs = store.put(
        new_entry(kind="convention", title="Logs are structured JSON", body="One JSON object per line.")
    )
    assert json_logs.conflicts == [plain.id] and json_logs.superseded == [plain.id]
    assert store.resolve(plain.id).status == "superseded" and store.resolve(loki.id).status == "active"
    other_scope = store.put(new_entry(kind="convention", title="Logs are plain text lines", scope=["tools/"]))
    assert other_scope.conflicts == []  # another part of the code: both stay


def test_a_cue_less_replacement_is_queued_under_the_review_policy(repo) -> None:
    from ctxops_memory_store.config import MemoryConfig

    store = MemoryStore(repo, MemoryConfig(on_conflict="review"))
    old = store.put(new_entry(kind="decision", title="Store timestamps in local time")).entry
    queued = store.put(new_entry(kind="decision", title="Store timestamps in UTC"))
    assert queued.action == "queued" and f"conflicts-with:{old.id}" in queued.entry.tags
    assert store.resolve(old.id).status == "active"
    assert store.accept(queued.entry.id).superseded == [old.id]


def test_a_chinese_cue_less_replacement_supersedes(store: MemoryStore) -> None:
    plain = store.put(new_entry(kind="convention", title="日志使用纯文本", body="人可读的文本日志。")).entry
    newer = store.put(new_entry(kind="convention", title="日志使用结构化 JSON", body="每行一个 JSON 对象。"))
    assert newer.superseded == [plain.id]
    english = store.put(new_entry(kind="convention", title="Logs are structured JSON", body="One object per line."))
    assert english.conflicts == []  # the same rule in the other language stays beside it


# (older title, newer title, newer body): the newer text names a term of the older title as what it drops.
DROPS = [
    ("Expose the API through GraphQL", "Drop GraphQL in favour of REST", "The GraphQL gateway is removed."),
    ("Money amounts are float", "Switch money amounts to Decimal", "Two places instead of float."),
    ("Jobs are queued in Redis", "Jobs are rows in Postgres", "We stopped using Redis for the queue."),
    ("CI 使用 Jenkins", "CI 迁到 GitHub Actions", "弃用 Jenkins，流水线写在 workflow 文件里。"),
]


@pytest.mark.parametrize(("old", "new", "body"), DROPS)
def test_naming_what_it_drops_is_a_conflict(old: str, new: str, body: str) -> None:
    assert likely_conflict(new, body, old, "")
    assert not likely_conflict(old, "", new, body)  # the older text drops nothing


def test_what_is_dropped_must_be_in_the_older_title() -> None:
    assert not likely_conflict("Drop GraphQL in favour of REST", "", "Clients cache responses for 60 s", "")
    assert not likely_conflict("Use httpx", "It was replaced by httpx.", "The HTTP client is requests", "")


def test_the_graphql_pair_supersedes_at_write_time(store: MemoryStore) -> None:
    old = store.put(new_entry(kind="decision", title="Expose the API through GraphQL", body="A gateway.")).entry
    other = store.put(new_entry(kind="decision", title="Clients cache responses for 60 s")).entry
    newer = store.put(
        new_entry(kind="decision", title="Drop GraphQL in favour of REST", body="Clients use the REST endpoints.")
    )
    assert newer.superseded == [old.id]
    assert store.resolve(other.id).status == "active"


def test_features_are_immutable_values() -> None:
    """A plain class now (no dataclasses on the inject hook's path), still frozen and compared by value."""
    from ctxops_memory_store.conflicts import features

    first, again = features("Use Postgres", "instead of MySQL"), features("Use Postgres", "instead of MySQL")
    assert first == again and hash(first) == hash(again)
    assert first != features("Use SQLite", "for tests")
    assert first.head == ("use", "postgres") and "mysql" in first.dropped
    assert repr(first).startswith("Features(title_terms=")
    with pytest.raises(AttributeError):
        first.cue = False  # type: ignore[misc]


# (older title, newer title): the same subject, another statement; no cue, no frame: worth a review.
POSSIBLE = [
    ("API tokens never expire", "API tokens expire after 90 days"),
    ("Nightly backups go to tape", "Nightly backups are uploaded to B2"),
    ("Feature flags live in LaunchDarkly", "Feature flags are read from Unleash"),
    ("Release builds are signed on the CI runner", "Release builds are signed with a hardware key"),
    ("接口令牌永不过期", "接口令牌 90 天后过期"),
]
# Neither certain nor possible: other subjects, a refinement, a translation.
UNRELATED = [
    ("Logs are structured JSON", "Logs are shipped to Loki"),
    ("Logs are shipped to Loki", "Logs are kept for 30 days"),
    ("Tests use pytest", "Tests use pytest fixtures for the database"),
    ("API tokens never expire", "接口令牌永不过期"),
    ("Never use float for money", "Never use sleep in tests"),
    ("Store timestamps in UTC", "Store prices in cents"),
]


@pytest.mark.parametrize(("old", "new"), POSSIBLE)
def test_the_same_subject_is_a_possible_conflict_not_a_certain_one(old: str, new: str) -> None:
    from ctxops_memory_store.conflicts import features, possible_conflict

    assert possible_conflict(features(new, ""), features(old, ""))
    assert not likely_conflict(new, "", old, "")  # too little to supersede on


@pytest.mark.parametrize(("old", "new"), UNRELATED)
def test_other_subjects_refinements_and_translations_are_not_possible_conflicts(old: str, new: str) -> None:
    from ctxops_memory_store.conflicts import features, possible_conflict

    assert not possible_conflict(features(new, ""), features(old, ""))


def test_a_cue_about_the_same_subject_supersedes() -> None:
    old = "API tokens never expire"
    assert likely_conflict("API tokens expire after 90 days", "They no longer live forever.", old, "")


def test_a_possible_replacement_is_queued_and_both_stay(store: MemoryStore) -> None:
    old = store.put(new_entry(kind="decision", title="API tokens never expire", body="Revoked by hand.")).entry
    other = store.put(new_entry(kind="decision", title="Logs are shipped to Loki")).entry
    newer = store.put(new_entry(kind="decision", title="API tokens expire after 90 days", body="Rotated by CI."))
    assert newer.review == [old.id] and newer.superseded == [] and newer.conflicts == []
    assert f"may-replace:{old.id}" in newer.entry.tags
    assert store.resolve(old.id).status == "active" and store.resolve(other.id).status == "active"
    # The tag is a pointer, not words: it does not make the entry a hit for "replace" or "may".
    assert store.search("may replace") == []


def test_review_accepts_a_possible_replacement_or_keeps_both(store: MemoryStore) -> None:
    old = store.put(new_entry(kind="decision", title="API tokens never expire", pinned=True)).entry
    newer = store.put(new_entry(kind="decision", title="API tokens expire after 90 days")).entry
    accepted = store.accept(newer.id)
    assert accepted.superseded == [old.id] and accepted.entry.pinned  # the pin moves to the newer entry
    assert store.resolve(old.id).status == "superseded" and store.resolve(old.id).superseded_by == newer.id
    assert not any(t.startswith("may-replace:") for t in store.resolve(newer.id).tags)
    backups = store.put(new_entry(kind="decision", title="Nightly backups go to tape")).entry
    b2 = store.put(new_entry(kind="decision", title="Nightly backups are uploaded to B2")).entry
    kept = store.reject(b2.id)
    assert kept.status == "active" and kept.tags == [] and store.resolve(backups.id).status == "active"
    with pytest.raises(InvalidTransition):
        store.reject(b2.id)  # off the queue: nothing left to review


def test_review_lists_possible_replacements(repo) -> None:
    import json
    import subprocess
    import sys

    store = MemoryStore(repo)
    old = store.put(new_entry(kind="decision", title="API tokens never expire")).entry
    newer = store.put(new_entry(kind="decision", title="API tokens expire after 90 days")).entry

    def ctx(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "ctxops_memory_store", "--root", str(repo), *args]
        return subprocess.run(command, capture_output=True, text=True, check=False)

    listed = ctx("review", "--no-harvest")
    assert listed.returncode == 0 and f"may replace {old.id[-8:]}" in listed.stdout
    data = json.loads(ctx("--json", "review", "--no-harvest").stdout)
    assert data["possible_replacements"][0]["may_replace"] == [old.id]
    assert data["possible_replacements"][0]["entry"]["id"] == newer.id
    done = ctx("review", "--accept", newer.id)
    assert done.returncode == 0 and f"superseded {old.id[-8:]}" in done.stdout
    assert "possible replacements" not in ctx("review", "--no-harvest").stdout
    backups = store.put(new_entry(kind="decision", title="Nightly backups go to tape")).entry
    b2 = store.put(new_entry(kind="decision", title="Nightly backups are uploaded to B2")).entry
    kept = ctx("review", "--reject", b2.id)
    assert kept.returncode == 0 and "kept both" in kept.stdout
    assert MemoryStore(repo).resolve(backups.id).status == "active"


def test_a_possible_replacement_names_at_most_three_entries(store: MemoryStore) -> None:
    from ctxops_memory_store.store import MAX_REVIEW

    titles = [
        "Release builds are signed by Jenkins",
        "Release builds are reproducible",
        "Release builds run nightly",
        "Release builds take twenty minutes",
        "Release builds upload to S3",
        "Release builds are signed with a hardware key stored in the office safe",
    ]
    olds = [store.put(new_entry(kind="convention", title=t, body=f"Note {n}.")).entry.id for n, t in enumerate(titles)]
    newer = store.put(new_entry(kind="convention", title="Release builds are signed with a YubiKey", body="Tap it."))
    assert len(newer.review) == MAX_REVIEW == 3 and set(newer.review) <= set(olds)
    assert newer.review[0] == olds[0]  # the largest share of title words in common first ("signed by Jenkins")
    assert all(store.resolve(i).status == "active" for i in olds)
