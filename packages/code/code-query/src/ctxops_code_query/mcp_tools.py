"""The code map's MCP tools (`code_def`, `code_refs`, ...): `register_tools(server, root)` adds them to an
`MCPServer` (the official `mcp` SDK). `ctx mcp` finds it through the entry-point group
`ctxops.mcp_tools`; `cq mcp` (`mcp_server`) serves them alone.

Every tool answers with the text a model reads (the `cq` output, budgeted and capped, with the index
footer). Each description states the limits and how to narrow a query, because that is what a model
needs to call it well. Imported only by `cq mcp`: the SDK costs ~0.5 s to import.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from .errors import CqError
from .service import Request, execute

LIMITS = "Max 10 hits, ~300 tokens; '... and N more' marks the rest (raise max/budget or narrow)."
NAME_FORMS = "NAME, Class.method, module.NAME (json.loads), or path/to/file.py:NAME"

Name = Annotated[str, Field(description=f"symbol name: {NAME_FORMS}")]
MaxHits = Annotated[int | None, Field(description="hit cap (default 10)", ge=1, le=500)]
Budget = Annotated[int | None, Field(description="token budget (default 300)", ge=20, le=20000)]
Depth = Annotated[int, Field(description="hops, 1-6", ge=1, le=6)]

TOOLS: dict[str, str] = {
    "def": "Find the definition of a symbol (where it is defined): path:line, signature, first body lines. "
    f"Name as {NAME_FORMS}. {LIMITS} Narrow an ambiguous name by qualifying it or prefixing its file.",
    "refs": "All references to (usages of) a symbol, grouped by file, with role (call/import/inherit/type/read): "
    "certain ones first, then uses of the bare name that nothing resolved, labelled 'possible, by name only'. "
    f"{LIMITS} Narrow with path:NAME, or use callers for calls only.",
    "callers": "Who calls a symbol (depth 1-6): certain callers first, each with how it was resolved "
    f"(import, self, typed-receiver, ...), then name-only candidates labelled apart. {LIMITS} "
    "Narrow with a qualified name or a lower depth.",
    "callees": f"What a symbol calls (depth 1-6), with confidence. {LIMITS} Narrow with a qualified name.",
    "brief": "Outline of one file: every top-level symbol with its line and signature, members as name:line, "
    "no bodies or docs. Max 500 hits, ~1000 tokens; '... and N more' marks the rest (raise budget). "
    "Read a body next with open FILE:NAME.",
    "deps": f"What a file imports and which files import it (or a symbol's file). {LIMITS}",
    "impact": f"What breaks if a symbol changes: transitive callers (depth default 3), affected files and "
    f"tests to run. {LIMITS} Narrow with a qualified name or lower depth.",
    "map": f"The repository's most central files with their key symbols; pass words to rank for a topic. {LIMITS}",
    "grep": "Regex search with ripgrep (respects .gitignore), grouped by file. Max 10 lines, ~300 tokens; "
    "narrow with paths, a glob, fixed=True or word=True. Prefer refs/def for symbols.",
    "open": "Read a bounded slice: FILE, FILE:A-B (lines) or FILE:NAME (a symbol's body). Max 80 lines, ~1200 "
    "tokens; paths outside the repository are refused. Ask for a narrower range to read more precisely.",
    "search": "Fuzzy/natural-language search: ranks a few candidate files by names, paths and docs, then the "
    "functions in them; answers the top 5 (name, kind, doc line) grouped by file, ~300 tokens; raise max for "
    "more. Add distinctive words; use def once you know a name.",
    "status": "Index freshness: revision, stale files, sizes, languages, skipped files. Small, fixed output.",
}


# Commands a provisional scan answers while the first full build runs; the others need the graph.
PROVISIONAL_COMMANDS = ("def", "brief", "refs", "callers", "callees", "impact", "deps")
# A server outlives one call, unlike `cq`: a graph command waits for a first build this long (MCP clients
# allow tool calls far longer) instead of answering "retry in a few seconds" to an agent that cannot wait.
GRAPH_BUILD_WAIT_S = 90.0


def _wait_for_first_build(root: Path, timeout: float) -> bool:
    """Poll until the detached first build has committed; False when it did not within ``timeout``."""
    import time

    from .graph_backend import _graph

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _graph().rebuild_reason(root):
            return True
        time.sleep(0.25)
    return False


def register_tools(server: MCPServer, root: Path) -> None:
    """Add the code map's tools, answering about the repository at ``root``, to ``server``."""

    def run(command: str, params: dict[str, Any], max_hits: int | None = None, budget: int | None = None) -> str:
        from .graph_backend import index_or_provisional

        try:
            provisional = None if command in ("grep", "open") else index_or_provisional(root, deadline_s=2.0)
            if (
                provisional is not None
                and command not in PROVISIONAL_COMMANDS
                and _wait_for_first_build(root, GRAPH_BUILD_WAIT_S)
            ):
                provisional = None
            request = Request(
                command=command, params=params, max_hits=max_hits, budget=budget, use_cache=provisional is None
            )
            outcome = execute(root, request, open_index=None if provisional is None else lambda _root: provisional)
        except CqError as exc:
            raise ToolError(f"{exc.kind}: {exc}") from exc
        return outcome.rendered.text

    def def_(name: Name, max: MaxHits = None, budget: Budget = None) -> str:
        return run("def", {"name": name}, max, budget)

    def refs(name: Name, max: MaxHits = None, budget: Budget = None) -> str:
        return run("refs", {"name": name}, max, budget)

    def callers(name: Name, depth: Depth = 1, max: MaxHits = None, budget: Budget = None) -> str:
        return run("callers", {"name": name, "depth": depth}, max, budget)

    def callees(name: Name, depth: Depth = 1, max: MaxHits = None, budget: Budget = None) -> str:
        return run("callees", {"name": name, "depth": depth}, max, budget)

    def brief(
        path: Annotated[str, Field(description="repository-relative file path")],
        max: MaxHits = None,
        budget: Budget = None,
    ) -> str:
        return run("brief", {"path": path}, max, budget)

    def deps(
        target: Annotated[str, Field(description="a file path or a symbol name")],
        max: MaxHits = None,
        budget: Budget = None,
    ) -> str:
        return run("deps", {"target": target}, max, budget)

    def impact(name: Name, depth: Depth = 3, max: MaxHits = None, budget: Budget = None) -> str:
        return run("impact", {"name": name, "depth": depth}, max, budget)

    def map_(
        words: Annotated[str, Field(description="topic words (optional)")] = "",
        max: MaxHits = None,
        budget: Budget = None,
    ) -> str:
        return run("map", {"query": words or None, "limit": max or 10}, max, budget)

    def grep(
        pattern: Annotated[str, Field(description="a Rust regex (or a literal with fixed=True)")],
        *,
        paths: Annotated[list[str] | None, Field(description="repository-relative paths to search")] = None,
        glob: Annotated[str | None, Field(description="only files matching this glob, e.g. '*.py'")] = None,
        fixed: bool = False,
        ignore_case: bool = False,
        word: bool = False,
        max: MaxHits = None,
        budget: Budget = None,
    ) -> str:
        params = {
            "pattern": pattern,
            "paths": paths or [],
            "fixed": fixed,
            "ignore_case": ignore_case,
            "word": word,
            "globs": [glob] if glob else [],
        }
        return run("grep", params, max, budget)

    def open_(
        target: Annotated[str, Field(description="FILE, FILE:A-B or FILE:NAME")],
        max: MaxHits = None,
        budget: Budget = None,
    ) -> str:
        return run("open", {"spec": target}, max, budget)

    def search(
        text: Annotated[str, Field(description="what the code does, in words")],
        max: MaxHits = None,
        budget: Budget = None,
    ) -> str:
        return run("search", {"text": text}, max, budget)

    def status() -> str:
        from .graph_backend import ensure_index
        from .reports import status_text

        try:
            ensure_index(root, interactive=False)
            return status_text(root)
        except CqError as exc:
            raise ToolError(f"{exc.kind}: {exc}") from exc

    functions: dict[str, Callable[..., str]] = {
        "def": def_,
        "refs": refs,
        "callers": callers,
        "callees": callees,
        "brief": brief,
        "deps": deps,
        "impact": impact,
        "map": map_,
        "grep": grep,
        "open": open_,
        "search": search,
        "status": status,
    }
    for command, fn in functions.items():
        server.add_tool(fn, name=f"code_{command}", description=TOOLS[command], structured_output=False)
