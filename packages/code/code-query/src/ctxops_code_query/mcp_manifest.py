"""The static `tools/list` of this package's MCP tools (`mcp_manifest.json`), so `ctx mcp` answers the
handshake without importing the SDK (`ctxops_contracts.shared.mcplite`). Regenerate after changing a tool
(`test_mcp_front` fails while it differs from what the SDK lists):

    python -m ctxops_contracts.shared.mcplite ctxops_code_query.mcp_tools:register_tools \\
        packages/code/code-query/src/ctxops_code_query/mcp_manifest.json
"""

from __future__ import annotations

from ctxops_contracts.shared.mcplite import manifest

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def tools() -> list[dict[str, Any]]:
    return manifest(__file__, "mcp_manifest.json")
