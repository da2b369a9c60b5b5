"""A run's calls, from the ledger: everything the agent's transcripts (or the proxy) recorded for its checkout."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class RunUsage:
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float = 0.0
    resident_tokens: int = 0  # the prompt of the run's last call: what stayed in the context window at the end
    sessions: list[str] = field(default_factory=list)
    models: list[str] = field(default_factory=list)

    @property
    def prompt_tokens(self) -> int:
        return self.input_tokens + self.cache_read_tokens + self.cache_write_tokens


class LedgerMissing(RuntimeError):
    """ctxops-ledger-report is not installed: a bench has nothing to price its runs with."""


def ingest(ctx_argv: tuple[str, ...], data_dir: Path | None) -> str | None:
    """Read the new transcript lines into the ledger (a process of its own: it takes the ledger's lock)."""
    argv = [*ctx_argv, "ledger", *(["--data-dir", str(data_dir)] if data_dir else []), "ingest", "--json"]
    done = subprocess.run(argv, capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        return (done.stderr or done.stdout).strip()[-500:] or f"ledger ingest exited {done.returncode}"
    return None


def usage_of(repo: str, session_id: str | None, data_dir: Path | None) -> RunUsage:
    """The calls made in ``repo`` (the checkout's root, as the ledger names it); by session when none match."""
    try:
        from ctxops_ledger_report.store import open_view
    except ModuleNotFoundError:
        raise LedgerMissing("ctx bench needs the ledger: pip install ctxops-ledger-report") from None
    columns = "ts, session_id, model, input_tokens, output_tokens, cache_creation_tokens, cache_read_tokens, cost_usd"
    with open_view(data_dir) as view:
        query = f"SELECT {columns} FROM costed WHERE repo = ? ORDER BY ts"
        rows: list[Any] = view.con.execute(query, [repo]).fetchall()
        if not rows and session_id:
            rows = view.con.execute(
                f"SELECT {columns} FROM costed WHERE session_id = ? ORDER BY ts", [session_id]
            ).fetchall()
    usage = RunUsage()
    for _ts, session, model, inp, out, write, read, cost in rows:
        usage.calls += 1
        usage.input_tokens += int(inp or 0)
        usage.output_tokens += int(out or 0)
        usage.cache_write_tokens += int(write or 0)
        usage.cache_read_tokens += int(read or 0)
        usage.cost_usd += float(cost or 0.0)
        if session and session not in usage.sessions:
            usage.sessions.append(str(session))
        if model and model not in usage.models:
            usage.models.append(str(model))
    if rows:
        last = rows[-1]
        usage.resident_tokens = int(last[3] or 0) + int(last[5] or 0) + int(last[6] or 0)
    return usage
