"""Gemini CLI hooks: stdin JSON with ``hook_event_name`` (BeforeAgent, AfterTool, ...) and ``timestamp``."""

from __future__ import annotations

from ctxops_hooks_capture.draft import Draft

from .claude_code import unknown
from .common import as_dict, as_str, prompt_text, tool_drafts

TYPE_CHECKING = False  # typing is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    from typing import Any

# Model hooks fire per request and per streamed chunk: heartbeats, not events.
_NOISE = {"BeforeModel", "AfterModel", "BeforeToolSelection"}


def adapt(payload: dict[str, Any]) -> list[Draft]:
    """Drafts for one Gemini CLI hook payload."""
    event = as_str(payload.get("hook_event_name")) or ""
    base: dict[str, Any] = {
        "session_id": as_str(payload.get("session_id")),
        "task_id": None,
        "cwd": as_str(payload.get("cwd")),
        "ts": as_str(payload.get("timestamp")),
    }
    name = as_str(payload.get("tool_name"))
    if event == "SessionStart":
        return [
            Draft(
                kind="session_start",
                event_name=event,
                text=as_str(payload.get("source") or payload.get("trigger")) or "",
                **base,
            )
        ]
    if event == "SessionEnd":
        return [
            Draft(
                kind="session_end",
                event_name=event,
                text=as_str(payload.get("reason") or payload.get("trigger")) or "",
                **base,
            )
        ]
    if event == "BeforeAgent":
        return [
            Draft(kind="user_message", event_name=event, text=prompt_text(payload.get("prompt")), prompt=True, **base)
        ]
    if event == "AfterAgent":
        return [
            Draft(kind="agent_message", event_name=event, text=as_str(payload.get("prompt_response")) or "", **base)
        ]
    if event == "BeforeTool":
        return [Draft(kind="tool_call", event_name=event, tool_name=name, pending=True, **base)]
    if event == "AfterTool":
        response = payload.get("tool_response")
        error = as_str(as_dict(response).get("error")) if isinstance(response, dict) else None
        return [
            tool_drafts(
                event_name=event,
                tool_name=name,
                tool_input=payload.get("tool_input"),
                tool_response=response,
                base=base,
                failed=bool(error),
                error=error,
            )
        ]
    if event == "PreCompress":
        trigger = as_str(payload.get("trigger")) or ""
        draft = Draft(kind="compaction", event_name=event, text=trigger, **base)
        # Gemini CLI 0.61 fires PreCompress "auto" before every model turn, before deciding whether to
        # compress (ChatCompressionService.compress): only a manual /compress is surely a compaction.
        draft.noise = trigger != "manual"
        return [draft]
    if event == "Notification":
        text = f"{as_str(payload.get('notification_type')) or ''}: {as_str(payload.get('message')) or ''}".strip(": ")
        return [Draft(kind="unknown", event_name=event, text=text, **base)]
    draft = unknown(payload, event, base)
    draft.noise = draft.noise or event in _NOISE
    return [draft]
