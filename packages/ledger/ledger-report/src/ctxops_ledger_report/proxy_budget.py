"""Budgets enforced at ``ctx proxy`` (off by default): a call over a day or session budget is refused.

The spend is the ledger's when the proxy starts (every origin: transcripts, the SDK wrapper, earlier
proxies), plus every call through this proxy since, priced from the same table as reports. A call is refused
once the spend has reached the limit (the call that crosses it completes: its cost is known only after it);
the refusal is the route's provider-shaped 429 (``ctxops_token_capture.proxy.refusal_response``), answered at
once from memory: the proxy never waits on the ledger for a decision.

Calls recorded by other paths while the proxy runs (another agent's transcripts) count from the proxy's next
start. ``ctx ledger check`` still reports every budget after the fact.
"""

from __future__ import annotations

import math
import threading
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from ctxops_contracts.shared.cli import CliError
from ctxops_token_capture.proxy import Refusal

from .prices import PriceBook

DAY, SESSION = "day", "session"


class ProxyBudget:
    """The ``proxy.Gate`` of the budgets: USD spent per day (in ``tz``) and per session."""

    def __init__(self, book: PriceBook, limits: dict[str, float], tz: str = "UTC") -> None:
        self.book = book
        self.limits = limits
        self.zone = ZoneInfo(tz)
        self.tz = tz
        self.by_day: dict[date, float] = {}
        self.by_session: dict[str, float] = {}
        self.lock = threading.Lock()  # charge() runs on the loop; a test may read from another thread

    def load(self, root: Path | None) -> None:
        """The ledger's spend per day and per session so far (the proxy's starting point)."""
        from .store import open_view

        with open_view(root, book=self.book) as view:
            days = view.con.execute(
                "select cast(timezone(?, ts) as date), sum(cost_usd) from costed group by 1", [self.tz]
            ).fetchall()
            sessions = view.con.execute(
                "select session_id, sum(cost_usd) from costed where session_id is not null group by 1"
            ).fetchall()
        with self.lock:
            self.by_day = {day: float(cost or 0.0) for day, cost in days}
            self.by_session = {session: float(cost or 0.0) for session, cost in sessions}

    def refusal(self, api: Any, session_id: str | None) -> Refusal | None:
        with self.lock:
            day_limit = self.limits.get(DAY)
            if day_limit is not None:
                now = datetime.now(self.zone)
                today = now.date()
                spent = self.by_day.get(today, 0.0)
                if spent >= day_limit:
                    midnight = datetime.combine(today + timedelta(days=1), time(), self.zone)
                    return Refusal(
                        f"ctxops budget: the day budget ${day_limit:,.2f} is spent "
                        f"(${spent:,.4f} on {today} {self.tz}); calls resume tomorrow, "
                        "or raise [ledger.budgets] day / --budget-day and restart ctx proxy",
                        (midnight - now).total_seconds(),
                    )
            session_limit = self.limits.get(SESSION)
            if session_limit is not None and session_id:
                spent = self.by_session.get(session_id, 0.0)
                if spent >= session_limit:
                    return Refusal(
                        f"ctxops budget: the session budget ${session_limit:,.2f} is spent (${spent:,.4f} in session "
                        f"{session_id}); start a new session, or raise [ledger.budgets] session / --budget-session "
                        "and restart ctx proxy"
                    )
        return None

    def charge(self, record: Any) -> None:
        cost = self.cost(record)
        if not cost:
            return
        day = record.ts.astimezone(self.zone).date()
        with self.lock:
            self.by_day[day] = self.by_day.get(day, 0.0) + cost
            if record.session_id:
                self.by_session[record.session_id] = self.by_session.get(record.session_id, 0.0) + cost

    def cost(self, record: Any) -> float:
        price = self.book.lookup(record.model)
        if price is None:
            return 0.0
        return price.cost(
            record.input_tokens,
            record.output_tokens,
            record.cache_creation_tokens,
            record.cache_creation_1h_tokens or 0,
            record.cache_read_tokens,
            web_search_requests=record.web_search_requests or 0,
            inference_geo=record.inference_geo,
        )

    def describe(self) -> str:
        parts = [f"{kind} ${limit:,.2f}" for kind, limit in sorted(self.limits.items())]
        return "budgets enforced: " + ", ".join(parts)


