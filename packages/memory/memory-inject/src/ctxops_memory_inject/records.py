# ruff: noqa: PTH118
"""What went into an agent's context, as ``ContextRecord`` lines the ledger reads (memory ids, tokens)."""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from datetime import UTC, datetime

from ctxops_contracts import ContextRecord, encode_line, new_ulid
from ctxops_contracts.shared.files import append_lines
from ctxops_contracts.shared.layout import context_records_dir

log = logging.getLogger(__name__)


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
) -> ContextRecord | None:
    """Append one record (action ``inject`` or ``recall``); a failure is logged, never raised."""
    now = datetime.now(UTC)
    record = ContextRecord(
        id=new_ulid(),
        ts=now,
        action=action,  # type: ignore[arg-type]
        agent=agent if agent in {"claude-code", "codex", "gemini", "cursor", "generic"} else None,  # type: ignore[arg-type]
        session_id=session_id,
        repo=repo,
        hook=hook,
        memory_ids=list(memory_ids),
        tokens=tokens,
        budget=budget,
        omitted=omitted,
        tokenizer=tokenizer,
    )
    try:
        append_lines(records_path(now), encode_line(record))
    except OSError as exc:
        log.warning("context record not written: %s", exc)
        return None
    return record
