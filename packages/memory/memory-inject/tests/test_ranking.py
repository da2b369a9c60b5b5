"""Hybrid ranking across languages: BM25 cannot see an entry in the other language, so it gets no vote there."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from ctxops_memory_inject.ranking import RankConfig, language, rank
from ctxops_memory_store import MemoryStore, new_entry
from ctxops_memory_store.catalog import load_catalog


def test_language_of_a_text() -> None:
    assert language("Webhook deliveries retry with exponential backoff") == "latin"
    assert language("Webhook 失败按指数退避重试") == "cjk"
    assert language("和 auth 模块有关的教训") == "cjk"
    assert language("the 日志 format of our services") == "latin"


def _records(repo: Path) -> tuple[list[dict[str, object]], dict[str, str]]:
    store = MemoryStore(repo)
    ids = {
        "en": store.put(new_entry(kind="convention", title="Logs are structured JSON", body="One object per line.")),
        "zh": store.put(new_entry(kind="convention", title="日志使用结构化 JSON", body="每行输出一个 JSON 对象。")),
        "other": store.put(
            new_entry(kind="lesson", title="The nginx access log line format", body="Combined log format plus latency.")
        ),
    }
    store.save_catalog()
    records = load_catalog(str(store.memory_dir), str(store.index_dir)).readable()
    return records, {k: v.entry.id for k, v in ids.items()}


def test_a_multilingual_embedder_brings_the_other_language_up(repo: Path) -> None:
    records, ids = _records(repo)
    # Cosines as multilingual-e5 gives them (recorded): the Chinese translation is as close as the English entry.
    cosine = {ids["en"]: 0.88, ids["zh"]: 0.87, ids["other"]: 0.80}
    config = RankConfig(min_relative=0.0)
    mixed = [r.entry["id"] for r in rank(records, "log line format", vector_scores=cosine, config=config)]
    aware = [
        r.entry["id"]
        for r in rank(records, "log line format", vector_scores=cosine, config=config, cross_language=True)
    ]
    # The plain mix lets a same-language BM25 hit ("log") push the translation down; language-aware fusion does not.
    assert mixed.index(ids["zh"]) > mixed.index(ids["other"])
    assert aware[:2] == [ids["en"], ids["zh"]] or aware[:2] == [ids["zh"], ids["en"]]


def test_without_vectors_cross_language_changes_nothing(repo: Path) -> None:
    records, _ = _records(repo)
    plain = [r.entry["id"] for r in rank(records, "log line format")]
    aware = [r.entry["id"] for r in rank(records, "log line format", cross_language=True)]
    assert plain == aware and plain


def _shop(repo: Path) -> tuple[list[dict[str, object]], dict[str, str]]:
    store = MemoryStore(repo)
    ids = {
        "mailer": store.put(
            new_entry(kind="convention", title="Emails are sent by the mailer worker", body="Never inline.")
        ),
        "newsletter": store.put(
            new_entry(kind="preference", title="Marketing sends the newsletter on Tuesdays", body="At 10:00.")
        ),
        "stock": store.put(
            new_entry(kind="decision", title="Reserve stock inside the order transaction", body="Avoids overselling.")
        ),
    }
    store.save_catalog()
    records = load_catalog(str(store.memory_dir), str(store.index_dir)).readable()
    return records, {k: v.entry.id for k, v in ids.items()}


def test_a_lexical_embedder_never_lifts_an_entry_bm25_did_not_match(repo: Path) -> None:
    records, ids = _shop(repo)
    query = "stock transaction newsletter mail"
    # The hashing embedder's cosines (recorded shape): the mailer entry shares fragments ("mail") but no word.
    cosine = {ids["mailer"]: 0.45, ids["stock"]: 0.10, ids["newsletter"]: -0.02}
    config = RankConfig(min_relative=0.0)
    bm25_only = [r.entry["id"] for r in rank(records, query, config=config)]
    assert bm25_only == [ids["stock"], ids["newsletter"]]
    mixed = [r.entry["id"] for r in rank(records, query, vector_scores=cosine, config=config)]
    lexical = rank(records, query, vector_scores=cosine, config=config, lexical_vectors=True)
    # The plain mix lets the cosine alone outrank a weaker BM25 hit; with a lexical embedder BM25 leads and
    # the cosine only fills the list after its hits.
    assert mixed == [ids["stock"], ids["mailer"], ids["newsletter"]]
    assert [r.entry["id"] for r in lexical] == [ids["stock"], ids["newsletter"], ids["mailer"]]
    assert lexical[1].seen_by_bm25 and not lexical[2].seen_by_bm25


def test_a_lexical_embedders_prompt_cosine_no_longer_reorders_the_bm25_hits(repo: Path) -> None:
    records, ids = _shop(repo)
    query = "order stock newsletter"
    config = RankConfig(min_relative=0.0)
    plain = [r.entry["id"] for r in rank(records, query, config=config)]
    assert set(plain) == {ids["stock"], ids["newsletter"]}
    last = plain[-1]
    cosine = {ids["mailer"]: 0.0, ids["newsletter"]: 0.0, ids["stock"]: 0.0, last: 0.9}
    mixed = [r.entry["id"] for r in rank(records, query, vector_scores=cosine, config=config)]
    assert mixed == [last, plain[0]]  # the plain mix: the prompt's cosine (no IDF, fragments) reorders
    fused = [r.entry["id"] for r in rank(records, query, vector_scores=cosine, config=config, lexical_vectors=True)]
    assert fused == plain  # lexical: BM25's order; the mailer entry has no word and no cosine above the lowest


def _neighbours_of(records: list[dict[str, object]]) -> Callable[[dict[str, object]], dict[str, float]]:
    """Entry-to-entry cosines with the real hashing embedder, as build.py gets them from the vector table."""
    from ctxops_memory_store.vector import HashingEmbedder, record_text

    embedder = HashingEmbedder()
    active = [r["entry"] for r in records if isinstance(r["entry"], dict) and r["entry"].get("status") == "active"]
    vectors = dict(zip([str(e["id"]) for e in active], embedder.embed([record_text(e) for e in active]), strict=True))

    def neighbours(entry: dict[str, object]) -> dict[str, float]:
        mine = embedder.embed([record_text(entry)])[0]
        return {i: sum(a * b for a, b in zip(mine, v, strict=True)) for i, v in vectors.items()}

    return neighbours


def test_a_lexical_embedder_brings_up_the_neighbours_of_bm25s_best_hit(repo: Path) -> None:
    store = MemoryStore(repo)

    def put(kind: str, title: str, body: str) -> str:
        return store.put(new_entry(kind=kind, title=title, body=body)).entry.id

    en = put("lesson", "Retry failed webhook deliveries", "Celery retries webhook_dispatch with exponential backoff.")
    zh = put("lesson", "Webhook 投递失败要重试", "Celery 任务 webhook_dispatch 按指数退避重试。")
    for title, body in [
        ("Failed payments are refunded by hand", "Finance reviews each refund on Fridays."),
        ("Deliveries to customers ship from the Leeds warehouse", "Parcels leave at 16:00."),
        ("Use ruff for linting", "ruff check runs in CI before the tests."),
        ("Secrets live in Vault", "Never commit .env files."),
        ("Dates are stored in UTC", "Convert to local time at the edge."),
    ]:
        put("convention", title, body)
    store.save_catalog()
    records = load_catalog(str(store.memory_dir), str(store.index_dir)).readable()
    config = RankConfig(min_relative=0.0)
    query = "exponential backoff"  # words of the English lesson only
    assert [r.entry["id"] for r in rank(records, query, config=config)] == [en]
    neighbours = _neighbours_of(records)
    fused = rank(records, query, config=config, lexical_vectors=True, neighbours=neighbours)
    # The translation shares the best hit's identifiers (Celery, webhook_dispatch), not the prompt's words:
    # the channel whose query is that entry finds it first among the rest.
    assert [r.entry["id"] for r in fused][:2] == [en, zh]
    assert not fused[1].seen_by_bm25
    assert [r.entry["id"] for r in rank(records, query, config=config, lexical_vectors=True)] == [en]


def test_without_a_bm25_hit_the_prompts_cosine_fills_the_list(repo: Path) -> None:
    records, ids = _shop(repo)
    asked: list[object] = []

    def neighbours(entry: dict[str, object]) -> dict[str, float]:
        asked.append(entry["id"])
        return {}

    cosine = {ids["mailer"]: 0.30, ids["stock"]: 0.05, ids["newsletter"]: 0.10}
    config = RankConfig(min_relative=0.0)
    found = rank(records, "zzz qqq", vector_scores=cosine, config=config, lexical_vectors=True, neighbours=neighbours)
    assert [r.entry["id"] for r in found] == [ids["mailer"], ids["newsletter"]]  # the lowest cosine scores 0
    assert asked == []  # no BM25 hit: no best hit to ask about


def test_a_stale_decision_never_outranks_the_newer_one(repo: Path) -> None:
    from datetime import UTC, datetime, timedelta

    store = MemoryStore(repo)
    day1 = datetime.now(UTC) - timedelta(days=2)
    day2 = datetime.now(UTC) - timedelta(days=1)
    # Out of order, as after merging two branches: the newer decision is written first, so the write-time
    # check (which looks at what the newly written text drops) never compares them the other way round.
    newer = store.put(
        new_entry(kind="decision", title="Drop GraphQL in favour of REST", body="Clients use REST.", now=day2),
        now=day2,
    ).entry
    stale = store.put(
        new_entry(kind="decision", title="Expose the API through GraphQL", body="A GraphQL gateway.", now=day1),
        now=day1,
    ).entry
    loki = store.put(
        new_entry(kind="decision", title="Logs are shipped to Loki", body="Through promtail.", now=day1), now=day1
    ).entry
    json_logs = store.put(
        new_entry(kind="decision", title="Logs are structured JSON", body="One object per line.", now=day2), now=day2
    ).entry
    assert store.resolve(stale.id).status == "active" and store.resolve(newer.id).status == "active"
    store.save_catalog()
    records = load_catalog(str(store.memory_dir), str(store.index_dir)).readable()
    config = RankConfig(min_relative=0.0)
    assert bm25_order(records, "graphql api gateway")[0][0] == stale.id  # the words favour the stale one
    ranked = [r.entry["id"] for r in rank(records, "graphql api gateway", config=config)]
    assert ranked[0] == newer.id and stale.id not in ranked  # its replacement takes its place
    both = [r.entry["id"] for r in rank(records, "how are logs shipped and formatted", config=config)]
    assert set(both) >= {loki.id, json_logs.id}  # complementary facts: both stay, in relevance order


def bm25_order(records: list[dict[str, object]], query: str) -> list[tuple[str, float]]:
    from ctxops_memory_store import bm25
    from ctxops_memory_store.terms import tokens

    documents = {
        str(r["entry"]["id"]): (r["terms"], float(r["length"]))  # type: ignore[index,arg-type]
        for r in records
    }
    return bm25.rank(documents, tokens(query))  # type: ignore[arg-type]


def test_scope_globs_match_as_fnmatch_does() -> None:
    """Usual scopes are settled without fnmatch on the hook path; the answers are fnmatch's."""
    from fnmatch import fnmatchcase

    from ctxops_memory_inject.ranking import _glob_matches

    patterns = ["pkg3/**", "pkg3*", "pkg3/*", "README.md", "a/b", "*.py", "src/**/x.py", "a[bc]/d", "x?y", "", "**"]
    paths = ["pkg3", "pkg3/a.py", "pkg3abc", "README.md", "a/b", "a/b/c", "x.py", "src/q/x.py", "ab/d", "xzy", ""]
    for path in paths:
        for pattern in patterns:
            assert _glob_matches(path, pattern) == fnmatchcase(path, pattern), (path, pattern)


