"""Adapters: one per agent, each turning that agent's payload into ``Draft`` events."""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ctxops_hooks_capture.draft import Draft

    Adapter = Callable[[dict[str, Any]], list[Draft]]


def get_adapter(agent: str) -> Adapter:
    """The adapter for ``agent`` (one of ``ctxops_hooks_capture.AGENTS``); ValueError for others."""
    if agent == "claude-code":
        from .claude_code import adapt
    elif agent == "codex":
        from .codex import adapt
    elif agent == "codex-notify":
        from .codex import adapt_notify as adapt
    elif agent == "gemini":
        from .gemini import adapt
    elif agent == "cursor":
        from .cursor import adapt
    elif agent == "generic":
        from .generic import adapt
    else:
        raise ValueError(
            f"unknown agent {agent!r}; expected one of claude-code, codex, codex-notify, gemini, cursor, generic"
        )
    return adapt
