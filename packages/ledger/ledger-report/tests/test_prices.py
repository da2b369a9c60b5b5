"""The price book: bundled and dated, exact names only, overrides, and both pricing rules."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from ctxops_ledger_report.prices import Price, PriceBook


def test_bundled_table_is_dated_sourced_and_covers_three_providers() -> None:
    book = PriceBook.bundled()
    assert book.date == "2026-11-30"
    assert any("litellm" in s["package"] for s in book.sources) and any("ccusage" in s["package"] for s in book.sources)
    providers = {p.provider for p in book.prices.values()}
    assert {"anthropic", "openai", "google"} <= providers
    opus = book.lookup("claude-opus-4-8")
    assert opus is not None  # ccusage@17 prices it at $0; the issue names $5 / $25, write 1.25x, read 0.1x
    assert (opus.input, opus.output, opus.cache_write, opus.cache_read) == (5e-06, 2.5e-05, 6.25e-06, 5e-07)
    for name in ("claude-opus-4-7", "claude-sonnet-4-6", "gpt-5-codex", "gemini-2.5-pro"):
        assert book.lookup(name) is not None, name
    sonnet = book.lookup("claude-sonnet-4-5")
    assert sonnet is not None and sonnet.input_long == 6e-06 and sonnet.output_long == 2.25e-05


def test_lookup_strips_prefixes_and_dates_but_never_guesses() -> None:
    book = PriceBook.bundled()
    assert book.lookup("anthropic/claude-haiku-4-5") == book.lookup("claude-haiku-4-5")
    assert book.lookup("claude-opus-4-8@20261001") == book.lookup("claude-opus-4-8")
    assert book.lookup("claude-opus-4-8-20261001") == book.lookup("claude-opus-4-8")
    # ccusage's substring match would price these with some other model's rates; here they are unpriced.
    for unknown in ("claude-opus-4", "claude", "opus", "claude-mystery-9", "<synthetic>", "", None):
        assert book.lookup(unknown) is None, unknown


def test_exact_rule_long_context_prices_the_whole_call_and_1h_writes() -> None:
    price = Price(
        input=3e-6,
        output=15e-6,
        cache_write=3.75e-6,
        cache_write_1h=6e-6,
        cache_read=3e-7,
        input_long=6e-6,
        output_long=22.5e-6,
        cache_write_long=7.5e-6,
        cache_read_long=6e-7,
        provider="google",
    )
    short = price.cost(1_000, 500, 2_000, 1_000, 100_000)
    assert short == pytest.approx(1_000 * 3e-6 + 500 * 15e-6 + 1_000 * 3.75e-6 + 1_000 * 6e-6 + 100_000 * 3e-7)
    # 1,000 + 2,000 + 250,000 = 253,000 prompt tokens > 200k: every token at the long rate (1h write 2x input).
    long = price.cost(1_000, 500, 2_000, 1_000, 250_000)
    assert long == pytest.approx(1_000 * 6e-6 + 500 * 22.5e-6 + 1_000 * 7.5e-6 + 1_000 * 12e-6 + 250_000 * 6e-7)
    # ccusage's rule: writes at the 5-minute rate, each kind tiered on its own (only the reads pass 200k).
    compat = price.cost(1_000, 500, 2_000, 1_000, 250_000, mode="ccusage")
    assert compat == pytest.approx(1_000 * 3e-6 + 500 * 15e-6 + 2_000 * 3.75e-6 + 200_000 * 3e-7 + 50_000 * 6e-7)
    # Anthropic: Claude Code prices a long prompt at the base rate (the 1M beta is not in the usage record).
    anthropic = dataclasses.replace(price, provider="anthropic")
    assert anthropic.cost(1_000, 500, 2_000, 1_000, 250_000) == pytest.approx(
        1_000 * 3e-6 + 500 * 15e-6 + 1_000 * 3.75e-6 + 1_000 * 6e-6 + 250_000 * 3e-7
    )
    assert anthropic.cost(1_000, 500, 2_000, 1_000, 250_000, mode="ccusage") == pytest.approx(compat)


def test_overrides_from_config_files(tmp_path: Path) -> None:
    user = tmp_path / "user.toml"
    user.write_text('[ledger.prices."my-finetune"]\ninput = 2.0\noutput = 8.0\n')
    project = tmp_path / "project.toml"
    project.write_text('[ledger.prices."claude-haiku-4-5"]\noutput = 4.0\n[ledger.prices."my-finetune"]\ninput = 1.0\n')
    book = PriceBook.load([user, project, tmp_path / "absent.toml"])
    tuned = book.lookup("my-finetune")
    assert tuned is not None and tuned.input == pytest.approx(1e-6) and tuned.output == pytest.approx(8e-6)
    haiku = book.lookup("claude-haiku-4-5")
    assert haiku is not None and haiku.output == pytest.approx(4e-6) and haiku.input == pytest.approx(1e-6)
    assert haiku.origin == "override" and set(book.overridden) == {"my-finetune", "claude-haiku-4-5"}
    bad = tmp_path / "bad.toml"
    bad.write_text('[ledger.prices."x"]\ninput = 1\noutput = 2\nbogus = 3\n')
    with pytest.raises(ValueError, match="unknown rate 'bogus'"):
        PriceBook.load([bad])
    half = tmp_path / "half.toml"
    half.write_text('[ledger.prices."new-model"]\ninput = 1\n')
    with pytest.raises(ValueError, match="needs input and output"):
        PriceBook.load([half])


def test_the_generated_table_records_where_each_row_came_from() -> None:
    from importlib import resources

    table = json.loads(resources.files("ctxops_ledger_report").joinpath("data/prices.json").read_text())
    origins = {row["from"] for row in table["models"].values()}
    assert origins <= {"litellm", "ccusage", "litellm+ccusage", "manual"}
    assert table["unit"] == "USD per token"
