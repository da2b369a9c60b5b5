"""Whether the guard leaves a tool event as it is, decided before its handlers are imported.

The most frequent guarded event is a Bash command with a short output, which passes untouched. Core's
``ctx hook`` asks :func:`passes` first: deciding takes the output's length and the ``[guard]`` settings
(``config``), while importing the handlers (``hook``, its patterns and helpers) costs more than the rest
of the guard's work on such an event. ``passes`` is True only when ``hook.handle_event`` would return None
with no effect beyond reading the settings; anything it is not sure of (a wrapped command's exit-status
trailer, a possible re-read by ``cat``, an output near the threshold) goes to the handlers.
"""

from __future__ import annotations

from .config import load_config

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# What hook.py's handlers use too: the PreToolUse wrapper's trailer starts with TRAILER; a Bash output
# shorter than MIN_REREAD is never answered as a re-read.
TRAILER = "[ctxops-exit"
MIN_REREAD = 400
_TRAILER_SPAN = 4_400  # at least what hook.py searches: the last 4,096 characters and the trailer before them
# Agents whose hook output can replace a tool's result in its own shape (docs/agent-integration.md): Codex
# 0.171 and Gemini CLI 0.61 cannot, so the guard answers nothing for them.
SUPPORTED_AGENTS = ("claude-code",)


def passes(payload: dict[str, Any], root: str, *, agent: str = "claude-code") -> bool:
    """True when the guard would leave this event untouched: a small Bash output (or an agent it does not
    answer). False means "ask the handlers", not "it will be changed"."""
    try:
        if agent not in SUPPORTED_AGENTS:
            return True
        if payload.get("hook_event_name") != "PostToolUse" or payload.get("tool_name") != "Bash":
            return False
        response = payload.get("tool_response")
        if not isinstance(response, dict) or not isinstance(response.get("stdout"), str):
            return True
        stdout: str = response["stdout"]
        stderr = str(response.get("stderr") or "")
        if TRAILER in stdout[-_TRAILER_SPAN:]:  # the trailer ends the output (hook.py looks no further)
            return False
        cfg = load_config(root)
        if not stderr and cfg.read_dedupe and len(stdout) >= MIN_REREAD:
            return False  # perhaps `cat` of a file read before
        joiner = 1 if stderr and stdout and not stdout.endswith("\n") else 0
        return len(stdout) + joiner + len(stderr) < cfg.min_chars or not cfg.tool_on("Bash")
    except Exception:  # the handlers decide, and log what went wrong
        return False
