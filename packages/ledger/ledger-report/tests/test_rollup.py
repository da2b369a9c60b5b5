"""Reports from the hourly roll-up equal the same reports computed from every call.

A generated ledger exercises what a roll-up could get wrong: calls on the hour and with microseconds,
5-hour blocks cut by gaps and by their end, task intervals that start and stop inside an hour and span
sessions and days, long-context calls (Gemini) and ccusage's per-kind tiers, 1-hour cache writes, US-only
inference, web searches, an unpriced model, time zones a whole and a half hour from UTC, and windows
whose bounds fall inside an hour.
"""

from __future__ import annotations

import math
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from ctxops_contracts.shared import tasks
from ctxops_ledger_report.prices import PriceBook
from ctxops_ledger_report.reports import Filters, build, source
from ctxops_ledger_report.store import open_view
from ctxops_token_capture.timerange import TimeRange
from ledger_records import record, write

START = datetime(2026, 10, 3, 6, 0, tzinfo=UTC)
MODELS = ("claude-sonnet-4-5", "claude-opus-4-8", "gemini-2.5-pro", "gpt-5-codex", "in-house-7b")
KINDS = ("day", "week", "month", "session", "task", "repo", "model", "block")
NOW = START + timedelta(days=9, hours=3)


def _ledger(root: Path, repos: list[str]) -> list[Any]:
    rng = random.Random(11)
    records = []
    ts = START
    for n in range(1500):
        # Bursts of work with gaps: most calls seconds apart, some hours apart (new blocks, new days).
        ts += timedelta(seconds=rng.choice((7, 30, 90, 400)), microseconds=rng.randrange(1_000_000))
        if n % 97 == 0:
            ts += timedelta(hours=rng.choice((2, 5, 6, 11)))
        if n % 41 == 0:  # exactly on the hour, where a block may end
            ts = ts.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
        session = f"sess-{n // 120:02d}"
        repo = repos[(n // 200) % len(repos)]
        model = MODELS[rng.randrange(len(MODELS))]
        big = rng.random() < 0.06  # above 200k: the long-context rate, and ccusage's tiers
        fields: dict[str, Any] = {
            "session_id": session,
            "repo": repo,
            "model": model,
            "provider": "google" if model.startswith("gemini") else "anthropic",
            "git_branch": rng.choice(("main", "feat-pay", "HEAD", None)),
            "input_tokens": rng.randrange(1, 4000) + (250_000 if big and rng.random() < 0.5 else 0),
            "output_tokens": rng.randrange(1, 3000) + (210_000 if big and rng.random() < 0.3 else 0),
            "cache_creation_tokens": rng.choice((0, 0, 1500, 230_000 if big else 2000)),
            "cache_read_tokens": rng.choice((0, 20_000, 90_000, 260_000 if big else 150_000)),
        }
        if fields["cache_creation_tokens"] and rng.random() < 0.4:
            fields["cache_creation_1h_tokens"] = rng.choice((500, fields["cache_creation_tokens"], 10**6))
        if rng.random() < 0.1:
            fields["inference_geo"] = "us"
        if rng.random() < 0.05:
            fields["web_search_requests"] = rng.randrange(1, 4)
        if rng.random() < 0.03:
            fields["task_id"] = "hotfix-7"
        records.append(record(ts, **fields))
    write(root, records)
    # A task over several sessions and days, its bounds inside hours; a second one started on the hour.
    tasks.start(repos[0], "checkout-v2", at=START + timedelta(hours=3, minutes=17, seconds=5), data_dir=str(root))
    tasks.stop(repos[0], at=START + timedelta(days=3, hours=2, minutes=44), data_dir=str(root))
    tasks.start(repos[1], "docs-sweep", at=START + timedelta(days=4), data_dir=str(root))
    return records


def _close(a: Any, b: Any, where: str = "") -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        assert a.keys() == b.keys(), where
        for key in a:
            _close(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, list) and isinstance(b, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _close(x, y, f"{where}[{i}]")
    elif isinstance(a, float) and isinstance(b, float):
        assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9), f"{where}: {a} != {b}"
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


@pytest.fixture(scope="module")
def ledger(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str], list[Any]]:
    root = tmp_path_factory.mktemp("rollup") / "data"
    root.mkdir()
    repos = ["/home/dev/shop", "/home/dev/docs", "/home/dev/infra"]
    return root, repos, _ledger(root, repos)


CASES: list[tuple[str, dict[str, Any]]] = [
    *((kind, {}) for kind in KINDS),
    ("day", {"breakdown": True}),
    ("day", {"tz": "Europe/Paris"}),  # whole hours from UTC, with a DST change in the range
    ("week", {"tz": "America/New_York"}),
    ("day", {"tz": "Asia/Kolkata"}),  # half an hour: the calls answer
    ("task", {"tz": "Asia/Kolkata"}),
    ("month", {"window": (timedelta(days=1, minutes=7, seconds=3), timedelta(days=6, hours=5, minutes=31))}),
    ("task", {"window": (timedelta(hours=30, minutes=1), None)}),
    ("block", {"window": (timedelta(days=2, minutes=20), timedelta(days=7, seconds=1))}),
    ("session", {"repo": 1}),
    ("day", {"task": "checkout-v2"}),
    ("model", {"model": "gemini-2.5-pro"}),
]


@pytest.mark.parametrize("mode", ["exact", "ccusage"])
@pytest.mark.parametrize(("kind", "options"), CASES)
def test_rollup_answers_equal_the_calls(
    ledger: tuple[Path, list[str], list[Any]],
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
    kind: str,
    options: dict[str, Any],
) -> None:
    root, repos, _ = ledger
    monkeypatch.setenv("CTXOPS_DATA_DIR", str(root))
    since, until = options.get("window", (None, None))
    filters = Filters(
        window=TimeRange(START + since if since else None, START + until if until else None),
        repo=repos[options["repo"]] if "repo" in options else None,
        task=options.get("task"),
        model=options.get("model"),
    )
    tz = options.get("tz", "UTC")
    with open_view(root, book=PriceBook.bundled(), mode=mode) as view:
        assert view.rollup
        rolled = build(view, kind, filters, tz=tz, breakdown=options.get("breakdown", False), now=NOW)
        used = source(view, filters, tz=tz if kind in ("day", "week", "month", "task") else None)
        view.rollup = False
        calls = build(view, kind, filters, tz=tz, breakdown=options.get("breakdown", False), now=NOW)
    assert calls.rows, "the case selects calls"
    _close(rolled.as_dict(), calls.as_dict(), kind)
    if tz == "Asia/Kolkata":
        assert used == "costed_calls"
    else:
        assert "costed_rolled" in used  # the roll-up answered (the calls only for hours it cannot split)


def test_the_generated_ledger_covers_what_a_rollup_can_get_wrong(ledger: tuple[Path, list[str], list[Any]]) -> None:
    root, _, records = ledger
    with open_view(root, book=PriceBook.bundled()) as view:
        report = build(view, "task", Filters())
        assert view.split_hours  # task bounds inside an hour
    rows = {r["task"]: r for r in report.rows}
    assert rows["checkout-v2"]["sessions"] > 1 and rows["checkout-v2"]["days"] > 1
    assert report.total["unpriced_models"] == ["in-house-7b"]
    assert 0 < report.total["cache_hit_rate"] < 1
    assert any(r.ts.minute == r.ts.second == r.ts.microsecond == 0 for r in records)
    assert any(r.input_tokens + r.cache_creation_tokens + r.cache_read_tokens > 200_000 for r in records)
    assert any(r.output_tokens > 200_000 for r in records)


def _blocks_by_hand(records: list[Any], hours: int = 5) -> tuple[list[tuple[datetime, int, int]], int]:
    """ccusage's rule, one call at a time: (block start, calls, tokens) per block, and how many calls fell
    exactly on their block's end (they stay in it)."""
    span = timedelta(hours=hours)
    out: list[list[Any]] = []
    start = last = None
    at_end = 0
    for r in sorted(records, key=lambda r: r.ts):
        if start is None or last is None or r.ts - start > span or r.ts - last > span:
            start = r.ts.replace(minute=0, second=0, microsecond=0)
            out.append([start, 0, 0])
        at_end += r.ts - start == span
        last = r.ts
        out[-1][1] += 1
        out[-1][2] += r.input_tokens + r.output_tokens + r.cache_creation_tokens + r.cache_read_tokens
    return [(b[0], b[1], b[2]) for b in out], at_end


def test_blocks_follow_the_rule_call_by_call(ledger: tuple[Path, list[str], list[Any]]) -> None:
    root, _, records = ledger
    with open_view(root, book=PriceBook.bundled()) as view:
        report = build(view, "block", Filters(), now=NOW)
    got = [(r["block"], r["calls"], r["total_tokens"]) for r in report.rows]
    expected, at_end = _blocks_by_hand(records)
    assert got == expected
    assert at_end, "the ledger has a call exactly at its block's end"
