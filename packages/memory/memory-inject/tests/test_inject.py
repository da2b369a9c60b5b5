"""Layers, the hard budget, ranking factors, conflicts and the records of what was injected."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from ctxops_memory_inject.build import FRAME_CLOSE, FRAME_OPEN, HEADER, build_injection
from ctxops_memory_inject.ranking import paths_in
from ctxops_memory_inject.tokens import count
from ctxops_memory_store import MemoryStore, new_entry


def _fill(repo: Path) -> dict[str, str]:
    store = MemoryStore(repo)
    ids = {}
    ids["pin"] = store.put(
        new_entry(kind="decision", title="Money is decimal.Decimal", pinned=True, scope=["api/**"])
    ).entry.id
    ids["conv"] = store.put(
        new_entry(kind="convention", title="提交信息使用约定式提交格式", body="feat: / fix: 前缀")
    ).entry.id
    ids["mig"] = store.put(
        new_entry(kind="lesson", title="Run migrations before API tests", body="no such table")
    ).entry.id
    ids["race"] = store.put(new_entry(kind="lesson", title="Run go tests with -race", scope=["worker/**"])).entry.id
    ids["web"] = store.put(
        new_entry(kind="fact", title="Retries use exponential backoff", body="worker/retry.go", scope=["worker/**"])
    ).entry.id
    return ids


def test_three_layers_index_first(repo: Path) -> None:
    ids = _fill(repo)
    store = MemoryStore(repo)
    digest = store.put(
        new_entry(
            kind="summary",
            title="Session abc: fix API tests",
            body="Goal: fix API tests",
            tags=["digest", "session:abc"],
        )
    ).entry
    injection = build_injection(repo, "the API tests fail with no such table", session_id="other")
    lines = injection.text.splitlines()
    assert lines[:2] == [FRAME_OPEN, HEADER] and lines[-1] == FRAME_CLOSE
    assert injection.layers["constants"][:1] == [ids["pin"]] and ids["conv"] in injection.layers["constants"]
    task = injection.layers["task"]
    # The best match first; a weak one (another scope, one shared word) may fill the budget, never ahead of it.
    assert task[0] == ids["mig"] and (ids["race"] not in task or task.index(ids["race"]) > 0)
    assert injection.layers["digest"] == [digest.id]
    created = store.resolve(ids["mig"]).created_at.date().isoformat()
    # The whole memory, title and body, with its date (issue 23): not the title alone.
    assert f"- {ids['mig'][-8:]} lesson: Run migrations before API tests — no such table ({created})" in lines
    # The session's own digest is never given back to it.
    own = build_injection(repo, "API tests", session_id="abc")
    assert "digest" not in own.layers


def test_the_budget_is_never_exceeded_and_the_rest_is_counted(repo: Path) -> None:
    store = MemoryStore(repo)
    for n in range(60):
        store.put(new_entry(kind="constraint", title=f"Service {n} must answer within {n + 10} ms on the {n}th route"))
    for budget in (110, 150, 400):
        injection = build_injection(repo, "service route latency", budget=budget)
        assert injection.tokens == count(injection.text) and injection.tokens <= budget
        assert injection.omitted > 0 and f"{injection.omitted} more memories did not fit" in injection.text
    assert build_injection(repo, "", budget=100000).omitted == 0


def test_files_in_play_boost_and_paths_in_the_prompt(repo: Path) -> None:
    store = MemoryStore(repo)
    api = store.put(new_entry(kind="lesson", title="Retry flaky network calls", scope=["api/**"])).entry
    worker = store.put(new_entry(kind="lesson", title="Retry failed network jobs", scope=["worker/**"])).entry
    first = build_injection(repo, "retry network", files_in_play=["worker/queue.go"])
    assert first.layers["task"][0] == worker.id
    second = build_injection(repo, "retry network in api/client.py")
    assert second.layers["task"][0] == api.id
    assert paths_in("see api/client.py and README.md, not v1.2") == ["api/client.py", "README.md"]


def test_recency_and_conflicts(repo: Path) -> None:
    store = MemoryStore(repo)
    old = datetime.now(UTC) - timedelta(days=400)
    aged = store.put(new_entry(kind="lesson", title="Cache invalidation on deploy", now=old), now=old).entry
    fresh = store.put(new_entry(kind="lesson", title="Cache warmup after deploy")).entry
    ranked = build_injection(repo, "cache deploy")
    assert ranked.layers["task"][:2] == [fresh.id, aged.id]
    jwt = store.put(new_entry(kind="decision", title="Use JWT for auth sessions")).entry
    opaque = store.put(new_entry(kind="decision", title="Switch auth sessions to opaque tokens")).entry
    text = build_injection(repo, "auth token format").text
    assert opaque.id[-8:] in text and jwt.id[-8:] not in text  # superseded at write time: never injected


def test_an_empty_store_injects_nothing(repo: Path) -> None:
    injection = build_injection(repo, "anything")
    assert injection.text == "" and injection.memory_ids == []


def test_records_and_usage(repo: Path, data_dir: Path) -> None:
    from ctxops_memory_inject.build import record_injection
    from ctxops_memory_store.usage import read_usage

    ids = _fill(repo)
    injection = build_injection(repo, "migrations", session_id="s1", agent="claude-code")
    record_injection(repo, injection, agent="claude-code", session_id="s1", hook="UserPromptSubmit")
    files = list((data_dir / "context").glob("context-*.jsonl"))
    assert len(files) == 1
    record = json.loads(files[0].read_text().splitlines()[0])
    assert record["action"] == "inject" and record["memory_ids"] == injection.memory_ids
    assert record["tokens"] == injection.tokens and record["session_id"] == "s1"
    assert read_usage(repo)[ids["mig"]][0] == 1


def test_vectors_find_what_bm25_misses(repo: Path) -> None:
    pytest.importorskip("lancedb")
    (repo / ".meta").mkdir(exist_ok=True)
    (repo / ".meta" / "config.toml").write_text('[memory.vector]\nenabled = true\nembedder = "hashing"\n')
    store = MemoryStore(repo)
    entry = store.put(new_entry(kind="lesson", title="Exponential backoff for webhook retries")).entry
    store.put(new_entry(kind="lesson", title="Cache invalidation after deploys"))
    assert store.rebuild_index()
    query = "exponentail bakoff webhok"  # misspelt: no BM25 term in common, many character trigrams
    assert "task" not in build_injection(repo, query).layers
    with_vectors = build_injection(repo, query, vectors=True)
    assert with_vectors.layers["task"][0] == entry.id


def test_a_lexical_embedder_adds_the_best_hits_neighbours(repo: Path) -> None:
    pytest.importorskip("lancedb")
    (repo / ".meta").mkdir(exist_ok=True)
    (repo / ".meta" / "config.toml").write_text('[memory.vector]\nenabled = true\nembedder = "hashing"\n')
    store = MemoryStore(repo)
    en = store.put(
        new_entry(kind="lesson", title="Money is Decimal", body="price_cents via decimal.Decimal, never float")
    )
    zh = store.put(
        new_entry(kind="lesson", title="金额用 Decimal", body="price_cents 用 decimal.Decimal，不要用 float")
    )
    store.put(new_entry(kind="lesson", title="Cache invalidation after deploys", body="Purge the CDN."))
    assert store.rebuild_index()
    query = "rounding money"
    assert build_injection(repo, query).layers["task"] == [en.entry.id]
    assert build_injection(repo, query, vectors=True).layers["task"] == [en.entry.id, zh.entry.id]


def test_context_records_decode_strictly_as_the_contract(repo: Path, data_dir: Path) -> None:
    from ctxops_contracts import ContextRecord, decode
    from ctxops_memory_inject.records import record_context

    written = record_context("recall", memory_ids=["A", "B"], tokens=12, repo=str(repo), agent="nobody")
    assert written is not None
    (path,) = (data_dir / "context").glob("context-*.jsonl")
    record = decode(ContextRecord, path.read_bytes().splitlines()[0])
    assert record.action == "recall" and record.memory_ids == ["A", "B"] and record.tokens == 12
    assert record.agent is None and list(written) == list(ContextRecord.__struct_fields__)


def test_constants_never_put_a_stale_decision_above_the_newer_one(repo: Path) -> None:
    store = MemoryStore(repo)
    day1, day2 = datetime.now(UTC) - timedelta(days=2), datetime.now(UTC) - timedelta(days=1)

    def put(kind: str, title: str, when: datetime) -> str:
        return store.put(new_entry(kind=kind, title=title, body="", now=when), now=when).entry.id

    # Written newest first, as files arrive in a merge: the write-time check never compared them this way round.
    rest = put("decision", "Drop GraphQL in favour of REST", day2)
    graphql = put("decision", "Expose the API through GraphQL", day1)
    key = put("convention", "Release builds are signed with a hardware key", day2)
    runner = put("convention", "Release builds are signed on the CI runner", day1)
    constants = build_injection(repo, "graphql api for release builds signed on the CI runner").layers["constants"]
    assert rest in constants and graphql not in constants  # replaced: left out like a superseded entry
    assert constants.index(key) < constants.index(runner)  # both stay, the newer first


def test_a_copied_memory_file_is_injected_once(repo: Path) -> None:
    entry = MemoryStore(repo).put(new_entry(kind="constraint", title="Payments answer within 200 ms")).entry
    path = MemoryStore(repo).path_of(entry.id)
    assert path is not None
    (path.parent / ("copy-" + path.name)).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    for prompt in ("payments answer within 200 ms", ""):
        injection = build_injection(repo, prompt, budget=2000)
        assert injection.memory_ids.count(entry.id) == 1
        assert injection.text.count("Payments answer within 200 ms") == 1
