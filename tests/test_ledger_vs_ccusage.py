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
