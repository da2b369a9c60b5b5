# ruff: noqa: PTH118
"""What went into an agent's context, as ``ContextRecord`` lines the ledger reads (memory ids, tokens).

Built as a plain dict with exactly the record's fields and written with ``json``: importing msgspec (behind
``ctxops_contracts.ContextRecord``) costs the hook ~35 ms. Tests decode every line with the strict
``ctxops_contracts.decode(ContextRecord, line)``, so the contract stays the one definition.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import UTC, datetime

from ctxops_contracts.ids import new_ulid
from ctxops_contracts.shared import jsonlite
from ctxops_contracts.shared.files import append_lines
from ctxops_contracts.shared.layout import context_records_dir
from ctxops_contracts.shared.lazylog import get_logger
from ctxops_contracts.versioning import SCHEMA_VERSION

AGENTS = frozenset({"claude-code", "codex", "gemini", "cursor", "generic"})

log = get_logger(__name__)


def records_path(now: datetime | None = None) -> str:
    stamp = now or datetime.now(UTC)
    return os.path.join(context_records_dir(), f"context-{stamp:%Y-%m}.jsonl")


def record_context(
    action: str,
    *,
    memory_ids: Sequence[str],
    tokens: int,
    repo: str | None,
    agent: str | None = None,
    session_id: str | None = None,
    hook: str | None = None,
    budget: int | None = None,
    omitted: int = 0,
    tokenizer: str | None = None,
) -> dict[str, object] | None:
    """Append one record (action ``inject`` or ``recall``); a failure is logged, never raised."""
    now = datetime.now(UTC)
    stamp = now.isoformat()
    record: dict[str, object] = {
        "schema_version": SCHEMA_VERSION,
        "id": new_ulid(),
        "ts": stamp[:-6] + "Z" if stamp.endswith("+00:00") else stamp,
        "action": action,
        "agent": agent if agent in AGENTS else None,
        "session_id": session_id,
        "task_id": None,
        "repo": repo,
        "hook": hook,
        "memory_ids": list(memory_ids),
        "tokens": tokens,
        "tokens_before": None,
        "budget": budget,
        "omitted": omitted,
        "tool_name": None,
        "command": None,
        "output_id": None,
        "tokenizer": tokenizer,
    }
    try:
        line = jsonlite.dumps(record, ensure_ascii=False, compact=True) + "\n"
        append_lines(records_path(now), line.encode("utf-8"))
    except OSError as exc:
        log.warning("context record not written: %s", exc)
        return None
    return record
