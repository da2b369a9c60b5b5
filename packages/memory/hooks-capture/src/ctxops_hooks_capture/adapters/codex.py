"""Codex CLI: hooks (Claude Code's event family, ``turn_id`` and ``model`` added) and the legacy ``notify``."""

from __future__ import annotations

from ctxops_hooks_capture.draft import Draft

from .claude_code import adapt_hook_family
from .common import as_str, exit_status_of, prompt_text

TYPE_CHECKING = False  # typing is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    from typing import Any


def adapt(payload: dict[str, Any]) -> list[Draft]:
    """Drafts for one Codex hook payload."""
    drafts = adapt_hook_family(payload, task_key="turn_id")
    response = payload.get("tool_response")
    if payload.get("hook_event_name") == "PostToolUse" and isinstance(response, str):
        # Codex 0.171 sends a shell command's output alone (no exit code): the status is read from the
        # rollout Codex names in the payload (codex_rollout), and is unknown, not 0, when it is not there.
        for draft in drafts:
            if draft.kind == "command_execution" and exit_status_of(response) is None:
                from .codex_rollout import rollout_exit_code

                transcript = payload.get("ctxops_transcript_path") or payload.get("transcript_path")
                draft.exit_status = rollout_exit_code(as_str(transcript), as_str(payload.get("tool_use_id")))
    model = as_str(payload.get("model"))
    for draft in drafts:
        if draft.kind == "session_start" and model and "model" not in (draft.text or ""):
            draft.text = f"{draft.text} (model {model})"
    return drafts


def adapt_notify(payload: dict[str, Any]) -> list[Draft]:
    """Codex's ``notify`` program: one JSON argument per finished turn (``agent-turn-complete``)."""
    kind = as_str(payload.get("type")) or ""
    base: dict[str, Any] = {
        "session_id": as_str(payload.get("thread-id") or payload.get("thread_id") or payload.get("session_id")),
        "task_id": as_str(payload.get("turn-id") or payload.get("turn_id")),
        "cwd": as_str(payload.get("cwd")),
    }
    if kind != "agent-turn-complete":
        return [Draft(kind="unknown", event_name=kind or None, text=as_str(payload), **base)]
    drafts: list[Draft] = []
    inputs = payload.get("input-messages") or payload.get("input_messages") or []
    texts = [prompt_text(m) for m in inputs if isinstance(m, str)] if isinstance(inputs, list) else []
    prompts = [m for m in texts if m.strip()]
    if prompts:
        drafts.append(Draft(kind="user_message", event_name=kind, text="\n\n".join(prompts), prompt=True, **base))
    message = as_str(payload.get("last-assistant-message") or payload.get("last_assistant_message"))
    drafts.append(Draft(kind="agent_message", event_name=kind, text=message or "", **base))
    return drafts
