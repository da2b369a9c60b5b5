"""Claude Code hooks: JSON on stdin with ``hook_event_name`` and per-event fields."""

from __future__ import annotations

from ctxops_hooks_capture.draft import Draft

from .common import as_str, command_from_input, prompt_text, tool_drafts

TYPE_CHECKING = False  # typing is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    from typing import Any

# Events that carry nothing worth keeping (notifications that the UI is idle, display-only streams).
_NOISE = {"MessageDisplay", "UserPromptExpansion"}
_IDLE_NOTIFICATIONS = {"idle_prompt", "auth_success"}


def base_fields(payload: dict[str, Any], *, task_key: str = "prompt_id") -> dict[str, Any]:
    return {
        "session_id": as_str(payload.get("session_id")),
        "task_id": as_str(payload.get(task_key)),
        "cwd": as_str(payload.get("cwd")),
    }


def adapt(payload: dict[str, Any]) -> list[Draft]:
    """Drafts for one Claude Code hook payload."""
    return adapt_hook_family(payload, task_key="prompt_id")


def adapt_hook_family(payload: dict[str, Any], *, task_key: str) -> list[Draft]:
    """Claude Code's event family, which Codex hooks share (with ``turn_id`` in place of ``prompt_id``)."""
    event = as_str(payload.get("hook_event_name")) or ""
    base = base_fields(payload, task_key=task_key)
    name = as_str(payload.get("tool_name"))
    if event == "SessionStart":
        source = as_str(payload.get("source")) or "startup"
        model = as_str(payload.get("model"))
        text = f"{source}" + (f" (model {model})" if model else "")
        return [Draft(kind="session_start", event_name=event, text=text, **base)]
    if event == "UserPromptSubmit":
        return [
            Draft(kind="user_message", event_name=event, text=prompt_text(payload.get("prompt")), prompt=True, **base)
        ]
    if event == "PreToolUse":
        return [
            Draft(kind="tool_call", event_name=event, tool_name=name, tool_use_id=_id(payload), pending=True, **base)
        ]
    if event == "PostToolUse":
        draft = tool_drafts(
            event_name=event,
            tool_name=name,
            tool_input=payload.get("tool_input"),
            tool_response=payload.get("tool_response"),
            base=base,
            interrupted=bool(
                isinstance(payload.get("tool_response"), dict) and payload["tool_response"].get("interrupted")
            ),
        )
        draft.tool_use_id = _id(payload)
        return [draft]
    if event == "PostToolUseFailure":
        interrupted = bool(payload.get("is_interrupt"))
        draft = tool_drafts(
            event_name=event,
            tool_name=name,
            tool_input=payload.get("tool_input"),
            tool_response=payload.get("tool_response"),
            base=base,
            failed=True,
            error=as_str(payload.get("error")),
            interrupted=interrupted,
        )
        draft.tool_use_id = _id(payload)
        return [draft]
    if event == "PostToolBatch":
        drafts: list[Draft] = []
        for call in payload.get("tool_calls") or []:
            if isinstance(call, dict):
                draft = tool_drafts(
                    event_name=event,
                    tool_name=as_str(call.get("tool_name")),
                    tool_input=call.get("tool_input"),
                    tool_response=call.get("tool_response"),
                    base=base,
                )
                draft.tool_use_id = as_str(call.get("tool_use_id"))
                drafts.append(draft)
        return drafts
    if event == "PermissionRequest":
        # Claude Code and Codex: the agent is about to ask the user; tool_input says for what.
        data = payload.get("tool_input")
        what = command_from_input(data) or (as_str(data.get("description")) if isinstance(data, dict) else None)
        text = f"{name or 'tool'} permission requested: {what or as_str(data) or ''}".strip()
        return [Draft(kind="tool_call", event_name=event, tool_name=name, tool_use_id=_id(payload), text=text, **base)]
    if event == "PermissionDenied":
        text = f"{name or 'tool'} denied: {as_str(payload.get('reason')) or ''}".strip()
        return [Draft(kind="tool_call", event_name=event, tool_name=name, tool_use_id=_id(payload), text=text, **base)]
    if event == "SubagentStart":
        agent_type = as_str(payload.get("agent_type")) or "subagent"
        text = f"{agent_type} subagent started ({as_str(payload.get('agent_id')) or 'no id'})"
        return [Draft(kind="tool_call", event_name=event, tool_name=agent_type, text=text, **base)]
    if event in {"Stop", "SubagentStop"}:
        text = as_str(payload.get("last_assistant_message")) or ""
        subagent_type = as_str(payload.get("agent_type"))
        return [
            Draft(
                kind="agent_message",
                event_name=event,
                tool_name=subagent_type if event == "SubagentStop" else None,
                text=text,
                **base,
            )
        ]
    if event == "StopFailure":
        text = f"{as_str(payload.get('error')) or 'error'}: {as_str(payload.get('last_assistant_message')) or ''}"
        return [Draft(kind="agent_message", event_name=event, text=text, exit_status=1, **base)]
    if event in {"PreCompact", "PostCompact"}:
        trigger = as_str(payload.get("trigger")) or ""
        extra = as_str(payload.get("custom_instructions")) or as_str(payload.get("compact_summary")) or ""
        return [Draft(kind="compaction", event_name=event, text=f"{trigger} {extra}".strip(), **base)]
    if event == "SessionEnd":
        return [Draft(kind="session_end", event_name=event, text=as_str(payload.get("reason")) or "", **base)]
    if event == "Notification":
        kind = as_str(payload.get("notification_type")) or ""
        text = as_str(payload.get("message")) or ""
        return [
            Draft(
                kind="unknown",
                event_name=event,
                text=f"{kind}: {text}".strip(": "),
                noise=kind in _IDLE_NOTIFICATIONS,
                **base,
            )
        ]
    if event == "FileChanged":
        path = as_str(payload.get("file_path")) or as_str(payload.get("path"))
        return [Draft(kind="file_modification", event_name=event, files=[path] if path else [], text=event, **base)]
    return [unknown(payload, event, base)]


def unknown(payload: dict[str, Any], event: str, base: dict[str, Any]) -> Draft:
    """An event this adapter does not know: kept (kind ``unknown``) with its payload as text."""
    return Draft(kind="unknown", event_name=event or None, text=as_str(payload), noise=event in _NOISE, **base)


def _id(payload: dict[str, Any]) -> str | None:
    return as_str(payload.get("tool_use_id"))
