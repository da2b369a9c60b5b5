"""``ctx ledger statusline``: Claude Code's ``statusLine`` stdin JSON in, one line out, fast.

Nothing heavy on this path (no DuckDB, no msgspec): the session's cost is Claude Code's own
``cost.total_cost_usd`` (or, when absent, priced from the session's transcript with the bundled table);
today's spend, the active block's burn rate and the budget come from a small snapshot,
``<data dir>/state/status.json``, that every ledger command refreshes. When the snapshot is older than a
minute, the status line starts ``python -m ctxops_ledger_report refresh`` in the background (one at a
time) so the next line is current, and answers from the snapshot it has.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

SNAPSHOT = "state/status.json"
REFRESH_LOCK = "state/refresh.lock"
STALE_SECONDS = 60.0


def _data_dir(explicit: str | None) -> Path:
    if explicit:
        return Path(explicit).expanduser()
    from ctxops_contracts.shared.layout import user_data_dir

    return Path(user_data_dir())


def read_snapshot(root: Path) -> dict[str, Any]:
    try:
        data = json.loads((root / SNAPSHOT).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_snapshot(root: Path, snapshot: dict[str, Any]) -> None:
    from ctxops_contracts.shared.files import atomic_write

    (root / SNAPSHOT).parent.mkdir(parents=True, exist_ok=True)
    atomic_write(root / SNAPSHOT, json.dumps(snapshot, separators=(",", ":")), fsync=False)


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
        total += price.cost(
            int(u.get("input_tokens") or 0),
            int(u.get("output_tokens") or 0),
            int(u.get("cache_creation_input_tokens") or 0),
            one_hour,
            int(u.get("cache_read_input_tokens") or 0),
        )
    return total


def _money(value: float) -> str:
    return f"${value:,.2f}"


def _refresh_in_background(root: Path, explicit: str | None) -> None:
    """Start one detached refresh; a running one holds the lock and the new one exits at once."""
    import subprocess

    command = [sys.executable, "-m", "ctxops_ledger_report", "refresh"]
    if explicit:
        command += ["--data-dir", explicit]
    with contextlib.suppress(OSError):
        subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )


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
    today = datetime.now(UTC).astimezone().date().isoformat()
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
    if refresh and stale and os.environ.get("CTXOPS_STATUSLINE_NO_REFRESH") != "1":
        _refresh_in_background(root, data_dir)
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
