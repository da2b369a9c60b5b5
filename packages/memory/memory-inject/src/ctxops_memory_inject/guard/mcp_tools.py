"""MCP tool ``out_show``: the full text of a tool output the context guard summarized (``ctx mcp`` loads
this through the ``ctxops.mcp_tools`` entry point ``guard``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ctxops_contracts.shared.cli import CliError

from .cli import show

DESCRIPTION = (
    "Full text of a tool output that ctxops summarized; the summary's last line names the ID. "
    "Optional: lines='A:B' for a 1-based range, or grep='REGEX' for matching lines."
)


def register_tools(server: Any, root: Path) -> None:
    """Add ``out_show`` to ``server`` (an ``mcp.server.mcpserver.MCPServer``), answering for ``root``."""

    def out_show(id: str, lines: str | None = None, grep: str | None = None) -> str:
        try:
            result = show(str(root), id, lines=lines, grep=grep)
        except CliError as error:
            return f"error: {error.message} ({error.fix})"
        numbered = result["lines"]
        assert isinstance(numbered, list)
        if not numbered:
            return f"no lines of output {id} match"
        return "\n".join(f"{n}  {line}" for n, line in numbered)

    server.add_tool(out_show, name="out_show", description=DESCRIPTION, structured_output=False)