def test_rank_config_is_immutable_and_compared_by_value() -> None:
    config = RankConfig(min_relative=0.0)
    assert config == RankConfig(min_relative=0.0) != RankConfig()
    assert hash(config) == hash(RankConfig(min_relative=0.0))
    assert (config.half_life_days, config.keep, config.vector_weight) == (30.0, 50, 0.4)
    with pytest.raises(AttributeError):
        config.keep = 3  # type: ignore[misc]


def test_an_older_entry_opening_like_a_newer_one_ranks_below_it(repo: Path) -> None:
    from datetime import UTC, datetime, timedelta

    from ctxops_memory_store.conflicts import likely_conflict

    store = MemoryStore(repo)
    day1 = datetime.now(UTC) - timedelta(days=2)
    day2 = datetime.now(UTC) - timedelta(days=1)
    old_title, new_title = "Release builds are signed on the CI runner", "Release builds are signed with a hardware key"
    assert not likely_conflict(new_title, "", old_title, "")  # too little for the write-time check: both stay
    older = store.put(new_entry(kind="convention", title=old_title, body="The CI key signs.", now=day1), now=day1)
    newer = store.put(new_entry(kind="convention", title=new_title, body="A YubiKey.", now=day2), now=day2)
    other = store.put(new_entry(kind="lesson", title="The CI runner caches wheels", now=day2), now=day2)
    store.save_catalog()
    records = load_catalog(str(store.memory_dir), str(store.index_dir)).readable()
    query = "how are release builds signed on the CI runner"
    assert bm25_order(records, query)[0][0] == older.entry.id
    ranked = [r.entry["id"] for r in rank(records, query, config=RankConfig(min_relative=0.0))]
    assert ranked.index(newer.entry.id) < ranked.index(older.entry.id)  # both stay, the newer first
    assert other.entry.id in ranked


