"""Command line: ``python -m ctxops_token_capture ingest|totals|proxy`` and ``ctx proxy``.

The grammar is the toolchain's (docs/cli-reference.md): ``--json``, ``--data-dir`` and ``--root`` go before
or after the command, ``--json`` prints one compact document on stdout (errors too), an empty answer exits
1, ``--since/--until`` take the shared time formats. ``ctx ledger`` (ledger-report) reuses
:func:`add_capture_commands` so ``ingest`` and ``totals`` read the same there.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ctxops_contracts.shared.cli import (
    EXIT_EMPTY,
    EXIT_OK,
    EXIT_USAGE,
    CliError,
    Parser,
    emit_json,
    json_requested,
    plural,
    report_error,
)

PROG = "python -m ctxops_token_capture"
Handler = Callable[[argparse.Namespace], int]


def add_ledger_options(parser: argparse.ArgumentParser, *, subcommand: bool, root: bool = True) -> None:
    """``--data-dir``, ``--json`` (and ``--root`` where rows are selected by repository), either side of the command.

    On subcommands the defaults are suppressed, so a value given before the command survives.
    """

    def default(value: Any) -> Any:
        return argparse.SUPPRESS if subcommand else value

    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        default=default(None),
        help="ledger directory (default: $CTXOPS_DATA_DIR or the user data dir)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        default=default(False),
        help="print one compact JSON document on stdout (errors too)",
    )
    if root:
        parser.add_argument(
            "--root",
            metavar="DIR",
            default=default(None),
            help="only the rows of this repository (default: every repository in the ledger)",
        )


def data_dir_of(args: argparse.Namespace) -> Path | None:
    value = getattr(args, "data_dir", None)
    return Path(value).expanduser() if value else None


def live_note(args: argparse.Namespace) -> str | None:
    """Bring the ledger up to date with the transcripts the last ingest read (``--no-ingest``: only count the
    files that changed); a one-line note for the answer, or None."""
    from .ingest import live

    return live(data_dir_of(args), no_ingest=bool(getattr(args, "no_ingest", False)))


def add_no_ingest(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--no-ingest",
        action="store_true",
        help="answer from the ledger as it is; only say how many transcripts changed since the last ingest",
    )


def repo_filter(args: argparse.Namespace) -> str | None:
    """The repository named by ``--root`` (resolved like every line resolves it), or None for all."""
    value = getattr(args, "root", None)
    if not value:
        return None
    from ctxops_contracts.shared.repo import NotARepository, find_root

    try:
        return find_root(explicit=value)
    except NotARepository as exc:
        raise CliError(exc.message, exc.fix) from None


def _cmd_ingest(args: argparse.Namespace) -> int:
    from .ingest import Sources, ingest

    if args.claude_dir or args.codex_dir or args.gemini_dir:
        sources = Sources(
            claude_dirs=[Path(d).expanduser() for d in args.claude_dir],
            codex_homes=[Path(d).expanduser() for d in args.codex_dir],
            gemini_dirs=[Path(d).expanduser() for d in args.gemini_dir],
        )
    else:
        sources = Sources.defaults()
    try:
        report = ingest(sources, data_dir_of(args), compat=args.compat)
    except FileNotFoundError as exc:
        raise CliError(
            str(exc),
            "pass --claude-dir DIR (holding projects/), --codex-dir DIR (holding sessions/) "
            "or --gemini-dir DIR (a .gemini directory holding tmp/)",
        ) from None
    if args.json:
        emit_json(report.as_dict())
        return EXIT_OK
    if not sources.claude_dirs and not sources.codex_homes and not sources.gemini_dirs:
        print(
            "ingest: no Claude Code, Codex or Gemini CLI transcripts in the default locations "
            "(~/.claude, ~/.codex, ~/.gemini)"
        )
    print(f"ingest: {report.summary()}; {plural(report.loaded, 'call')} added to the ledger")
    for example in report.examples[:5]:
        print(f"  refused {example}", file=sys.stderr)
    return EXIT_OK


def _cmd_totals(args: argparse.Namespace) -> int:
    from .timerange import TimeRange, check_tz
    from .totals import format_table, parse_groups, totals

    try:
        by = parse_groups(args.by)
    except ValueError as exc:
        raise CliError(str(exc), "for example --by day,model") from None
    check_tz(args.tz)
    window = TimeRange.parse(args.since, args.until, tz=args.tz)
    fresh = live_note(args)
    result = totals(by, tz=args.tz, root=data_dir_of(args), window=window, repo=repo_filter(args))
    if fresh:
        result.note = f"{result.note}; {fresh}" if result.note else fresh
        if not args.json:
            print(f"note: {fresh}", file=sys.stderr)
    if args.json:
        emit_json(result.as_dict())
    elif result.rows:
        print(format_table(result))
    else:
        print(f"no calls recorded{window.describe()}; run `ctx ledger ingest` to read transcripts", file=sys.stderr)
    return EXIT_OK if result.rows else EXIT_EMPTY


def _cmd_proxy(args: argparse.Namespace) -> int:
    return serve_proxy(args)


def serve_proxy(args: argparse.Namespace, gate: Any = None, budgets: str = "") -> int:
    """Run ``ctx proxy`` with the parsed options; ``gate`` (``proxy.Gate``) refuses calls over a budget."""
    from .proxy import ProxyConfig, run_proxy

    try:
        config = ProxyConfig.create(args.upstream, host=args.host, port=args.port, root=data_dir_of(args))
    except ValueError as exc:
        raise CliError(str(exc), "for example --upstream https://api.anthropic.com --port 8787") from None
    from .paths import data_dir

    def announce(port: int) -> None:
        where = (config.root or data_dir()) / "usage"
        print(
            f"ctxops proxy listening on http://{config.host}:{port} -> {config.display_upstream}; records to {where}"
            + (f"; {budgets}" if budgets else ""),
            flush=True,
        )

    try:
        run_proxy(config, announce, gate=gate)
    except OSError as exc:
        raise CliError(
            f"cannot listen on {config.host}:{config.port}: {exc.strerror or exc}",
            "pick another --port (0 picks a free one)",
        ) from None
    return EXIT_OK


def add_capture_commands(sub: Any, *, json_errors: bool | None = None) -> None:
    """The ``ingest`` and ``totals`` subcommands, with the shared options on each."""
    p = sub.add_parser("ingest", help="read new transcript lines into the ledger", json_errors=json_errors)
    p.add_argument(
        "--claude-dir", action="append", default=[], metavar="DIR", help="a Claude config directory (holds projects/)"
    )
    p.add_argument("--codex-dir", action="append", default=[], metavar="DIR", help="a Codex home (holds sessions/)")
    p.add_argument(
        "--gemini-dir", action="append", default=[], metavar="DIR", help="a Gemini CLI .gemini directory (holds tmp/)"
    )
    p.add_argument(
        "--compat",
        choices=("exact", "ccusage"),
        default="exact",
        help="exact: a message's last line counts (default); ccusage: its first, as ccusage@17 (own --data-dir)",
    )
    add_ledger_options(p, subcommand=True, root=False)
    p.set_defaults(func=_cmd_ingest)

    p = sub.add_parser("totals", help="token sums per day, session, model, ...", json_errors=json_errors)
    p.add_argument(
        "--by",
        default="day",
        help="day|session|model|provider|origin|repo|project|cwd|machine, comma-separated (default day)",
    )
    p.add_argument("--tz", default="UTC", help="IANA time zone for days and bare dates (default UTC)")
    p.add_argument("--since", metavar="TIME", help="from this time: RFC 3339, a date, or an age (7d, 12h)")
    p.add_argument("--until", metavar="TIME", help="up to this time (a date includes that whole day)")
    add_no_ingest(p)
    add_ledger_options(p, subcommand=True)
    p.set_defaults(func=_cmd_totals)


def add_proxy_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--upstream", required=True, help="provider base URL, e.g. https://api.anthropic.com")
    p.add_argument("--port", type=int, default=8787, help="port on the loopback address (0 picks a free one)")
    p.add_argument("--host", default="127.0.0.1", help="loopback address to bind (127.0.0.1 or ::1)")


PROXY_DESCRIPTION = (
    "A recording proxy on loopback between an agent and its provider (Anthropic Messages or an "
    "OpenAI-compatible API): responses stream through untouched while each call's tokens, latency and "
    "status are appended to the ledger. Credentials are passed on, never stored. Point the agent at it, "
    "e.g. ANTHROPIC_BASE_URL=http://127.0.0.1:8787."
)


def build_parser(prog: str = PROG, *, json_errors: bool | None = None) -> Parser:
    parser = Parser(prog=prog, description="Record every model call's tokens.", json_errors=json_errors)
    add_ledger_options(parser, subcommand=False)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_capture_commands(sub, json_errors=json_errors)
    p = sub.add_parser(
        "proxy",
        help="a recording proxy on loopback in front of a provider",
        description=PROXY_DESCRIPTION,
        json_errors=json_errors,
    )
    add_proxy_options(p)
    add_ledger_options(p, subcommand=True, root=False)
    p.set_defaults(func=_cmd_proxy)
    return parser


def run(parser: argparse.ArgumentParser, argv: Sequence[str]) -> int:
    """Parse and dispatch with the grammar's error handling (usage errors exit 2 from the parser itself)."""
    from ctxops_contracts.shared.cli import flush_stdout, pipe_closed

    args = parser.parse_args(list(argv))
    try:
        code = int(args.func(args))
        flush_stdout()
        return code
    except BrokenPipeError:  # `... | head`: the reader has all it wanted
        return pipe_closed()
    except CliError as exc:
        return report_error(exc, prog=parser.prog, json_mode=bool(getattr(args, "json", False)))


def main(argv: Sequence[str] | None = None, prog: str = PROG) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    return run(build_parser(prog, json_errors=json_requested(argv)), argv)


def proxy_command(argv: list[str]) -> int:
    """``ctx proxy --upstream URL [--port N]``."""
    parser = Parser(prog="ctx proxy", description=PROXY_DESCRIPTION, json_errors=json_requested(argv))
    add_proxy_options(parser)
    add_ledger_options(parser, subcommand=False, root=False)
    parser.set_defaults(func=_cmd_proxy)
    return run(parser, argv)


__all__ = [
    "EXIT_USAGE",
    "add_capture_commands",
    "add_ledger_options",
    "add_no_ingest",
    "build_parser",
    "live_note",
    "main",
    "proxy_command",
]
