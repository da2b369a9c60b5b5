"""`ctx mcp`: one stdio MCP server with the tools of every installed ctxops line.

Each package contributes through the entry-point group ``ctxops.mcp_tools``: a callable
``register_tools(server, root)`` that adds its tools to an ``mcp.server.mcpserver.MCPServer``. A package
that is not installed contributes nothing, so its tools are simply absent. A package whose registrar
fails to load is skipped with a line on stderr (stdout belongs to the protocol).

The handshake (``initialize``, ``tools/list``) is answered from the packages' static manifests
(entry-point group ``ctxops.mcp_manifest``, same names) before anything heavy is imported
(``ctxops_contracts.shared.mcplite``); the SDK server built here takes the session over at the first
tool call. A contribution without a manifest makes the SDK server answer the handshake itself (slow).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # the handshake path imports neither typing nor pathlib nor dataclasses
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from pathlib import Path
    from typing import Any

    Registrar = Callable[[Any, Path], None]

GROUP = "ctxops.mcp_tools"
MANIFEST_GROUP = "ctxops.mcp_manifest"


class Contribution:
    __slots__ = ("distribution", "load", "name")

    def __init__(self, name: str, distribution: str | None, load: Callable[[], Registrar]) -> None:
        self.name = name
        self.distribution = distribution
        self.load = load


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
    from .codeties import install

    install()  # the `remember` tool ties memories to the symbols they name (issue 23); not on the handshake

    server = MCPServer(name="ctxops", version=__version__, instructions=instructions(str(root)))
    failed: list[str] = []
    if registrars is None:
        registrars = _load_all(failed, root)
    for name, register in registrars:
        try:
            register(server, root)
        except Exception as exc:  # one broken package must not take the other lines' tools down
            import logging

            logging.getLogger(__name__).warning("ctx mcp: %s tools not registered: %s", name, exc)
            sys.stderr.write(f"ctx mcp: {name} tools not registered: {type(exc).__name__}: {exc}\n")
            failed.append(name)
    return server, failed


def instructions(root: str) -> str:
    name = os.path.basename(root)  # noqa: PTH119 - the handshake path does not import pathlib
    return (
        f"ctxops for the repository {name}: the code map (code_* tools: answers in a few hundred "
        "tokens; prefer them to reading whole files), memories and the token ledger, where installed."
    )


def switched_on(names: list[str], root: str | None) -> list[str]:
    """The contributions of the lines switched on in ``root`` (``ctxops_core.lines``: ``CTXOPS_LINES`` or
    ``[lines]`` in ``.meta/config.toml``); core's and the ledger's shared tools only when every line is on.
    A malformed setting keeps every contribution (and says so on stderr)."""
    from .lines import LINES, MCP_CONTRIBUTIONS, LinesError, enabled

    try:
        on = enabled(root)
    except LinesError as exc:
        sys.stderr.write(f"ctx mcp: {exc}; every line's tools are listed\n")
        return names
    if on >= set(LINES):
        return names
    return [name for name in names if MCP_CONTRIBUTIONS.get(name) in on]


def static_tools(root: str | None = None) -> list[dict[str, Any]] | None:
    """Every installed contribution's tools from its static manifest (group ``ctxops.mcp_manifest``), or
    None when one has none (a third-party package: then the SDK server answers the handshake itself)."""
    from ctxops_contracts.shared.mcplite import entry_points, load

    manifests = dict(entry_points(MANIFEST_GROUP))
    tools: list[dict[str, Any]] = []
    for name in switched_on([name for name, _ in entry_points(GROUP)], root):
        if name not in manifests:
            return None
        try:
            tools.extend(load(manifests[name])())
        except Exception as exc:
            sys.stderr.write(f"ctx mcp: {name} manifest not loaded: {type(exc).__name__}: {exc}\n")
            return None
    return tools


def _load_all(failed: list[str], root: Path | None = None) -> list[tuple[str, Registrar]]:
    loaded: list[tuple[str, Registrar]] = []
    found = contributions()
    on = set(switched_on([c.name for c in found], str(root) if root else None))
    for contribution in (c for c in found if c.name in on):
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
    from ctxops_contracts.shared.mcplite import fast_root

    found = fast_root(argv)  # plain `ctx mcp [--root DIR]`: the handshake first, no argparse
    if found is not None:
        code = _serve_front(found)
        if code is not None:
            return code
    return _main(argv)


def _serve_front(root: str) -> int | None:
    """Serve with the static handshake (None when a contribution has no manifest)."""
    tools = static_tools(root)
    if tools is None:
        return None
    from ctxops_contracts.shared.mcplite import Front, version_of

    front = Front(
        name="ctxops",
        version=version_of("ctxops"),
        instructions=instructions(root),
        tools=tools,
        build=lambda: _built(root),
        prog="ctx mcp",
    )
    return front.serve()


def _built(root: str) -> Any:
    from pathlib import Path

    return build_server(Path(root))[0]


def _main(argv: list[str]) -> int:
    from pathlib import Path

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
    if not args.list:
        code = _serve_front(str(root))
        if code is not None:
            return code
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