def test_a_chain_of_replacements_merged_from_branches_shows_only_the_newest(tmp_path: Path, repo: Path) -> None:
    import shutil
    from datetime import UTC, datetime, timedelta

    # Three branches each decided the log format; merging them brings three active files no write compared.
    titles = ["Logs are plain text lines", "Logs are structured JSON", "Logs are OpenTelemetry records"]
    ids = []
    for n, title in enumerate(titles):
        branch = tmp_path / f"branch{n}"
        (branch / ".git").mkdir(parents=True)
        when = datetime.now(UTC) - timedelta(days=3 - n)
        ids.append(MemoryStore(branch).put(new_entry(kind="decision", title=title, now=when), now=when).entry.id)
        for path in (branch / ".meta" / "memory").glob("*.md"):
            (repo / ".meta" / "memory").mkdir(parents=True, exist_ok=True)
            shutil.copy(path, repo / ".meta" / "memory" / path.name)
    store = MemoryStore(repo)
    assert [store.resolve(i).status for i in ids] == ["active"] * 3
    store.save_catalog()
    records = load_catalog(str(store.memory_dir), str(store.index_dir)).readable()
    ranked = [r.entry["id"] for r in rank(records, "are logs plain text lines", config=RankConfig(min_relative=0.0))]
    assert ranked == [ids[2]]  # the oldest matched best; the newest of the chain takes its place, once


