"""Codex rollouts: per-turn usage from last_token_usage or the growth of the running total."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ctxops_token_capture.ingest import Sources, ingest
from ctxops_token_capture.totals import totals
from ledger_synthetic import write_codex_sessions


def _usage(inp: int, cached: int, out: int, reasoning: int) -> dict[str, int]:
    return {
        "input_tokens": inp,
        "cached_input_tokens": cached,
        "output_tokens": out,
        "reasoning_output_tokens": reasoning,
        "total_tokens": inp + out,
    }


def _line(kind: str, ts: str, payload: dict[str, Any]) -> str:
    return json.dumps({"timestamp": ts, "type": kind, "payload": payload})


def _rollout(home: Path, lines: list[str], name: str = "rollout-2026-11-29T10-00-00-abc.jsonl") -> Path:
    path = home / "sessions" / "2026" / "11" / "29" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return path


def test_generated_rollouts_match_their_truth(tmp_path: Path) -> None:
    home, root = tmp_path / "codex", tmp_path / "ledger"
    truth = write_codex_sessions(home, sessions=4, turns=4)
    report = ingest(Sources(codex_homes=[home]), root)
    assert report.records == truth.calls
    for row in totals(["day", "model"], root=root).rows:
        expected = truth.by_day_model[(row["day"], row["model"])]
        # Codex counts cached input inside input; the ledger keeps them apart.
        assert row["input_tokens"] + row["cache_read_tokens"] == expected["input_tokens"]
        assert row["cache_read_tokens"] == expected["cached_input_tokens"]
        assert row["output_tokens"] == expected["output_tokens"]
        assert row["reasoning_tokens"] == expected["reasoning_output_tokens"]
    sessions = {r["session"] for r in totals(["session"], root=root).rows}
    assert sessions == set(truth.by_session)


def test_total_differences_repeats_models_and_incremental_appends(tmp_path: Path) -> None:
    home, root = tmp_path / "codex", tmp_path / "ledger"
    first_total = _usage(1000, 200, 50, 10)
    second_total = _usage(2500, 900, 80, 30)
    path = _rollout(
        home,
        [
            _line(
                "session_meta",
                "2026-11-29T10:00:00.000Z",
                {"id": "sess-1", "cwd": "/home/dev/shop", "git": {"branch": "main"}},
            ),
            _line("turn_context", "2026-11-29T10:00:01.000Z", {"model": "gpt-5-codex", "cwd": "/home/dev/shop"}),
            # only the running total: the turn is its growth
            _line(
                "event_msg",
                "2026-11-29T10:00:02.000Z",
                {"type": "token_count", "info": {"total_token_usage": first_total}},
            ),
            # a rate-limit-only update carries no usage
            _line("event_msg", "2026-11-29T10:00:02.500Z", {"type": "token_count", "info": None, "rate_limits": {}}),
            _line("turn_context", "2026-11-29T10:00:03.000Z", {"model": "gpt-5"}),
            _line(
                "event_msg",
                "2026-11-29T10:00:04.000Z",
                {"type": "token_count", "info": {"total_token_usage": second_total}},
            ),
            # the same running total again: nothing new was spent
            _line(
                "event_msg",
                "2026-11-29T10:00:05.000Z",
                {
                    "type": "token_count",
                    "info": {"total_token_usage": second_total, "last_token_usage": _usage(1500, 700, 30, 20)},
                },
            ),
        ],
    )
    report = ingest(Sources(codex_homes=[home]), root)
    assert report.records == 2 and report.duplicates == 1
    rows = {r["model"]: r for r in totals(["model"], root=root).rows}
    assert rows["gpt-5-codex"]["input_tokens"] == 800 and rows["gpt-5-codex"]["cache_read_tokens"] == 200
    assert rows["gpt-5"]["input_tokens"] == 1500 - 700 and rows["gpt-5"]["cache_read_tokens"] == 700
    assert rows["gpt-5"]["output_tokens"] == 30 and rows["gpt-5"]["reasoning_tokens"] == 20
    # Appending a turn later: the running total and model carry over from the state of the last read.
    third_total = _usage(4000, 1000, 100, 30)
    with path.open("a") as handle:
        handle.write(
            _line(
                "event_msg",
                "2026-11-29T11:00:00.000Z",
                {"type": "token_count", "info": {"total_token_usage": third_total}},
            )
            + "\n"
        )
    later = ingest(Sources(codex_homes=[home]), root)
    assert later.records == 1 and later.lines_read == 1
    rows = {r["model"]: r for r in totals(["model"], root=root).rows}
    assert rows["gpt-5"]["calls"] == 2 and rows["gpt-5"]["input_tokens"] == 800 + (1500 - 100)
    assert {r["session"] for r in totals(["session"], root=root).rows} == {"sess-1"}


def test_codex_bad_counts_are_rejected(tmp_path: Path) -> None:
    home, root = tmp_path / "codex", tmp_path / "ledger"
    _rollout(
        home,
        [
            _line("turn_context", "2026-11-29T10:00:01.000Z", {"model": "gpt-5"}),
            _line(
                "event_msg",
                "2026-11-29T10:00:02.000Z",
                {"type": "token_count", "info": {"last_token_usage": _usage(-1, 0, 5, 0)}},
            ),
            '{"timestamp": "2026-11-29T10:00:03.000Z", "type": "event_msg", "payload": {"type": "token_count", ',
        ],
    )
    report = ingest(Sources(codex_homes=[home]), root)
    assert report.rejected == 1 and report.invalid_json == 1 and report.records == 0
    assert "negative" in report.examples[0]


def test_a_bad_running_total_falls_back_to_the_turns_own_usage(tmp_path: Path) -> None:
    home, root = tmp_path / "codex", tmp_path / "ledger"
    bad_total = {**_usage(100, 0, 10, 0), "input_tokens": -5}  # a negative count: the total is unusable
    _rollout(
        home,
        [
            _line("session_meta", "2026-11-29T10:00:00Z", {"id": "sess-1", "cwd": "/home/dev/shop"}),
            _line("turn_context", "2026-11-29T10:00:01Z", {"model": "gpt-5-codex"}),
            _line(
                "event_msg",
                "2026-11-29T10:00:02Z",
                {
                    "type": "token_count",
                    "info": {"last_token_usage": _usage(300, 100, 20, 5), "total_token_usage": bad_total},
                },
            ),
        ],
    )
    report = ingest(Sources(codex_homes=[home]), root)
    assert report.rejected == 0
    result = totals(["model"], root=root)
    assert (result.total["input_tokens"], result.total["cache_read_tokens"], result.total["output_tokens"]) == (
        200,
        100,
        20,
    )
