"""The status line's snapshot: today's and yesterday's spend (local days), the active block, the budgets."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ctxops_token_capture.timerange import TimeRange

from .config import LedgerConfig
from .reports import Filters, blocks, cost_between
from .statusline import write_snapshot
from .store import View


def build_snapshot(view: View, config: LedgerConfig, *, now: datetime | None = None) -> dict[str, Any]:
    now = now or datetime.now(UTC)
    local_now = now.astimezone()
    today = local_now.replace(hour=0, minute=0, second=0, microsecond=0)
    days: dict[str, float] = {}
    for offset in (1, 0):
        start = today - timedelta(days=offset)
        cost = cost_between(view, start.astimezone(UTC), (start + timedelta(days=1)).astimezone(UTC))
        days[start.date().isoformat()] = round(cost, 6)
    recent = blocks(view, Filters(window=TimeRange(since=now - timedelta(hours=10))), now=now, totals=False)
    active = recent.meta.get("active") or {}
    snapshot: dict[str, Any] = {
        "updated_epoch": time.time(),
        "days": days,
        "budgets": dict(config.budgets),
        "price_date": view.book.date,
    }
    if active:
        snapshot["active_block"] = {
            "end_epoch": active["end"].timestamp(),
            "cost_usd": active.get("cost_usd"),
            "cost_per_hour": active.get("cost_per_hour"),
            "projected_cost_usd": active.get("projected_cost_usd"),
        }
    return snapshot


def refresh_snapshot(view: View, config: LedgerConfig, root: Path) -> None:
    write_snapshot(root, build_snapshot(view, config))
