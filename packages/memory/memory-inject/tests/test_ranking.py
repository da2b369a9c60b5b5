"""Hybrid ranking across languages: BM25 cannot see an entry in the other language, so it gets no vote there."""

from __future__ import annotations

from pathlib import Path

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
