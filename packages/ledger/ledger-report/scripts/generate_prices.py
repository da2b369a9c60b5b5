"""Generate the bundled price table, ``src/ctxops_ledger_report/data/prices.json``.

    uv run python packages/ledger/ledger-report/scripts/generate_prices.py \
        --litellm-wheel litellm-1.110.2-...whl --ccusage-dir node_modules/ccusage [--date 2026-11-30]

Sources, both MIT-licensed (the table keeps their names, versions and licence):

1. **LiteLLM's ``model_prices_and_context_window_backup.json``**, inside the ``litellm`` wheel on PyPI
   (``pip download litellm --no-deps``). Chosen as the primary source: it covers Anthropic, OpenAI and
   Google, carries 1-hour cache-write rates and long-context tiers, and lists current models
   (claude-opus-4-7/4-8, claude-sonnet-4-6) that ccusage@17 prices at $0.
2. **ccusage@17's embedded Claude table** (``PREFETCHED_CLAUDE_PRICING`` in ``dist/data-loader-*.js`` of the
   ``ccusage`` npm package), itself a LiteLLM snapshot. Used only to fill what the current LiteLLM JSON
   lacks: plain Claude keys it has dropped (older models) and long-context rates (the above-200k rates of
   claude-sonnet-4-5). Where both give a value, LiteLLM's wins and the difference is printed.
3. **Anthropic's published pricing** for what neither has (``MANUAL`` below, each with its reason): a
   1-hour cache write is 2x the input rate, a 5-minute write 1.25x, a cache read 0.1x.

Prices are stored in USD per token, as both sources give them, so sums agree with ccusage to the last
digit. Long-context rates apply above ``long_context_threshold`` prompt tokens.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import zipfile
from datetime import UTC, datetime
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src" / "ctxops_ledger_report" / "data" / "prices.json"
LITELLM_MEMBER = "litellm/model_prices_and_context_window_backup.json"
PROVIDERS = {"anthropic": "anthropic", "openai": "openai", "gemini": "google", "vertex_ai-language-models": "google"}
MODES = {"chat", "responses", "completion"}

# LiteLLM field -> ours.
FIELDS = {
    "input_cost_per_token": "input",
    "output_cost_per_token": "output",
    "cache_creation_input_token_cost": "cache_write",
    "cache_creation_input_token_cost_above_1hr": "cache_write_1h",
    "cache_read_input_token_cost": "cache_read",
    "input_cost_per_token_above_200k_tokens": "input_long",
    "output_cost_per_token_above_200k_tokens": "output_long",
    "cache_creation_input_token_cost_above_200k_tokens": "cache_write_long",
    "cache_read_input_token_cost_above_200k_tokens": "cache_read_long",
}

# Anthropic's published long-context rates (platform docs, "Pricing" > "Long context pricing"): Sonnet 4
# and 4.5 prompts above 200k tokens cost $6 / $22.50 per MTok, writes and reads scaled alike.
SONNET_LONG = {"input_long": 6e-06, "output_long": 2.25e-05, "cache_write_long": 7.5e-06, "cache_read_long": 6e-07}
MANUAL: dict[str, tuple[dict[str, float], str]] = {
    "claude-sonnet-4-5": (SONNET_LONG, "Anthropic pricing: long context above 200k tokens"),
    "claude-sonnet-4-5-20250929": (SONNET_LONG, "Anthropic pricing: long context above 200k tokens"),
    # Named in the issue as the reference for the newest Opus: $5 / $25 per MTok, write 1.25x, read 0.1x.
    "claude-opus-4-8": (
        {"input": 5e-06, "output": 2.5e-05, "cache_write": 6.25e-06, "cache_write_1h": 1e-05, "cache_read": 5e-07},
        "Anthropic pricing: Opus 4.8",
    ),
}


def _litellm(wheel: Path) -> tuple[dict[str, dict[str, float]], str]:
    version = re.search(r"litellm-([^-]+)-", wheel.name)
    with zipfile.ZipFile(wheel) as archive:
        data = json.loads(archive.read(LITELLM_MEMBER))
    out: dict[str, dict[str, float]] = {}
    for key, entry in data.items():
        if not isinstance(entry, dict) or entry.get("mode") not in MODES:
            continue
        provider = PROVIDERS.get(str(entry.get("litellm_provider")))
        if provider is None:
            continue
        name = key.split("/", 1)[1] if key.startswith("gemini/") else key
        if "/" in name:
            continue
        row = {
            ours: float(entry[theirs]) for theirs, ours in FIELDS.items() if isinstance(entry.get(theirs), int | float)
        }
        if "input" not in row or "output" not in row:
            continue
        row_with_provider: dict[str, float] = dict(row)
        out.setdefault(name, {"provider": provider, **row_with_provider})  # type: ignore[dict-item]
    return out, version.group(1) if version else "unknown"


def _ccusage(directory: Path) -> tuple[dict[str, dict[str, float]], str]:
    version = json.loads((directory / "package.json").read_text())["version"]
    for path in sorted((directory / "dist").glob("data-loader-*.js")):
        text = path.read_text()
        start = text.find("const PREFETCHED_CLAUDE_PRICING = {")
        if start < 0:
            continue
        body = text[text.index("{", start) : text.index("\n};", start) + 2]
        table = json.loads(body)
        out = {}
        for key, entry in table.items():
            row = {ours: float(entry[theirs]) for theirs, ours in FIELDS.items() if theirs in entry}
            out[key] = {"provider": "anthropic", **row}
        return out, version  # type: ignore[return-value]
    raise SystemExit(f"no PREFETCHED_CLAUDE_PRICING in {directory}/dist")


def build(wheel: Path, ccusage_dir: Path, day: str) -> dict[str, object]:
    litellm, litellm_version = _litellm(wheel)
    ccusage, ccusage_version = _ccusage(ccusage_dir)
    models: dict[str, dict[str, object]] = {}
    for name, row in litellm.items():
        models[name] = {**row, "from": "litellm"}
    for name, row in ccusage.items():
        if name not in models:
            models[name] = {**row, "from": "ccusage"}
            continue
        filled = []
        for field, value in row.items():
            if field == "provider":
                continue
            mine = models[name].get(field)
            if mine is None:
                models[name][field] = value
                filled.append(field)
            elif abs(float(mine) - value) > 1e-15:  # type: ignore[arg-type]
                print(f"note: {name}.{field}: litellm {mine} vs ccusage {value}; keeping litellm", file=sys.stderr)
        if filled:
            models[name]["from"] = "litellm+ccusage"
    for name, (fields, why) in MANUAL.items():
        row = models.setdefault(name, {"provider": "anthropic", "from": "manual"})
        added = [f for f in fields if f not in row]
        for field in added:
            row[field] = fields[field]
        if added:
            row["note"] = why
    for row in models.values():
        if row.get("provider") == "anthropic":
            base = float(row["input"])  # type: ignore[arg-type]
            row.setdefault("cache_write", round(base * 1.25, 12))
            row.setdefault("cache_write_1h", round(base * 2, 12))
            row.setdefault("cache_read", round(base * 0.1, 12))
        if any(k.endswith("_long") for k in row):
            row["long_context_threshold"] = 200_000
    return {
        "date": day,
        "unit": "USD per token",
        "sources": [
            {
                "name": "LiteLLM model_prices_and_context_window_backup.json",
                "package": f"litellm=={litellm_version} (PyPI)",
                "licence": "MIT",
            },
            {
                "name": "ccusage PREFETCHED_CLAUDE_PRICING",
                "package": f"ccusage@{ccusage_version} (npm)",
                "licence": "MIT",
            },
            {
                "name": "Anthropic published pricing",
                "package": "manual entries in scripts/generate_prices.py",
                "licence": "facts",
            },
        ],
        "models": dict(sorted(models.items())),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--litellm-wheel", type=Path, required=True, help="a litellm wheel (pip download litellm --no-deps)"
    )
    parser.add_argument("--ccusage-dir", type=Path, required=True, help="the ccusage npm package directory")
    parser.add_argument("--date", default=datetime.now(UTC).date().isoformat(), help="the table's date (default today)")
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the table")
    args = parser.parse_args()
    table = build(args.litellm_wheel, args.ccusage_dir, args.date)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(table, indent=1, sort_keys=False) + "\n")
    print(f"{args.out}: {len(table['models'])} models, dated {args.date}")  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
