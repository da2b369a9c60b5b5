"""core's own MCP tool for `ctx mcp`: the doctor's findings, so an agent can see what is wired and fresh."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def register_tools(server: Any, root: Path) -> None:
    def doctor() -> str:
        from .doctor import diagnose, render

        return render(diagnose(root))

    server.add_tool(
        doctor,
        name="ctxops_doctor",
        description="What ctxops has wired in this repository (agents, git hooks), index freshness, the watch "
        "daemon, locks and ledger sources, with the command that fixes each problem.",
        structured_output=False,
    )
