"""The one place the capture path builds an ``AgentEvent``: as a plain dict with exactly the record's fields.

The hook runs on every agent event and importing msgspec (behind ``ctxops_contracts.AgentEvent``) costs more
than Python's own start-up, so the record is built here and written with the standard library. The contract
stays the single source of truth: tests check that ``agent_event`` has exactly ``AgentEvent.__struct_fields__``
in order, and decode every line written with the strict ``ctxops_contracts.decode(AgentEvent, line)``.
Readers get ``AgentEvent`` structs (``events_reader``), or ``ctxops_contracts.convert(AgentEvent, record)``.
"""

from __future__ import annotations

import time

from ctxops_contracts.versioning import SCHEMA_VERSION

TYPE_CHECKING = False  # typing is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    from datetime import datetime
    from typing import Any

    EventRecord = dict[str, Any]


def rfc3339(ts: datetime | str) -> str:
    """``ts`` (UTC) as msgspec writes it: ``2026-11-29T10:00:00Z``, microseconds only when non-zero.

    A string is taken as already written so (``utc_now``).
    """
    if isinstance(ts, str):
        return ts
    text = ts.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def utc_now(now_ns: int | None = None) -> str:
    """The current time as ``rfc3339`` writes it, without importing datetime (the hook path)."""
    seconds, rest = divmod(time.time_ns() if now_ns is None else now_ns, 1_000_000_000)
    micro = rest // 1000
    text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    return f"{text}.{micro:06d}Z" if micro else f"{text}Z"


def agent_event(
    *,
    id: str,
    ts: datetime | str,
    agent: str,
    kind: str,
    event_name: str | None = None,
    session_id: str | None = None,
    task_id: str | None = None,
    repo: str | None = None,
    cwd: str | None = None,
    tool_name: str | None = None,
    tool_use_id: str | None = None,
    text: str | None = None,
    files: list[str] | None = None,
    command: str | None = None,
    exit_status: int | None = None,
    tests_passed: int | None = None,
    tests_failed: int | None = None,
    corrects: str | None = None,
    source_event: str | None = None,
    raw_ref: str | None = None,
) -> EventRecord:
    """An ``AgentEvent`` as a JSON-ready dict, fields in the record's order (an unknown keyword is a TypeError)."""
    return {
        "schema_version": SCHEMA_VERSION,
        "id": id,
        "ts": rfc3339(ts),
        "agent": agent,
        "kind": kind,
        "event_name": event_name,
        "session_id": session_id,
        "task_id": task_id,
        "repo": repo,
        "cwd": cwd,
        "tool_name": tool_name,
        "tool_use_id": tool_use_id,
        "text": text,
        "files": list(files) if files else [],
        "command": command,
        "exit_status": exit_status,
        "tests_passed": tests_passed,
        "tests_failed": tests_failed,
        "corrects": corrects,
        "source_event": source_event,
        "raw_ref": raw_ref,
    }