def limits_from(args: Any, budgets: dict[str, float], enforce_config: bool) -> dict[str, float]:
    """The limits to enforce: ``--budget-day``/``--budget-session``, else (with ``--enforce-budgets`` or
    ``[ledger.proxy] enforce_budgets = true``) the day and session budgets of ``[ledger.budgets]``."""
    limits: dict[str, float] = {}
    if enforce_config or getattr(args, "enforce_budgets", False):
        limits.update({k: v for k, v in budgets.items() if k in (DAY, SESSION)})
        if not limits:
            raise CliError(
                "--enforce-budgets: no day or session budget in [ledger.budgets]",
                "add `day = 20.0` or `session = 5.0` under [ledger.budgets], or pass --budget-day USD",
            )
    for kind, value in ((DAY, getattr(args, "budget_day", None)), (SESSION, getattr(args, "budget_session", None))):
        if value is not None:
            if not math.isfinite(value) or value < 0:
                raise CliError(f"--budget-{kind} must be a non-negative number of USD, got {value}", "e.g. 20")
            limits[kind] = value
    return limits


def enforce_in_config(files: list[Path]) -> bool:
    """``[ledger.proxy] enforce_budgets = true`` in a config file (later files win)."""
    from .config import _ledger_section

    enforce = False
    for path in files:
        section = _ledger_section(path).get("proxy") or {}
        if isinstance(section, dict) and "enforce_budgets" in section:
            value = section["enforce_budgets"]
            if not isinstance(value, bool):
                raise ValueError(f"{path}: [ledger.proxy] enforce_budgets must be true or false")
            enforce = value
    return enforce


def add_budget_options(p: Any) -> None:
    p.add_argument("--budget-day", type=float, metavar="USD", help="refuse calls once today's spend reaches USD")
    p.add_argument("--budget-session", type=float, metavar="USD", help="refuse a session's calls once it spent USD")
    p.add_argument(
        "--enforce-budgets",
        action="store_true",
        help="enforce the day and session budgets of [ledger.budgets] (also: [ledger.proxy] enforce_budgets = true)",
    )
    p.add_argument("--tz", default="UTC", help="IANA time zone of the day budget's days (default UTC)")


def _run(args: Any) -> int:
    from ctxops_token_capture.cli import data_dir_of, serve_proxy
    from ctxops_token_capture.timerange import check_tz

    from .config import config_files, load_config

    check_tz(args.tz)
    files = config_files(None)  # the user's config: the proxy serves every repository
    try:
        budgets = load_config(files).budgets
        enforce = enforce_in_config(files)
    except ValueError as exc:
        raise CliError(str(exc), "fix the value in that file (see docs/ledger.md, Configuration)") from None
    limits = limits_from(args, budgets, enforce)
    if not limits:
        return int(serve_proxy(args))
    try:
        book = PriceBook.load(files)
    except ValueError as exc:
        raise CliError(str(exc), "fix the value in that file (see docs/ledger.md, Configuration)") from None
    gate = ProxyBudget(book, limits, tz=args.tz)
    gate.load(data_dir_of(args))
    return int(serve_proxy(args, gate=gate, budgets=gate.describe()))


def proxy_command(argv: list[str]) -> int:
    """``ctx proxy --upstream URL [--port N] [--budget-day USD] [--budget-session USD] [--enforce-budgets]``."""
    from ctxops_contracts.shared.cli import Parser, json_requested
    from ctxops_token_capture.cli import PROXY_DESCRIPTION, add_ledger_options, add_proxy_options, run

    parser = Parser(prog="ctx proxy", description=PROXY_DESCRIPTION, json_errors=json_requested(argv))
    add_proxy_options(parser)
    add_budget_options(parser)
    add_ledger_options(parser, subcommand=False, root=False)
    parser.set_defaults(func=_run)
    return run(parser, argv)
