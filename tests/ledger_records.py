"""UsageRecords written the way token-capture writes them (JSONL under a data dir), for ledger report tests."""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ctxops_contracts import Attribution, UsageRecord, decode
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


# Claude Code transcript lines, as the client writes them.


def records_in(root: Path) -> list[UsageRecord]:
    return [
        decode(UsageRecord, line)
        for path in sorted((root / "usage").glob("*.jsonl"))
        for line in path.read_bytes().splitlines()
        if line.strip()
    ]


def assistant_line(
    message_id: str,
    request_id: str | None,
    usage: dict[str, Any],
    *,
    ts: str,
    block: dict[str, Any],
    session: str = "s-1",
    sidechain: bool = False,
    model: str = "claude-opus-5-5",
) -> str:
    line: dict[str, Any] = {
        "parentUuid": None,
        "isSidechain": sidechain,
        "type": "assistant",
        "uuid": f"u-{message_id}-{block.get('type')}",
        "timestamp": ts,
        "cwd": "/home/dev/shop",
        "sessionId": session,
        "gitBranch": "main",
        "message": {"id": message_id, "role": "assistant", "model": model, "content": [block], "usage": usage},
    }
    if request_id:
        line["requestId"] = request_id
    return json.dumps(line)


def usage_dict(inp: int, out: int, write: int = 0, read: int = 0, one_hour: int = 0) -> dict[str, Any]:
    return {
        "input_tokens": inp,
        "output_tokens": out,
        "cache_creation_input_tokens": write,
        "cache_read_input_tokens": read,
        "cache_creation": {"ephemeral_1h_input_tokens": one_hour, "ephemeral_5m_input_tokens": write - one_hour},
    }


def write_transcript(config: Path, name: str, lines: list[str]) -> Path:
    """A Claude Code transcript `name` of one project under the config directory `config`."""
    folder = config / "projects" / "-home-dev-shop"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("\n".join(lines) + "\n")
    return path
