"""``ctx ledger statusline``: Claude Code's ``statusLine`` stdin JSON in, one line out, fast.

Nothing heavy on this path (no DuckDB, no msgspec): the session's cost is Claude Code's own
``cost.total_cost_usd`` (or, when absent, priced from the session's transcript with the bundled table);
today's spend, the active block's burn rate and the budget come from a small snapshot,
``<data dir>/state/status.json``, that every ledger command refreshes. When the snapshot is older than a
minute, the status line starts ``python -m ctxops_ledger_report refresh`` in the background (at most one a
minute: a marker file's mtime says when the last one was started) so the next line is current, and answers
from the snapshot it has. Claude Code runs this as a fresh process on every update, so the path imports only
``json`` and ``os`` beyond the interpreter's start-up: no ``pathlib``, ``datetime`` or ``subprocess`` (the
background refresh is started with ``os.posix_spawn``).
"""

# os.path, not pathlib: importing pathlib costs this fresh process milliseconds.
# ruff: noqa: PTH111, PTH116, PTH118, PTH120
from __future__ import annotations

import json
import os
import sys
import time

TYPE_CHECKING = False  # not `from typing import TYPE_CHECKING`: importing typing costs this path milliseconds
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

SNAPSHOT = "state/status.json"
REFRESH_LOCK = "state/refresh.lock"
REFRESH_STARTED = "state/refresh.started"  # its mtime: when a status line last started a background refresh
STALE_SECONDS = 60.0


def _data_dir(explicit: str | None) -> str:
    if explicit:
        return os.path.expanduser(explicit)
    from ctxops_contracts.shared.layout import user_data_dir

    return user_data_dir()


def read_snapshot(root: str | Path) -> dict[str, Any]:
    try:
        with open(os.path.join(root, SNAPSHOT), encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_snapshot(root: str | Path, snapshot: dict[str, Any]) -> None:
    from pathlib import Path

    from ctxops_contracts.shared.files import atomic_write

    target = Path(root) / SNAPSHOT
    atomic_write(target, json.dumps(snapshot, separators=(",", ":")), fsync=False)


def _transcript_cost(path: str) -> float | None:
    """Price a transcript's assistant messages (each message id once, its last usage) with the bundled table."""
    from .prices import PriceBook

    try:
        handle = open(path, encoding="utf-8", errors="replace")  # noqa: SIM115 - closed below
    except OSError:
        return None
    usage: dict[str, tuple[str, dict[str, Any]]] = {}
    with handle:
        for line in handle:
            if '"usage"' not in line or '"assistant"' not in line:
                continue
            try:
                entry = json.loads(line)
                message = entry["message"]
                key = f"{message.get('id')}:{entry.get('requestId')}"
                usage[key] = (str(message.get("model") or ""), message["usage"])
            except (ValueError, KeyError, TypeError):
                continue
    book = PriceBook.bundled()
    total = 0.0
    for model, u in usage.values():
        price = book.lookup(model)
        if price is None:
            continue
        one_hour = int((u.get("cache_creation") or {}).get("ephemeral_1h_input_tokens") or 0)
        geo = u.get("inference_geo")
        total += price.cost(
            int(u.get("input_tokens") or 0),
            int(u.get("output_tokens") or 0),
            int(u.get("cache_creation_input_tokens") or 0),
            one_hour,
            int(u.get("cache_read_input_tokens") or 0),
            web_search_requests=int((u.get("server_tool_use") or {}).get("web_search_requests") or 0),
            inference_geo=geo if isinstance(geo, str) else None,
        )
    return total


def _money(value: float) -> str:
    return f"${value:,.2f}"


def _claim_refresh(root: str, now: float) -> bool:
    """True when no status line started a refresh in the last minute; then this one records that it does.

    Without this every update of a stale (or missing) snapshot would start a process that loads the ledger,
    only for all but the first to find the refresh lock held."""
    marker = os.path.join(root, REFRESH_STARTED)
    try:
        if now - os.stat(marker).st_mtime < STALE_SECONDS:
            return False
    except OSError:
        pass
    try:
        from ctxops_contracts.shared.confine import ensure_dir, open_regular

        ensure_dir(os.path.dirname(marker))  # 0700: the per-user data directory is private
        os.close(open_regular(marker, os.O_WRONLY | os.O_CREAT, 0o600))
        os.utime(marker, (now, now))
    except OSError:
        return False
    return True


def _refresh_in_background(explicit: str | None) -> None:
    """Start one detached refresh (its own session; the agent's pipe is not held)."""
    from ctxops_contracts.shared.detach import python_module_argv, spawn_detached

    command = python_module_argv("ctxops_ledger_report", "refresh")
    if explicit:
        command += ["--data-dir", explicit]
    try:
        spawn_detached(command)
    except OSError:
        return


def status_line(
    payload: dict[str, Any], *, data_dir: str | None = None, now: float | None = None, refresh: bool = True
) -> str:
    root = _data_dir(data_dir)
    snapshot = read_snapshot(root)
    now = now if now is not None else time.time()
    parts: list[str] = []
    cost = payload.get("cost") if isinstance(payload.get("cost"), dict) else {}
    session_cost = cost.get("total_cost_usd") if isinstance(cost, dict) else None
    if not isinstance(session_cost, int | float) and isinstance(payload.get("transcript_path"), str):
        session_cost = _transcript_cost(payload["transcript_path"])
    if isinstance(session_cost, int | float):
        parts.append(f"session {_money(float(session_cost))}")
    today = time.strftime("%Y-%m-%d", time.localtime(now))  # the local day, as the snapshot keys its days
    day_cost = (snapshot.get("days") or {}).get(today)
    if isinstance(day_cost, int | float):
        parts.append(f"today {_money(float(day_cost))}")
    block = snapshot.get("active_block") or {}
    end = block.get("end_epoch")
    if isinstance(end, int | float) and end > now and isinstance(block.get("cost_per_hour"), int | float):
        left = int((end - now) // 60)
        parts.append(f"block {_money(block['cost_per_hour'])}/h, {left // 60}h{left % 60:02d}m left")
    budget = (snapshot.get("budgets") or {}).get("day")
    if isinstance(budget, int | float) and isinstance(day_cost, int | float):
        remaining = budget - day_cost
        parts.append(f"budget {_money(remaining)} left" if remaining >= 0 else f"OVER budget by {_money(-remaining)}")
    updated = snapshot.get("updated_epoch")
    stale = not isinstance(updated, int | float) or now - updated > STALE_SECONDS
    if refresh and stale and os.environ.get("CTXOPS_STATUSLINE_NO_REFRESH") != "1" and _claim_refresh(root, now):
        _refresh_in_background(data_dir)
    return "ctx " + (" · ".join(parts) if parts else "ledger: no data yet")


def main(argv: list[str] | None = None) -> int:
    """Read the payload from stdin, print one line; never fail the agent's status line."""
    args = list(sys.argv[1:] if argv is None else argv)
    data_dir = None
    if "--data-dir" in args:
        position = args.index("--data-dir")
        if position + 1 < len(args):
            data_dir = args[position + 1]
    try:
        raw = sys.stdin.read()
        payload = json.loads(raw) if raw.strip() else {}
        if not isinstance(payload, dict):
            payload = {}
    except (ValueError, OSError):
        payload = {}
    try:
        line = status_line(payload, data_dir=data_dir)
    except Exception:
        line = "ctx ledger: unavailable"
    sys.stdout.write(line + "\n")
    return 0
