"""Budgets and alerts: what is over its threshold, and what burned it.

- ``day``: today's spend (in ``--tz``), all repositories (or the ``--root`` one);
- ``repository``: any repository's spend today;
- ``session``: any session active in the last 24 hours, its whole spend;
- ``task``: any task active in the last 7 days, its whole spend (all sessions and days);
- cache hit rate: the last ``recent_sessions`` sessions against the ``baseline_sessions`` before them; an
  alert when recent falls more than ``cache_hit_drop`` below the baseline (a broken prompt cache costs
  up to 10x on input).

A finding lists the top sessions, models and tasks that made up the spend.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from ctxops_token_capture.timerange import TimeRange

from .config import LedgerConfig
from .reports import Filters, _fetch
from .store import View

TOP = 3


@dataclass
class Finding:
    kind: str  # day | repository | session | task | cache_hit_rate
    name: str
    value: float
    threshold: float
    message: str
    burned_by: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "value": round(self.value, 6),
            "threshold": round(self.threshold, 6),
            "message": self.message,
            "burned_by": self.burned_by,
        }


def _top(view: View, where: str, params: list[Any]) -> list[dict[str, Any]]:
    """The sessions, models and tasks that spent the most within ``where``."""
    out: list[dict[str, Any]] = []
    for label, expr in (("session", "coalesce(session_id, '-')"), ("model", "model"), ("task", "task")):
        rows = _fetch(
            view.con,
            f"SELECT {expr} AS name, sum(cost_usd) AS cost_usd FROM costed WHERE {where} "
            f"GROUP BY 1 HAVING sum(cost_usd) > 0 ORDER BY 2 DESC LIMIT {TOP}",
            params,
        )
        out.extend({"by": label, "name": r["name"], "cost_usd": round(r["cost_usd"], 6)} for r in rows)
    return out


def _repo_clause(repo: str | None) -> tuple[str, list[Any]]:
    return (" AND repo = ?", [repo]) if repo else ("", [])


def run_checks(
    view: View, config: LedgerConfig, *, tz: str = "UTC", repo: str | None = None, now: datetime | None = None
) -> list[Finding]:
    now = now or datetime.now(UTC)
    found: list[Finding] = []
    budgets = config.budgets
    local = now.astimezone(ZoneInfo(tz))
    day_start = local.replace(hour=0, minute=0, second=0, microsecond=0).astimezone(UTC)
    extra, extra_params = _repo_clause(repo)
    today = "ts >= ?" + extra
    today_params: list[Any] = [day_start, *extra_params]

    if "day" in budgets:
        spent = view.con.execute(
            f"SELECT coalesce(sum(cost_usd), 0) FROM costed WHERE {today}", today_params
        ).fetchone()[0]
        if spent > budgets["day"]:
            found.append(
                Finding(
                    "day",
                    local.date().isoformat(),
                    spent,
                    budgets["day"],
                    f"today's spend ${spent:,.2f} is over the day budget ${budgets['day']:,.2f}",
                    _top(view, today, today_params),
                )
            )
    if "repository" in budgets:
        rows = view.con.execute(
            f"SELECT repo, sum(cost_usd) FROM costed WHERE {today} AND repo IS NOT NULL "
            "GROUP BY 1 HAVING sum(cost_usd) > ?",
            [*today_params, budgets["repository"]],
        ).fetchall()
        for name, spent in rows:
            found.append(
                Finding(
                    "repository",
                    name,
                    spent,
                    budgets["repository"],
                    f"{name} spent ${spent:,.2f} today, over its budget ${budgets['repository']:,.2f}",
                    _top(view, today + " AND repo = ?", [*today_params, name]),
                )
            )
    for kind, column, lookback in (("session", "session_id", timedelta(hours=24)), ("task", "task", timedelta(days=7))):
        if kind not in budgets:
            continue
        rows = view.con.execute(
            f"SELECT {column}, sum(cost_usd) FROM costed WHERE {column} IN "
            f"(SELECT {column} FROM costed WHERE ts >= ?{extra}) {extra} "
            "GROUP BY 1 HAVING sum(cost_usd) > ? ORDER BY 2 DESC",
            [now - lookback, *extra_params, *extra_params, budgets[kind]],
        ).fetchall()
        for name, spent in rows:
            found.append(
                Finding(
                    kind,
                    str(name),
                    spent,
                    budgets[kind],
                    f"{kind} {name} spent ${spent:,.2f}, over its budget ${budgets[kind]:,.2f}",
                    _top(view, f"{column} = ?{extra}", [name, *extra_params]),
                )
            )
    alert = cache_hit_alert(view, config, repo=repo)
    if alert is not None:
        found.append(alert)
    return found


def cache_hit_alert(view: View, config: LedgerConfig, *, repo: str | None = None) -> Finding | None:
    """Recent sessions' cache hit rate against the trailing baseline before them."""
    extra, params = _repo_clause(repo)
    rows = view.con.execute(
        "SELECT session_id, max(ts) AS last, sum(cache_read_tokens), "
        "sum(input_tokens + cache_creation_tokens + cache_read_tokens) "
        f"FROM costed WHERE session_id IS NOT NULL{extra} GROUP BY 1 ORDER BY last DESC LIMIT ?",
        [*params, config.recent_sessions + config.baseline_sessions],
    ).fetchall()
    recent, baseline = rows[: config.recent_sessions], rows[config.recent_sessions :]
    if len(recent) < config.recent_sessions or len(baseline) < max(1, config.baseline_sessions // 2):
        return None  # too little history to call it a drop

    def rate(group: list[Any]) -> float:
        prompt = sum(r[3] for r in group)
        return sum(r[2] for r in group) / prompt if prompt else 0.0

    now_rate, base_rate = rate(recent), rate(baseline)
    if base_rate - now_rate <= config.cache_hit_drop:
        return None
    worst = sorted(recent, key=lambda r: (r[2] / r[3]) if r[3] else 0.0)[:TOP]
    return Finding(
        "cache_hit_rate",
        f"last {len(recent)} sessions",
        now_rate,
        base_rate - config.cache_hit_drop,
        f"cache hit rate of the last {len(recent)} sessions is {now_rate:.1%}, down from {base_rate:.1%} "
        f"over the {len(baseline)} before (alert below {base_rate - config.cache_hit_drop:.1%})",
        [{"by": "session", "name": r[0], "cache_hit_rate": round(r[2] / r[3], 4) if r[3] else 0.0} for r in worst],
    )


def window_for_status(now: datetime, tz: str) -> TimeRange:
    local = now.astimezone(ZoneInfo(tz))
    return TimeRange(since=local.replace(hour=0, minute=0, second=0, microsecond=0).astimezone(UTC))


__all__ = ["Filters", "Finding", "cache_hit_alert", "run_checks", "window_for_status"]
