"""UsageRecords written the way token-capture writes them (JSONL under a data dir), for ledger report tests."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ctxops_contracts import Attribution, UsageRecord
from ctxops_token_capture.jsonl_store import append_records

T0 = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)
_ids = itertools.count()


def record(ts: datetime, **fields: Any) -> UsageRecord:
    n = next(_ids)
    base: dict[str, Any] = {
        "id": f"01J{n:023d}",
        "ts": ts,
        "provider": "anthropic",
        "model": "claude-sonnet-4-5",
        "session_id": "s-1",
        "input_tokens": 100,
        "output_tokens": 50,
        "cache_creation_tokens": 0,
        "cache_read_tokens": 0,
        "origin": "transcript",
        "dedupe_key": f"k-{n}",
    }
    base.update(fields)
    if "attribution" in base:
        base["attribution"] = [Attribution(**a) if isinstance(a, dict) else a for a in base["attribution"]]
    return UsageRecord(**base)


def write(root: Path, records: list[UsageRecord]) -> None:
    append_records(records, "transcript", root)
