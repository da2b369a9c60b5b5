"""The ledger's per-day and per-model totals equal ccusage@17's on the same transcripts."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from ctxops_token_capture.ingest import Sources, ingest
from ctxops_token_capture.totals import totals
from ledger_peers import ccusage_codex_daily, ccusage_daily, ccusage_daily_totals
from ledger_synthetic import write_claude_sessions, write_codex_sessions

REPO = Path(__file__).resolve().parents[1]
TOKENS = ("input_tokens", "output_tokens", "cache_creation_tokens", "cache_read_tokens")


def ledger_by_day_model(root: Path) -> dict[tuple[str, str], dict[str, int]]:
    return {(r["day"], r["model"]): {k: r[k] for k in TOKENS} for r in totals(["day", "model"], root=root).rows}


def ledger_by_day(root: Path) -> dict[str, dict[str, int]]:
    return {r["day"]: {k: r[k] for k in TOKENS} for r in totals(["day"], root=root).rows}


@pytest.mark.slow
def test_claude_code_totals_equal_ccusage(tmp_path: Path) -> None:
    config, duplicate, root = tmp_path / "claude", tmp_path / "claude-copy", tmp_path / "ledger"
    write_claude_sessions(config, sessions=8, turns=7)
    shutil.copytree(
        REPO / "examples" / "sessions" / "claude-code-2.1.332" / "transcripts", config / "projects" / "recorded"
    )
    shutil.copytree(config, duplicate)  # the same sessions in a second config dir count once, for both tools
    ingest(Sources(claude_dirs=[config, duplicate]), root)
    assert ledger_by_day_model(root) == ccusage_daily([config, duplicate])
    assert ledger_by_day(root) == ccusage_daily_totals([config, duplicate])


@pytest.mark.slow
def test_codex_totals_equal_ccusage_codex(tmp_path: Path) -> None:
    home, root = tmp_path / "codex", tmp_path / "ledger"
    write_codex_sessions(home, sessions=6, turns=5)
    ingest(Sources(codex_homes=[home]), root)
    ours = {
        (r["day"], r["model"]): {
            # ccusage-codex reports Codex's own convention: cached input inside input.
            "input_tokens": r["input_tokens"] + r["cache_read_tokens"],
            "cached_input_tokens": r["cache_read_tokens"],
            "output_tokens": r["output_tokens"],
            "reasoning_output_tokens": r["reasoning_tokens"],
        }
        for r in totals(["day", "model"], root=root).rows
    }
    assert ours == ccusage_codex_daily(home)


@pytest.mark.slow
def test_costs_equal_ccusage_per_day_and_model(tmp_path: Path) -> None:
    from ctxops_ledger_report.prices import PriceBook
    from ctxops_ledger_report.reports import Filters, grouped
    from ctxops_ledger_report.store import open_view
    from ledger_peers import ccusage_daily_costs

    config, root = tmp_path / "claude", tmp_path / "ledger"
    # Models both price, ccusage@17's $0 ones (claude-opus-4-8, claude-sonnet-4-6) and an unknown one; a third of
    # the calls past 200k prompt tokens (long-context rates), 1-hour cache writes among the writes.
    models = ("claude-sonnet-4-5", "claude-opus-4-8", "claude-sonnet-4-6", "claude-mystery-9", "claude-haiku-4-5")
    write_claude_sessions(config, sessions=12, turns=6, models=models, long_prompts=True)
    ingest(Sources(claude_dirs=[config]), root)
    theirs = ccusage_daily_costs([config])
    book = PriceBook.bundled()
    with open_view(root, book=book, mode="ccusage") as view:
        ours = {(r["day"], r["model"]): r["cost_usd"] for r in grouped(view, "day", Filters(), breakdown=True).rows}
    with open_view(root, book=book) as view:
        exact = {(r["day"], r["model"]): r["cost_usd"] for r in grouped(view, "day", Filters(), breakdown=True).rows}
    assert set(ours) == set(theirs)
    both = {key for key, cost in theirs.items() if cost > 0}
    assert {model for _, model in both} == {"claude-sonnet-4-5", "claude-haiku-4-5"}
    for key in both:
        assert ours[key] == pytest.approx(theirs[key], abs=1e-6), key
    for key, cost in theirs.items():
        if key[1] in ("claude-opus-4-8", "claude-sonnet-4-6"):
            assert cost == 0 and ours[key] > 0 and exact[key] > 0  # ccusage says $0; they are priced here
        if key[1] == "claude-mystery-9":
            assert cost == 0 and ours[key] is None and exact[key] is None  # unpriced, never $0
    # The exact rule (Claude Code's: 1-hour writes at their rate, no Anthropic long-context tiers) is another
    # figure on the same calls; tests/e2e/test_ledger_costs_real_claude.py checks it against Claude Code.
    assert any(abs(exact[key] - ours[key]) > 1e-6 for key in both)
