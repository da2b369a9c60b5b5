"""Write a test project's Claude Code configuration: hooks in .claude/settings.json, MCP servers in .mcp.json."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

# Hook events whose hooks only observe when they exit 0 with no output (so recording them changes nothing).
# Left out: WorktreeCreate/WorktreeRemove (the hook replaces git's work) and Elicitation* (answers MCP prompts).
OBSERVABLE_HOOK_EVENTS: tuple[str, ...] = (
    "SessionStart",
    "Setup",
    "InstructionsLoaded",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "PreToolUse",
    "PermissionRequest",
    "PermissionDenied",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Notification",
    "SubagentStart",
    "SubagentStop",
    "TaskCreated",
    "TaskCompleted",
    "Stop",
    "StopFailure",
    "PreCompact",
    "PostCompact",
    "CwdChanged",
    "ConfigChange",
    "SessionEnd",
)

RECORDER = Path(__file__).with_name("hook_recorder.py")


def hook_recorder_command(out_file: Path) -> str:
    """A hook command that appends its stdin payload (one JSON line) to `out_file`."""
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(RECORDER))} {shlex.quote(str(out_file))}"


def write_hooks(
    project: Path,
    command: str,
    events: Iterable[str] = OBSERVABLE_HOOK_EVENTS,
    *,
    enable_project_mcp: bool = True,
    extra_settings: Mapping[str, Any] | None = None,
    timeout_seconds: int = 30,
) -> Path:
    """Write `.claude/settings.json` running `command` on every one of `events` (all tools matched).

    Merges into an existing settings file, keeping its other keys and hooks of other events.
    """
    path = project / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    settings: dict[str, Any] = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    hooks = settings.setdefault("hooks", {})
    for event in events:
        entry = {"matcher": "*", "hooks": [{"type": "command", "command": command, "timeout": timeout_seconds}]}
        hooks.setdefault(event, []).append(entry)
    if enable_project_mcp:
        settings["enableAllProjectMcpServers"] = True
    settings.update(extra_settings or {})
    path.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    return path


def write_mcp_config(project: Path, servers: Mapping[str, Mapping[str, Any]]) -> Path:
    """Write `.mcp.json` with stdio servers, e.g. {"cq": {"command": "python", "args": ["-m", "x"]}}."""
    path = project / ".mcp.json"
    body = {"mcpServers": {name: {"type": "stdio", **dict(spec)} for name, spec in servers.items()}}
    path.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")
    return path


def read_hook_payloads(out_file: Path) -> list[dict[str, Any]]:
    """The payloads a `hook_recorder_command` collected, in arrival order."""
    if not out_file.is_file():
        return []
    return [json.loads(line) for line in out_file.read_text(encoding="utf-8").splitlines() if line.strip()]
