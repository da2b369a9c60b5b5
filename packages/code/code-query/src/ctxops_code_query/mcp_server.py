"""`cq mcp`: the code map's tools (`mcp_tools`) alone on a stdio MCP server (official `mcp` SDK).

The SDK costs ~0.5 s to import on an idle machine and seconds on a loaded one, so the handshake is
answered by `ctxops_contracts.shared.mcplite.Front` from the static manifest (`mcp_manifest.json`); the
SDK server is built in the background after `tools/list` and takes the session over at the first call.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from mcp.server.mcpserver import MCPServer

INSTRUCTIONS = (
    "Code map of {name}: answers in a few hundred tokens. Prefer def/refs/callers/brief over reading whole "
    "files; use open FILE:NAME to read one body."
)


def build_server(root: Path | str) -> MCPServer:
    from pathlib import Path

    from mcp.server.mcpserver import MCPServer

    from . import __version__
    from .mcp_tools import register_tools

    root = Path(root)
    server = MCPServer(name="ctxops-code", version=__version__, instructions=INSTRUCTIONS.format(name=root.name))
    register_tools(server, root)
    return server


def serve(root: str) -> None:
    import os

    from ctxops_contracts.shared.mcplite import Front, version_of

    from .mcp_manifest import tools

    Front(
        name="ctxops-code",
        version=version_of("ctxops-code-query"),
        instructions=INSTRUCTIONS.format(name=os.path.basename(root)),  # noqa: PTH119 - no pathlib here
        tools=tools(),
        build=lambda: build_server(root),
        prog="cq mcp",
    ).serve()