def test_a_possible_replacement_queued_at_write_time_ranks_above_the_older_entry(repo: Path) -> None:
    from datetime import UTC, datetime, timedelta

    from ctxops_memory_store.terms import subject_of

    store = MemoryStore(repo)
    day1 = datetime.now(UTC) - timedelta(days=2)
    day2 = datetime.now(UTC) - timedelta(days=1)
    old_title, new_title = "Nightly database backups go to tape", "Backups of the database are uploaded nightly to B2"
    assert subject_of(old_title) != subject_of(new_title)  # not the same opening: only the queue links them
    older = store.put(new_entry(kind="decision", title=old_title, body="The tape robot.", now=day1), now=day1)
    newer = store.put(new_entry(kind="decision", title=new_title, body="Object storage.", now=day2), now=day2)
    assert newer.review == [older.entry.id]
    store.save_catalog()
    records = load_catalog(str(store.memory_dir), str(store.index_dir)).readable()
    query = "where do nightly database backups go, tape"
    assert bm25_order(records, query)[0][0] == older.entry.id
    ranked = [r.entry["id"] for r in rank(records, query, config=RankConfig(min_relative=0.0))]
    assert ranked[:2] == [newer.entry.id, older.entry.id]  # both stay, the newer first
    store.reject(newer.entry.id)  # reviewed: both are true, no longer linked
    records = load_catalog(str(store.memory_dir), str(store.index_dir)).readable()
    ranked = [r.entry["id"] for r in rank(records, query, config=RankConfig(min_relative=0.0))]
    assert ranked[:2] == [older.entry.id, newer.entry.id]
