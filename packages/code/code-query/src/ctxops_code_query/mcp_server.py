"""`cq mcp`: the code map's tools (`mcp_tools`) alone on a stdio MCP server (official `mcp` SDK).

Imported only by `cq mcp`: the SDK costs ~0.5 s to import.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer

from . import __version__
from .mcp_tools import INSTRUCTIONS, register_tools


def build_server(root: Path) -> MCPServer:
    server = MCPServer(name="ctxops-code", version=__version__, instructions=INSTRUCTIONS.format(name=root.name))
    register_tools(server, root)
    return server


def serve(root: Path) -> None:
    print(f"cq mcp: serving {root} over stdio", file=sys.stderr)
    build_server(root).run("stdio")
