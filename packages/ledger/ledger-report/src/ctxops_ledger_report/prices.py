"""The price book: the bundled, dated table plus the user's overrides, and how one call is priced.

Stdlib only (the status line prices without DuckDB). Two rules, both documented in docs/ledger.md:

- ``exact`` (default), the provider's rule as Claude Code applies it for ``costUSD``: 1-hour cache writes at
  the 1-hour rate, the rest at the 5-minute rate; when a call's prompt (input + cache writes + cache
  reads) exceeds the model's long-context threshold, every token of that call is at the long-context rate
  (Google models; not Anthropic ones, see :meth:`Price.long_context_applies`).
- ``ccusage``: ccusage@17's rule, for side-by-side checks: every cache write at the 5-minute rate, and each
  kind of token tiered on its own (the first 200k of that kind at the base rate, the rest above).

Beyond tokens, in ``exact`` only (ccusage prices tokens alone): Anthropic's web searches at $10 per 1,000
(``usage.server_tool_use.web_search_requests``), and a call whose ``usage.inference_geo`` is ``"us"`` (US-only
inference) at 1.1x its token cost.

Unknown models are not priced at $0: they are reported as unpriced, with their tokens.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, field, fields
from importlib import resources
from pathlib import Path
from typing import Any

PER_MTOK = 1_000_000
MODES = ("exact", "ccusage")
_DATED = re.compile(r"^(.*?)(?:[-@]\d{8}|-v\d+(?::\d+)?)$")
_PREFIXES = ("anthropic/", "anthropic.", "openai/", "gemini/", "google/", "models/")
# USD per server-side web search, by provider (Anthropic: $10 per 1,000 searches).
WEB_SEARCH_USD = {"anthropic": 10.0 / 1000}
# Token-cost multiplier for inference pinned to a geography, by provider and usage.inference_geo value.
GEO_MULTIPLIER = {("anthropic", "us"): 1.1}


@dataclass(frozen=True)
class Price:
    """USD per token for one model; ``*_long`` apply above ``long_context_threshold`` prompt tokens."""

    input: float
    output: float
    cache_write: float = 0.0
    cache_write_1h: float | None = None
    cache_read: float = 0.0
    input_long: float | None = None
    output_long: float | None = None
    cache_write_long: float | None = None
    cache_read_long: float | None = None
    long_context_threshold: int = 200_000
    provider: str = ""
    origin: str = ""  # "litellm", "ccusage", "manual", "override"

    def cost(  # noqa: PLR0917 - the four token counts of a call, in their usual order
        self,
        input_tokens: int,
        output_tokens: int,
        cache_write_tokens: int,
        cache_write_1h_tokens: int,
        cache_read_tokens: int,
        mode: str = "exact",
        *,
        web_search_requests: int = 0,
        inference_geo: str | None = None,
    ) -> float:
        """USD for one call."""
        if mode == "ccusage":
            return (
                _tier(input_tokens, self.input, self.input_long)
                + _tier(output_tokens, self.output, self.output_long)
                + _tier(cache_write_tokens, self.cache_write, self.cache_write_long)
                + _tier(cache_read_tokens, self.cache_read, self.cache_read_long)
            )
        prompt = input_tokens + cache_write_tokens + cache_read_tokens
        long = self.long_context_applies() and prompt > self.long_context_threshold
        scale = (self.input_long / self.input) if long and self.input_long and self.input else 1.0
        one_hour = min(cache_write_1h_tokens, cache_write_tokens)
        rate_1h = self.cache_write_1h if self.cache_write_1h is not None else self.cache_write
        tokens = (
            input_tokens * (self.input_long if long and self.input_long is not None else self.input)
            + output_tokens * (self.output_long if long and self.output_long is not None else self.output)
            + (cache_write_tokens - one_hour)
            * (self.cache_write_long if long and self.cache_write_long is not None else self.cache_write)
            + one_hour * rate_1h * scale
            + cache_read_tokens
            * (self.cache_read_long if long and self.cache_read_long is not None else self.cache_read)
        )
        return tokens * self.geo_multiplier(inference_geo) + web_search_requests * self.web_search_request

    @property
    def web_search_request(self) -> float:
        """USD per server-side web search (0 where the provider's are not known)."""
        return WEB_SEARCH_USD.get(self.provider, 0.0)

    def geo_multiplier(self, inference_geo: str | None) -> float:
        """The token-cost multiplier of a call whose inference ran pinned to ``inference_geo``."""
        return GEO_MULTIPLIER.get((self.provider, inference_geo or ""), 1.0)

    def long_context_applies(self) -> bool:
        """Whether the exact rule uses the long-context rates.

        Not for Anthropic models: above 200k prompt tokens is only possible with the 1M-context beta, which a
        usage record does not show, and Claude Code's own ``costUSD`` (2.1.332) prices such calls at the base
        rate. Google's tiers apply to any long prompt. ``--compat ccusage`` tiers every model that has them.
        """
        return self.input_long is not None and self.provider != "anthropic"

    def per_mtok(self) -> dict[str, float | None]:
        """The rates in USD per million tokens, as people read them."""
        out: dict[str, float | None] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in ("long_context_threshold", "provider", "origin"):
                continue
            out[f.name] = None if value is None else round(value * PER_MTOK, 6)
        return out


def _tier(tokens: int, base: float, above: float | None, threshold: int = 200_000) -> float:
    if tokens <= 0:
        return 0.0
    if tokens > threshold and above is not None:
        return threshold * base + (tokens - threshold) * above
    return tokens * base


_PRICE_FIELDS = {f.name for f in fields(Price)}


def _price_from(row: dict[str, Any], origin: str) -> Price:
    values = {k: v for k, v in row.items() if k in _PRICE_FIELDS}
    values["origin"] = origin
    return Price(**values)


@dataclass
class PriceBook:
    """Prices by model name, with the table's date and sources, and the overrides applied."""

    prices: dict[str, Price]
    date: str
    sources: list[dict[str, str]] = field(default_factory=list)
    overridden: list[str] = field(default_factory=list)

    @classmethod
    def bundled(cls) -> PriceBook:
        text = resources.files("ctxops_ledger_report").joinpath("data/prices.json").read_text(encoding="utf-8")
        table = json.loads(text)
        prices = {name: _price_from(row, row.get("from", "bundled")) for name, row in table["models"].items()}
        return cls(prices=prices, date=table["date"], sources=table.get("sources", []))

    @classmethod
    def load(cls, config_files: list[Path] | None = None) -> PriceBook:
        """The bundled table with ``[ledger.prices."MODEL"]`` overrides from each config file, later files winning."""
        book = cls.bundled()
        for path in config_files or []:
            book.apply_overrides(read_prices_config(path), str(path))
        return book

    def apply_overrides(self, overrides: dict[str, dict[str, float]], where: str) -> None:
        """Overrides are USD per million tokens (as price pages print them); unnamed rates keep the table's."""
        for model, rates in overrides.items():
            base = self.prices.get(model)
            values: dict[str, Any] = {} if base is None else {f: getattr(base, f) for f in _PRICE_FIELDS}
            for key, value in rates.items():
                if key not in _PRICE_FIELDS or key in ("provider", "origin", "long_context_threshold"):
                    if key == "long_context_threshold":
                        values[key] = int(value)
                        continue
                    raise ValueError(f"{where}: [ledger.prices.{model!r}] has an unknown rate {key!r}")
                values[key] = float(value) / PER_MTOK
            if "input" not in values or "output" not in values:
                raise ValueError(f"{where}: [ledger.prices.{model!r}] needs input and output (USD per MTok)")
            values["origin"] = "override"
            self.prices[model] = Price(**values)
            self.overridden.append(model)

    def lookup(self, model: str | None) -> Price | None:
        """The price of ``model``: its exact name, then without a provider prefix or a date suffix. No guessing."""
        if not model:
            return None
        found = self.prices.get(model)
        if found is not None:
            return found
        name = model
        for prefix in _PREFIXES:
            if name.startswith(prefix):
                name = name[len(prefix) :]
        if name in self.prices:
            return self.prices[name]
        dated = _DATED.match(name)
        if dated and dated.group(1) in self.prices:
            return self.prices[dated.group(1)]
        return None


def read_prices_config(path: Path) -> dict[str, dict[str, float]]:
    """``[ledger.prices."MODEL"]`` tables of a TOML config file (empty when the file or section is absent)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: not valid TOML ({exc})") from None
    section = data.get("ledger", {}).get("prices", {})
    if not isinstance(section, dict):
        raise ValueError(f"{path}: [ledger.prices] must be a table of models")
    return {str(k): dict(v) for k, v in section.items() if isinstance(v, dict)}
