"""Command line: ``python -m ctxops_token_capture ingest|totals|proxy`` (``ctx ledger ...``, ``ctx proxy``)."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from pathlib import Path

PROG = "python -m ctxops_token_capture"


def _data_dir(args: argparse.Namespace) -> Path | None:
    return Path(args.data_dir).expanduser() if args.data_dir else None


def _cmd_ingest(args: argparse.Namespace) -> int:
    from .ingest import Sources, ingest

    if args.claude_dir or args.codex_dir:
        sources = Sources(
            claude_dirs=[Path(d).expanduser() for d in args.claude_dir],
            codex_homes=[Path(d).expanduser() for d in args.codex_dir],
        )
    else:
        sources = Sources.defaults()
        if not sources.claude_dirs and not sources.codex_homes:
            print("ingest: no Claude Code or Codex transcripts found in the default locations", file=sys.stderr)
    try:
        report = ingest(sources, _data_dir(args))
    except FileNotFoundError as exc:
        print(f"ingest: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report.as_dict(), indent=2))
    else:
        print(f"ingest: {report.summary()}; {report.loaded} calls added to the ledger")
        for example in report.examples[:5]:
            print(f"  refused {example}", file=sys.stderr)
    return 0


def _cmd_totals(args: argparse.Namespace) -> int:
    from .totals import format_table, parse_groups, totals

    try:
        by = parse_groups(args.by)
        since = date.fromisoformat(args.since) if args.since else None
        until = date.fromisoformat(args.until) if args.until else None
        _check_tz(args.tz)
    except ValueError as exc:
        print(f"totals: {exc}", file=sys.stderr)
        return 2
    result = totals(by, tz=args.tz, root=_data_dir(args), since=since, until=until)
    if args.json:
        print(json.dumps(result.as_dict(), indent=2, default=str))
    else:
        print(format_table(result))
    return 0


def _check_tz(name: str) -> None:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone {name!r} (use an IANA name such as UTC or Europe/Paris)") from None


def _cmd_proxy(args: argparse.Namespace) -> int:
    from .proxy import ProxyConfig, run_proxy

    try:
        config = ProxyConfig.create(args.upstream, host=args.host, port=args.port, root=_data_dir(args))
    except ValueError as exc:
        print(f"proxy: {exc}", file=sys.stderr)
        return 2
    return run_proxy(config)


def build_parser(prog: str = PROG, *, with_proxy: bool = True) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description="Record every model call's tokens.")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data-dir", help="ledger directory (default: $CTXOPS_DATA_DIR or the user data dir)")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("ingest", parents=[common], help="read new transcript lines into the ledger")
    p.add_argument("--claude-dir", action="append", default=[], help="a Claude config directory (holds projects/)")
    p.add_argument("--codex-dir", action="append", default=[], help="a Codex home (holds sessions/)")
    p.add_argument("--json", action="store_true", help="print the ingest report as JSON")
    p.set_defaults(func=_cmd_ingest)

    p = sub.add_parser("totals", parents=[common], help="token sums per day, session, model, ...")
    p.add_argument("--by", default="day", help="day|session|model|provider|origin|repo, comma-separated")
    p.add_argument("--tz", default="UTC", help="time zone for days (default UTC)")
    p.add_argument("--since", help="first day, YYYY-MM-DD")
    p.add_argument("--until", help="last day, YYYY-MM-DD")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_cmd_totals)

    if not with_proxy:  # `ctx ledger`: the proxy is its own command, `ctx proxy`
        return parser
    p = sub.add_parser("proxy", parents=[common], help="a recording proxy on loopback in front of a provider")
    p.add_argument("--upstream", required=True, help="provider base URL, e.g. https://api.anthropic.com")
    p.add_argument("--port", type=int, default=8787, help="port on 127.0.0.1 (0 picks a free one)")
    p.add_argument("--host", default="127.0.0.1", help="loopback address to bind (127.0.0.1 or ::1)")
    p.set_defaults(func=_cmd_proxy)
    return parser


def main(argv: list[str] | None = None, prog: str = PROG, *, with_proxy: bool = True) -> int:
    args = build_parser(prog, with_proxy=with_proxy).parse_args(sys.argv[1:] if argv is None else argv)
    code = args.func(args)
    return int(code)


def ledger_command(argv: list[str]) -> int:
    """``ctx ledger ingest|totals``."""
    return main(argv, prog="ctx ledger", with_proxy=False)


def proxy_command(argv: list[str]) -> int:
    """``ctx proxy --upstream URL [--port N]``."""
    return main(["proxy", *argv], prog="ctx")
