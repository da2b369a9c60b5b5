"""What an adapter makes of one payload, before ids, redaction, caps and session state are applied."""

from __future__ import annotations

from typing import Any

import msgspec


class Draft(msgspec.Struct, kw_only=True):
    """One event as an adapter understood it; the capture pipeline turns it into an ``AgentEvent``."""

    kind: str
    event_name: str | None = None
    session_id: str | None = None
    task_id: str | None = None
    cwd: str | None = None
    tool_name: str | None = None
    tool_use_id: str | None = None
    text: str | None = None
    output: str | None = None
    files: list[str] = msgspec.field(default_factory=list)
    command: str | None = None
    exit_status: int | None = None
    ts: str | None = None
    # Flags for the pipeline, not stored as such.
    prompt: bool = False  # a user prompt: candidate for correction detection
    pending: bool = False  # a tool is about to run (PreToolUse): remembered, not stored
    interrupted: bool = False  # a tool was interrupted or rejected
    noise: bool = False  # heartbeat / streaming chunk: dropped
    raw: dict[str, Any] | None = None
