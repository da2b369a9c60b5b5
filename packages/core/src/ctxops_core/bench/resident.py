"""What each ctxops line left in the context window at the end of a run, read from Claude Code's transcript.

A run's last call says how large the context was (``resident_tokens``, from the ledger); this says how much of
it ctxops put there: memory blocks injected by hooks (``<ctxops-memory>``) and the memory tools' answers
(memory), the code map tools' answers (map), the context guard's summaries and ``out_show`` (guard). Counted
with cl100k (the ledger's counter for text; Claude's own tokenizer is not public), so a share, not a bill.
Other agents' transcripts are not read: their runs report no component split.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

MCP_PREFIX = "mcp__ctxops__"
MEMORY_TOOLS = {"remember", "recall", "forget", "inject"}
GUARD_TOOLS = {"out_show"}
GUARD_MARKS = ("[ctxops guard:", "[full output: ctx out show")  # its summaries' header and trailer
MEMORY_MARK = "<ctxops-memory"
MAX_TRANSCRIPT = 256 * 1024 * 1024


def transcript(session_id: str) -> Path | None:
    """The Claude Code transcript of ``session_id`` (``$CLAUDE_CONFIG_DIR`` or ``~/.claude``), or None."""
    if not session_id or "/" in session_id or session_id.startswith("."):
        return None
    base = Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude") / "projects"
    found = sorted(base.glob(f"*/{session_id}.jsonl")) if base.is_dir() else []
    return found[0] if found else None


def _entries(path: Path) -> Iterator[dict[str, Any]]:
    if path.stat().st_size > MAX_TRANSCRIPT:
        return
    with path.open("rb") as fh:
        for line in fh:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, dict) and not entry.get("isSidechain"):
                yield entry


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            part if isinstance(part, str) else _text(part.get("text", part.get("content")))
            for part in content
            if isinstance(part, str | dict)
        )
    return ""


def _line_of(tool: str) -> str | None:
    if not tool.startswith(MCP_PREFIX):
        return None
    name = tool[len(MCP_PREFIX) :]
    if name.startswith("code_"):
        return "map"
    if name in MEMORY_TOOLS:
        return "memory"
    return "guard" if name in GUARD_TOOLS else None


def split(path: Path) -> dict[str, int]:
    """Tokens per line (map, memory, guard) that the main conversation of ``path`` holds."""
    from ctxops_contracts.shared.bpe import tokenizer

    count = tokenizer().count
    tools: dict[str, str] = {}
    found = {"map": 0, "memory": 0, "guard": 0}
    for entry in _entries(path):
        attachment = entry.get("attachment")
        if isinstance(attachment, dict) and attachment.get("type") == "hook_additional_context":
            text = _text(attachment.get("content"))
            if MEMORY_MARK in text:
                found["memory"] += count(text)
            continue
        message = entry.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use":
                tools[str(block.get("id"))] = str(block.get("name") or "")
            elif block.get("type") == "tool_result":
                text = _text(block.get("content"))
                line = _line_of(tools.get(str(block.get("tool_use_id")), ""))
                if line is None and any(mark in text for mark in GUARD_MARKS):
                    line = "guard"  # a tool's output the guard replaced with its summary
                if line:
                    found[line] += count(text)
    return found


def components(agent: str, session_id: str | None) -> dict[str, int] | None:
    """The split for a finished run, or None where it cannot be read (another agent, no transcript)."""
    if agent != "claude-code" or not session_id:
        return None
    path = transcript(session_id)
    if path is None:
        return None
    try:
        return split(path)
    except (OSError, RuntimeError):
        return None
