"""Shared end-to-end harness: a scripted Anthropic-compatible model server and a real Claude Code runner."""

from .claude_code import (
    ClaudeCodeInstallError,
    ClaudeRun,
    claude_code_version,
    claude_env,
    ensure_claude_code,
    run_claude,
    transcripts,
)
from .model_server import ScriptedModelServer
from .project_config import (
    OBSERVABLE_HOOK_EVENTS,
    hook_recorder_command,
    read_hook_payloads,
    write_hooks,
    write_mcp_config,
)
from .scenario import (
    Scenario,
    Text,
    ToolUse,
    Turn,
    Usage,
    freeform_tool,
    seeded_usage,
    subagent,
    text,
    tool_use,
    turn,
)
from .transcript import transcript_usages

__all__ = [
    "OBSERVABLE_HOOK_EVENTS",
    "ClaudeCodeInstallError",
    "ClaudeRun",
    "Scenario",
    "ScriptedModelServer",
    "Text",
    "ToolUse",
    "Turn",
    "Usage",
    "claude_code_version",
    "claude_env",
    "ensure_claude_code",
    "freeform_tool",
    "hook_recorder_command",
    "read_hook_payloads",
    "run_claude",
    "seeded_usage",
    "subagent",
    "text",
    "tool_use",
    "transcript_usages",
    "transcripts",
    "turn",
    "write_hooks",
    "write_mcp_config",
]
