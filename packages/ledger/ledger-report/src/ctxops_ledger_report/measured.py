"""Measured savings: the newest ``ctx bench`` of a repository (``.meta/bench/latest.json``), shown beside the
savings the ledger estimates from the context guard's records — each labelled, an estimate never as measured."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ctxops_contracts.shared.confine import read_regular

LATEST = Path(".meta") / "bench" / "latest.json"
LIMIT = 1_000_000


def latest(root: str | Path | None) -> dict[str, Any] | None:
    """The summary `ctx bench run` wrote in ``root``, or None (no bench, or a file of another shape)."""
    if not root:
        return None
    try:
        doc = json.loads(read_regular(str(Path(root) / LATEST), LIMIT))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("format") != 1 or not isinstance(doc.get("overall"), list):
        return None
    return doc


def _pct(value: Any) -> str:
    return f"{value:+.1%}" if isinstance(value, int | float) else "-"


def lines(doc: dict[str, Any]) -> list[str]:
    """One line per arm against ``off``: the median paired cost and input-token differences, with intervals."""
    out: list[str] = []
    for row in doc["overall"]:
        if not isinstance(row, dict) or row.get("arm") == "off" or not isinstance(row.get("vs_off"), dict):
            continue
        cost = row["vs_off"].get("cost_usd") or {}
        tokens = row["vs_off"].get("input_tokens") or {}
        ci = cost.get("ci95")
        interval = f" (95% CI ${ci[0]:+.4f}..${ci[1]:+.4f} a run)" if isinstance(ci, list) and len(ci) == 2 else ""
        flags = row.get("flags") or []
        out.append(
            f"measured (ctx bench {doc.get('bench')}, {doc.get('agent')}, arm {row.get('arm')} vs off, "
            f"{cost.get('pairs', 0)} pairs): cost {_pct(cost.get('relative'))}{interval}, "
            f"input tokens {_pct(tokens.get('relative'))}" + (f" [{'; '.join(flags)}]" if flags else "")
        )
    return out
