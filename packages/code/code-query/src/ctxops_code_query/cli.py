"""`cq`: answers about code in a few hundred tokens (DESIGN.md section 4).

Startup matters (`cq def` competes with `rg`), so this module imports nothing heavy at load time: a plain
`cq def` is answered by `fastpath` before argparse is even imported, and everything else is imported
when a command needs it.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing is not imported before the fast path has had its chance
if TYPE_CHECKING:
    import argparse
    from typing import Any

EPILOG = """exit codes: 0 results, 1 no results, 2 usage or environment error (the message names the fix),
3 deadline expired (partial results, marked).
names: NAME, Class.method (qualified) or path/to/file.py:NAME."""


# The name usage lines give this command when `ctx` did not set one; `python -m` sets its own.
DEFAULT_PROG = "cq"


def _common(p: argparse.ArgumentParser, *, suppress: bool) -> None:
    """Flags every subcommand takes (also accepted before the subcommand)."""
    import argparse

    d: Any = argparse.SUPPRESS if suppress else None
    p.add_argument("--json", action="store_true", default=d if suppress else False, help="QueryResult as JSON")
    p.add_argument(
        "--max",
        type=int,
        default=d,
        metavar="N",
        help="at most N hits (default 10; search: 5; open: 80 lines; brief: 500)",
    )
    p.add_argument(
        "--budget", type=int, default=d, metavar="TOKENS", help="token budget (default 300; open: 1200; brief: 1000)"
    )
    p.add_argument("--stats", action="store_true", default=d if suppress else False, help="print the token count")
    p.add_argument(
        "--deadline", type=float, default=d if suppress else 2.0, metavar="S", help="seconds before partial (default 2)"
    )
    p.add_argument("--root", default=d, metavar="DIR", help="repository root (default: found from the cwd)")
    p.add_argument("--width", type=int, default=d if suppress else 160, metavar="COLS", help="line width cap")
    p.add_argument("--no-cache", action="store_true", default=d if suppress else False, help="bypass the result cache")


def build_parser() -> argparse.ArgumentParser:
    import argparse

    from ctxops_contracts.shared.cli import Parser, typed_prog

    parser = Parser(
        prog=typed_prog(DEFAULT_PROG),
        description="Answers about code in a few hundred tokens: definitions, references, callers, outlines, "
        "dependencies, impact, a ranked map, grep, bounded reads and search.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _common(parser, suppress=False)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, help_: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_, description=help_, epilog=EPILOG)
        _common(p, suppress=True)
        return p

    add("def", "definitions: path:line  signature, then the first body lines").add_argument("name")
    add("refs", "references grouped by file, with roles").add_argument("name")
    for name, what in (("callers", "who calls NAME"), ("callees", "what NAME calls")):
        p = add(name, f"{what}: one hop or --depth N, with confidence")
        p.add_argument("name")
        p.add_argument("--depth", type=int, default=1, metavar="N", help="hops (1-6, default 1)")
    add(
        "brief",
        "outline of a file: every top-level symbol with its line and signature, members as name:line"
        " (large ones folded); FILE:Name outlines one class or struct",
    ).add_argument("path", metavar="FILE[:Name]")
    add("deps", "what a file (or a symbol's file) imports and what imports it").add_argument(
        "target", metavar="NAME|FILE"
    )
    p = add("impact", "what breaks if NAME changes: transitive callers, files, tests")
    p.add_argument("name")
    p.add_argument("--depth", type=int, default=3, metavar="N", help="hops (1-6, default 3)")
    add("map", "ranked files with their key symbols (optionally for a topic)").add_argument(
        "query", nargs="*", metavar="WORDS"
    )
    p = add("grep", "ripgrep (bundled), grouped by file")
    p.add_argument("pattern")
    p.add_argument("paths", nargs="*", metavar="PATH")
    p.add_argument("-i", "--ignore-case", action="store_true", help="match case-insensitively")
    p.add_argument("-F", "--fixed-strings", action="store_true", help="PATTERN is a literal string, not a regex")
    p.add_argument("-w", "--word-regexp", action="store_true", help="match whole words only")
    p.add_argument(
        "-g",
        "--glob",
        action="append",
        default=[],
        metavar="GLOB",
        help="only files matching GLOB (repeatable; !GLOB excludes), as ripgrep's -g",
    )
    add("open", "a bounded slice of a file: FILE, FILE:A-B or FILE:NAME").add_argument("spec", metavar="TARGET")
    p = add("search", "fuzzy/semantic: structure narrows to a few files, then chunks are ranked")
    p.add_argument("text", nargs="+")
    p.add_argument("--vector", action="store_true", help="add vector ranking (needs the `vector` extra)")
    p.add_argument("--files", type=int, default=5, metavar="K", help="candidate files (default 5)")
    p = add("index", "build or update the index")
    p.add_argument("--full", action="store_true", help="rebuild from scratch")
    p.add_argument("--vectors", action="store_true", help="also embed every chunk (the `vector` extra)")
    way = p.add_mutually_exclusive_group()
    way.add_argument(
        "--export",
        dest="export_path",
        metavar="FILE",
        help="update the index, then write it to FILE (one portable archive, keyed by the commit)",
    )
    way.add_argument(
        "--import",
        dest="import_path",
        metavar="FILE",
        help="install the index in FILE (verified first), then update what differs from the working tree",
    )
    add("status", "index freshness, sizes, languages, skipped files")
    p = add("export", "write the index in another tool's format: --scip FILE (Sourcegraph's SCIP protobuf)")
    p.add_argument("--scip", dest="scip_path", metavar="FILE", required=True, help="the SCIP index to write")
    add("mcp", "serve the same operations as MCP tools over stdio")
    p = add("serve", "answer cq queries over a local socket (saves each query its start-up imports)")
    p.add_argument("--idle", type=float, default=1800, metavar="S", help="exit after S idle seconds (default 1800)")
    return parser


def _params(args: argparse.Namespace) -> dict[str, Any]:
    c = args.command
    if c in ("def", "refs"):
        return {"name": args.name}
    if c in ("callers", "callees", "impact"):
        return {"name": args.name, "depth": args.depth}
    if c == "brief":
        return {"path": args.path}
    if c == "deps":
        return {"target": args.target}
    if c == "map":
        return {"query": " ".join(args.query) or None, "limit": args.max or 10}
    if c == "grep":
        return {
            "pattern": args.pattern,
            "paths": list(args.paths),
            "fixed": args.fixed_strings,
            "ignore_case": args.ignore_case,
            "word": args.word_regexp,
            "globs": list(args.glob),
        }
    if c == "open":
        return {"spec": args.spec}
    if c == "search":
        return {"text": " ".join(args.text), "vector": args.vector, "files": args.files}
    raise AssertionError(c)


def main(argv: list[str] | None = None) -> int:
    if argv is None and sys.argv[1:2] == ["mcp"]:
        # `cq mcp` answers its handshake before anything heavy (or argparse) is imported (mcp_server).
        import os

        from ctxops_contracts.shared.mcplite import fast_root

        if os.environ.get("CQ_ROOT") and not os.environ.get("CTXOPS_ROOT"):  # as repo.alias_root_env
            os.environ["CTXOPS_ROOT"] = os.environ["CQ_ROOT"]
        found = fast_root(sys.argv[2:])
        if found is not None:
            from .mcp_server import serve

            serve(found)
            return 0
    elif argv is None:
        # As a process: a plain `cq def` is answered with the standard library only (`fastpath`), and a
        # running `cq serve` answers anything else without this process importing anything heavy.
        from .fastpath import try_fast

        fast = try_fast(sys.argv[1:])
        if fast is not None:
            return fast
        from .server import try_server

        served = try_server(sys.argv[1:])
        if served is not None:
            return served
    parser = build_parser()
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.command is None:
        parser.print_help()
        return 2
    from .errors import EXIT_USAGE, CqError

    try:
        return _run(args)
    except CqError as exc:
        _error(args, exc)
        return exc.exit_code if exc.exit_code else EXIT_USAGE
    except KeyboardInterrupt:
        print("cq: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a full or read-only disk: one line (exit 4), not a traceback
        from ctxops_contracts.shared.cli import report_disk_error

        code = report_disk_error(exc, prog=f"cq {args.command}", json_mode=bool(getattr(args, "json", False)))
        if code is None:
            raise
        return code


def _error(args: argparse.Namespace, exc: Any) -> None:
    """The grammar's error: compact JSON on stdout under ``--json`` (with cq's error kind), else two lines
    on stderr."""
    from ctxops_contracts.shared.cli import EXIT_USAGE, emit_json, typed_prog

    if getattr(args, "json", False):
        code = exc.exit_code if exc.exit_code else EXIT_USAGE
        emit_json({"error": {"message": exc.message, "fix": exc.fix, "code": code, "kind": exc.kind}})
        return
    sys.stderr.write(f"{typed_prog(DEFAULT_PROG)}: error: {exc.message}\n")
    if exc.fix:
        sys.stderr.write(f"  fix: {exc.fix}\n")


def _run(args: argparse.Namespace) -> int:
    from .repo import find_root

    root = find_root(args.root)
    if args.command == "mcp":
        from .mcp_server import serve

        serve(str(root))
        return 0
    if args.command == "serve":
        from .graph_backend import ensure_index
        from .server import serve as serve_socket

        ensure_index(root, interactive=sys.stderr.isatty())
        return serve_socket(root, idle_s=args.idle)
    if args.command in ("index", "status", "export"):
        from .reports import run_report

        return run_report(root, args)
    from .service import INDEX_COMMANDS, Request, execute

    provisional = None
    if args.command in INDEX_COMMANDS:
        from .graph_backend import index_or_provisional

        # No usable index yet: the full build goes on in a detached process; this query never waits for it.
        provisional = index_or_provisional(root, deadline_s=args.deadline)
    request = Request(
        command=args.command,
        params=_params(args),
        max_hits=args.max,
        budget=args.budget,
        width=args.width,
        deadline_s=args.deadline,
        use_cache=not args.no_cache and provisional is None,
    )
    outcome = execute(root, request, open_index=None if provisional is None else lambda _root: provisional)
    return emit(outcome.rendered, as_json=args.json, stats=args.stats)


def emit(rendered: Any, *, as_json: bool, stats: bool) -> int:
    """Print one rendered answer (text or JSON) and return its exit code."""
    if as_json:
        from ctxops_contracts import encode

        sys.stdout.write(encode(rendered.result).decode() + "\n")
    else:
        sys.stdout.write(rendered.text + "\n")
        if stats:
            sys.stdout.write(stats_line(rendered.text) + "\n")
    return int(rendered.exit_code)


def stats_line(text: str) -> str:
    from .tokens import TokenizerUnavailable, estimate_tokens, exact_counter

    est = estimate_tokens(text)
    try:
        exact = f", {exact_counter().count(text)} cl100k"
    except TokenizerUnavailable as exc:
        exact = f", no exact count ({exc})"
    return f"-- ~{est} tokens (estimate){exact}, {len(text.encode())} bytes"


if __name__ == "__main__":
    raise SystemExit(main())
