# Full-width Chinese punctuation is the data here.
"""Issue 23, item 3: folding never merges two facts that differ in a number, a name or a path (a labelled
set of look-alikes in English and Chinese), and still folds a copy with a few words added."""

from __future__ import annotations

from pathlib import Path

import pytest
from ctxops_memory_store import MemoryStore, new_entry
from ctxops_memory_store.similarity import anchors

LOOK_ALIKES = [
    ("Service A must answer within 100 ms", "Service B must answer within 100 ms"),
    ("Service A must answer within 100 ms", "Service A must answer within 200 ms"),
    (
        "The nightly backup job runs at 02:00 UTC on the primary",
        "The nightly backup job runs at 03:00 UTC on the primary",
    ),
    (
        "Generated clients live in gen/api and are never edited by hand",
        "Generated clients live in gen/web and are never edited by hand",
    ),
    (
        "Run make gen after changing api/schema.yaml before committing",
        "Run make gen after changing web/schema.yaml before committing",
    ),
    (
        "The retry budget of the payments worker is 5 attempts per job",
        "The retry budget of the payments worker is 7 attempts per job",
    ),
    (
        "Ask Priya before changing the release checklist for the mobile app",
        "Ask Jonas before changing the release checklist for the mobile app",
    ),
    (
        "Use load_config_v2 to read settings in the ingest service code",
        "Use load_config_v3 to read settings in the ingest service code",
    ),
    (
        "Postgres 15 is the version every environment runs for the main database",
        "Postgres 16 is the version every environment runs for the main database",
    ),
    (
        "The staging cluster lives in the eu-west-1 region of our AWS account",
        "The staging cluster lives in the eu-west-3 region of our AWS account",
    ),
    ("服务 A 必须在 100 毫秒内响应所有请求", "服务 B 必须在 100 毫秒内响应所有请求"),
    ("服务 A 必须在 100 毫秒内响应所有请求", "服务 A 必须在 200 毫秒内响应所有请求"),
    ("生成的代码在 gen/api 目录，不要手工修改", "生成的代码在 gen/web 目录，不要手工修改"),
    ("每晚的备份任务在 02:00 运行，保留 7 天", "每晚的备份任务在 03:00 运行，保留 7 天"),
    ("支付服务的重试次数上限是 5 次", "支付服务的重试次数上限是 8 次"),
]


@pytest.mark.parametrize(("first", "second"), LOOK_ALIKES)
def test_look_alikes_never_fold(repo: Path, first: str, second: str) -> None:
    store = MemoryStore(repo)
    one = store.put(new_entry(kind="fact", title=first)).entry
    two = store.put(new_entry(kind="fact", title=second))
    assert two.folded == [] and store.resolve(one.id).status == "active", (first, second)
    assert anchors(first) != anchors(second)


def test_a_copy_with_words_added_still_folds(repo: Path) -> None:
    store = MemoryStore(repo)
    one = store.put(new_entry(kind="fact", title="Service A must answer within 100 ms under normal load")).entry
    two = store.put(new_entry(kind="fact", title="Service A must answer within 100 ms under normal load, always"))
    assert two.folded == [one.id]


def test_the_set_is_one_shingles_alone_would_fold() -> None:
    from ctxops_memory_store.similarity import near_duplicate, shingles

    # Without the anchors rule most of these pairs fold (the rule is what keeps them apart).
    assert sum(near_duplicate(shingles(a), shingles(b), 0.6) for a, b in LOOK_ALIKES) >= 10
