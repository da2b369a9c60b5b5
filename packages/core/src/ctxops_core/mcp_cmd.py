"""`ctx mcp`: one stdio MCP server with the tools of every installed ctxops line.

Each package contributes through the entry-point group ``ctxops.mcp_tools``: a callable
``register_tools(server, root)`` that adds its tools to an ``mcp.server.mcpserver.MCPServer``. A package
that is not installed contributes nothing, so its tools are simply absent. A package whose registrar
fails to load is skipped with a line on stderr (stdout belongs to the protocol).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

GROUP = "ctxops.mcp_tools"
log = logging.getLogger(__name__)

Registrar = Callable[[Any, Path], None]


@dataclass(frozen=True)
class Contribution:
    name: str
    distribution: str | None
    load: Callable[[], Registrar]


def contributions() -> list[Contribution]:
    """Installed registrars, one per entry point (the first distribution wins on a name clash)."""
    from importlib.metadata import entry_points

    found: dict[str, Contribution] = {}
    for ep in entry_points(group=GROUP):
        if ep.name not in found:
            dist = ep.dist.name if ep.dist is not None else None
            found[ep.name] = Contribution(ep.name, dist, ep.load)
    return list(found.values())


def build_server(root: Path, registrars: Iterable[tuple[str, Registrar]] | None = None) -> tuple[Any, list[str]]:
    """The server with every contribution's tools, and the names of the contributions that failed."""
    from mcp.server.mcpserver import MCPServer

    from . import __version__

    server = MCPServer(
        name="ctxops",
        version=__version__,
        instructions=(
            f"ctxops for the repository {root.name}: the code map (code_* tools: answers in a few hundred "
            "tokens; prefer them to reading whole files), memories and the token ledger, where installed."
        ),
    )
    failed: list[str] = []
    if registrars is None:
        registrars = _load_all(failed, root)
    for name, register in registrars:
        try:
            register(server, root)
        except Exception as exc:  # one broken package must not take the other lines' tools down
            log.warning("ctx mcp: %s tools not registered: %s", name, exc)
            sys.stderr.write(f"ctx mcp: {name} tools not registered: {type(exc).__name__}: {exc}\n")
            failed.append(name)
    return server, failed


def switched_on(found: list[Contribution], on: frozenset[str]) -> list[Contribution]:
    """The contributions of the lines that are on (``lines``); shared tools only when every line is."""
    from .lines import LINES, MCP_CONTRIBUTIONS

    if on >= set(LINES):
        return found
    return [c for c in found if MCP_CONTRIBUTIONS.get(c.name) in on]


def _load_all(failed: list[str], root: Path | None = None) -> list[tuple[str, Registrar]]:
    from .lines import LinesError, enabled

    loaded: list[tuple[str, Registrar]] = []
    found = contributions()
    try:
        found = switched_on(found, enabled(str(root) if root else None))
    except LinesError as exc:
        sys.stderr.write(f"ctx mcp: {exc}; every line's tools are listed\n")
    for contribution in found:
        try:
            loaded.append((contribution.name, contribution.load()))
        except Exception as exc:
            sys.stderr.write(f"ctx mcp: {contribution.name} tools not loaded: {type(exc).__name__}: {exc}\n")
            failed.append(contribution.name)
    return loaded


def tool_names(server: Any) -> list[str]:
    """The names of the tools a built server offers (for `ctx mcp --list` and `ctx doctor`)."""
    import anyio

    async def names() -> list[str]:
        return [tool.name for tool in await server.list_tools()]

    return anyio.run(names)


def main(argv: list[str]) -> int:
    from ctxops_contracts.shared import cli as grammar
    from ctxops_contracts.shared.repo import NotARepository, find_root

    parser = grammar.Parser(prog="ctx mcp", description=__doc__.splitlines()[0])
    grammar.add_common_options(parser, subcommand=False)
    parser.add_argument("--list", action="store_true", help="print the tools the server would offer, then exit")
    args = parser.parse_args(argv)
    try:
        root = Path(find_root(explicit=args.root))
    except NotARepository as exc:
        return grammar.report_error(grammar.CliError(exc.message, exc.fix), prog="ctx mcp", json_mode=args.json)
    try:
        server, failed = build_server(root)
    except ModuleNotFoundError as exc:
        error = grammar.CliError(f"the MCP SDK is not installed ({exc.name})", fix="pip install 'mcp>=1.20'")
        return grammar.report_error(error, prog="ctx mcp", json_mode=args.json)
    if args.list:
        names = tool_names(server)
        if args.json:
            grammar.emit_json({"tools": names, "failed": failed})
        else:
            print("\n".join(names) if names else "no tools: no ctxops package with MCP tools is installed")
        return grammar.EXIT_OK if names else grammar.EXIT_EMPTY
    sys.stderr.write(f"ctx mcp: serving {root} over stdio\n")
    server.run("stdio")
    return grammar.EXIT_OK
