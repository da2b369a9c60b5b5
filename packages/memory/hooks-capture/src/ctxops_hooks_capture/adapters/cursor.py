"""Cursor hooks: stdin JSON with ``hook_event_name`` (camelCase), ``conversation_id``, ``workspace_roots``."""

from __future__ import annotations

from ctxops_hooks_capture.draft import Draft

from .claude_code import unknown
from .common import as_str, prompt_text, tool_class, tool_drafts

TYPE_CHECKING = False  # typing is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    from typing import Any

# The agent's thinking stream and Tab completions are not session events worth keeping.
_NOISE = {"afterAgentThought", "beforeTabFileRead", "afterTabFileEdit"}


def adapt(payload: dict[str, Any]) -> list[Draft]:
    """Drafts for one Cursor hook payload."""
    event = as_str(payload.get("hook_event_name")) or ""
    roots = payload.get("workspace_roots")
    cwd = as_str(payload.get("cwd")) or (as_str(roots[0]) if isinstance(roots, list) and roots else None)
    base: dict[str, Any] = {
        "session_id": as_str(payload.get("conversation_id") or payload.get("session_id")),
        "task_id": as_str(payload.get("generation_id")),
        "cwd": cwd,
    }
    name = as_str(payload.get("tool_name"))
    tool_use_id = as_str(payload.get("tool_use_id"))
    if event == "sessionStart":
        return [Draft(kind="session_start", event_name=event, text=as_str(payload.get("composer_mode")) or "", **base)]
    if event == "sessionEnd":
        return [Draft(kind="session_end", event_name=event, text=as_str(payload.get("reason")) or "", **base)]
    if event == "beforeSubmitPrompt":
        return [
            Draft(kind="user_message", event_name=event, text=prompt_text(payload.get("prompt")), prompt=True, **base)
        ]
    if event in {"afterAgentResponse", "subagentStop"}:
        return [Draft(kind="agent_message", event_name=event, text=as_str(payload.get("text")) or "", **base)]
    if event == "stop":
        # A completed stop repeats what afterAgentResponse said; an aborted or failed one is news.
        status = as_str(payload.get("status")) or "completed"
        failed = status != "completed"
        return [
            Draft(
                kind="agent_message",
                event_name=event,
                text=f"stopped: {status}",
                exit_status=1 if failed else None,
                noise=not failed,
                **base,
            )
        ]
    if event in {"beforeShellExecution", "beforeMCPExecution", "preToolUse"}:
        return [
            Draft(
                kind="tool_call",
                event_name=event,
                tool_name=name or "Shell",
                tool_use_id=tool_use_id,
                pending=True,
                **base,
            )
        ]
    if event == "afterShellExecution":
        draft = tool_drafts(
            event_name=event,
            tool_name="Shell",
            tool_input={"command": payload.get("command")},
            tool_response={"output": payload.get("output"), "exit_code": payload.get("exit_code")},
            base=base,
            exit_unknown=True,  # afterShellExecution carries no exit status: unknown, not 0
        )
        draft.tool_use_id = tool_use_id
        return [draft]
    if event == "afterMCPExecution":
        draft = tool_drafts(
            event_name=event,
            tool_name=name or "MCP",
            tool_input=payload.get("tool_input"),
            tool_response=payload.get("result_json"),
            base=base,
        )
        draft.tool_use_id = tool_use_id
        return [draft]
    if event == "afterFileEdit":
        path = as_str(payload.get("file_path"))
        edits = payload.get("edits")
        count = len(edits) if isinstance(edits, list) else 0
        return [
            Draft(
                kind="file_modification",
                event_name=event,
                tool_name=name or "Edit",
                text=f"{name or 'Edit'} ({count} edits)",
                files=[path] if path else [],
                **base,
            )
        ]
    if event == "beforeReadFile":
        path = as_str(payload.get("file_path"))
        return [Draft(kind="file_read", event_name=event, tool_name="Read", files=[path] if path else [], **base)]
    if event in {"postToolUse", "postToolUseFailure"}:
        # Shell, MCP, read and edit calls also arrive through their dedicated hooks: keep those only once.
        if event == "postToolUse" and (tool_class(name) != "other" or name in {"Shell", "MCP"}):
            return [
                Draft(kind="tool_call", event_name=event, tool_name=name, tool_use_id=tool_use_id, noise=True, **base)
            ]
        error = as_str(payload.get("error_message"))
        draft = tool_drafts(
            event_name=event,
            tool_name=name,
            tool_input=payload.get("tool_input"),
            tool_response=payload.get("tool_output"),
            base=base,
            failed=event == "postToolUseFailure",
            error=error,
        )
        draft.tool_use_id = tool_use_id
        return [draft]
    if event == "preCompact":
        return [Draft(kind="compaction", event_name=event, text=as_str(payload.get("trigger")) or "", **base)]
    draft = unknown(payload, event, base)
    draft.noise = draft.noise or event in _NOISE
    return [draft]
