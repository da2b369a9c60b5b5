"""The generic JSON form, for any agent that can run a command: fields named like ``AgentEvent``'s.

Example: ``{"kind": "command_execution", "session_id": "s1", "cwd": "/repo", "command": "make test",
"exit_status": 2, "output": "..."}``. ``kind`` defaults to ``user_message`` when ``prompt`` is given.
"""

from __future__ import annotations

from ctxops_hooks_capture.draft import Draft

from .common import as_str, prompt_text

TYPE_CHECKING = False  # typing is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    from typing import Any

KINDS = frozenset(
    {
        "user_message",
        "agent_message",
        "command_execution",
        "file_modification",
        "file_read",
        "tool_call",
        "test_result",
        "user_correction",
        "session_start",
        "session_end",
        "compaction",
    }
)


def adapt(payload: dict[str, Any]) -> list[Draft]:
    """Drafts for one generic payload; an unrecognised ``kind`` is stored as ``unknown`` with its name."""
    prompt = as_str(payload.get("prompt"))
    kind = as_str(payload.get("kind") or payload.get("event")) or ("user_message" if prompt is not None else "")
    files = payload.get("files")
    exit_status = payload.get("exit_status")
    draft = Draft(
        kind=kind if kind in KINDS else "unknown",
        event_name=as_str(payload.get("event_name")) or kind or None,
        session_id=as_str(payload.get("session_id")),
        task_id=as_str(payload.get("task_id")),
        cwd=as_str(payload.get("cwd")),
        tool_name=as_str(payload.get("tool_name")),
        tool_use_id=as_str(payload.get("tool_use_id")),
        text=prompt_text(prompt) if prompt is not None else as_str(payload.get("text")),
        output=as_str(payload.get("output")),
        files=[f for f in files if isinstance(f, str)] if isinstance(files, list) else [],
        command=as_str(payload.get("command")),
        exit_status=exit_status if isinstance(exit_status, int) and not isinstance(exit_status, bool) else None,
        ts=as_str(payload.get("ts")),
        prompt=kind in {"user_message", "user_correction"},
    )
    if draft.kind == "unknown" and draft.text is None:
        draft.text = as_str(payload)
    return [draft]
