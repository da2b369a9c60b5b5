"""``python -m ctxops_memory_inject`` (also ``ctx mem inject``): the injection for a task, and the hook.

- ``inject --task TEXT [--budget N] [--file PATH]... [--session ID] [--agent NAME]``: print the block
  (``--json``: text, memory ids, tokens, budget, omitted).
- ``hook AGENT``: the agent hook (see ``hook.py``); always exits 0.
- ``digest --session ID``: write the session digest now.
"""

from __future__ import annotations

import argparse
import sys

from ctxops_contracts.shared.cli import (
    EXIT_EMPTY,
    EXIT_OK,
    CliError,
    Parser,
    add_common_options,
    emit_json,
    json_requested,
    report_error,
    typed_prog,
)

PROG = "python -m ctxops_memory_inject"


def _parser(prog: str) -> argparse.ArgumentParser:
    parser = Parser(prog=prog, description="Memories back into an agent's context, under a token budget.")
    add_common_options(parser, subcommand=False)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)
    inject = sub.add_parser("inject", help="print the memories for a task", description="print the memories for a task")
    add_common_options(inject, subcommand=True)
    _inject_options(inject)
    digest = sub.add_parser("digest", help="write a session's digest now", description="write a session's digest now")
    add_common_options(digest, subcommand=True)
    digest.add_argument("--session", required=True, help="the session id whose captured events are digested")
    return parser


def _inject_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--task", default="", help="the task or prompt the memories are for")
    parser.add_argument("--budget", type=int, default=800, help="hard token budget (cl100k), default 800")
    parser.add_argument(
        "--file", action="append", default=[], dest="files", help="a file in play, repository-relative (repeatable)"
    )
    parser.add_argument("--session", help="the current session (its own digest is left out)")
    parser.add_argument("--agent", help="the agent the block is for (recorded)")
    parser.add_argument("--no-record", action="store_true", help="do not count this as a use or record it")


def _inject(args: argparse.Namespace) -> int:
    from ctxops_contracts.shared.repo import NotARepository, find_root

    from .build import build_injection, record_injection

    if args.budget < 50:
        raise CliError(f"--budget {args.budget} is too small to hold any memory", "use --budget 50 or more")
    try:
        root = find_root(explicit=args.root)
    except NotARepository as exc:
        raise CliError(exc.message, exc.fix) from None
    injection = build_injection(
        root,
        args.task,
        session_id=args.session,
        agent=args.agent,
        files_in_play=args.files,
        budget=args.budget,
        vectors=True,  # used when [memory.vector] is on
    )
    if not args.no_record:
        record_injection(root, injection, agent=args.agent, session_id=args.session, hook="cli")
    if args.json:
        emit_json(
            {
                "text": injection.text,
                "memory_ids": injection.memory_ids,
                "tokens": injection.tokens,
                "budget": injection.budget,
                "omitted": injection.omitted,
                "layers": injection.layers,
                "tokenizer": injection.tokenizer,
            }
        )
    elif injection.text:
        sys.stdout.write(injection.text)  # the block ends with its newline
    else:
        sys.stdout.write("no memories to inject; `ctx mem add` or `ctx mem review` adds some\n")
    return EXIT_OK if injection.memory_ids else EXIT_EMPTY


def _digest(args: argparse.Namespace) -> int:
    from ctxops_contracts.shared.repo import NotARepository, find_root

    from .digest import write_digest

    try:
        root = find_root(explicit=args.root)
    except NotARepository as exc:
        raise CliError(exc.message, exc.fix) from None
    digest_id = write_digest(root, args.session)
    if args.json:
        emit_json({"digest": digest_id})
    else:
        sys.stdout.write(f"digest {digest_id}\n" if digest_id else f"no events captured for session {args.session}\n")
    return EXIT_OK if digest_id else EXIT_EMPTY


def main(argv: list[str] | None = None, *, prog: str | None = None) -> int:
    prog = prog or typed_prog(PROG)
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] == "hook":
        from .hook import main as hook_main

        return hook_main(args_list[1:])
    json_mode = json_requested(args_list)
    args = _parser(prog).parse_args(args_list)
    try:
        return _inject(args) if args.command == "inject" else _digest(args)
    except CliError as exc:
        return report_error(exc, prog=f"{prog} {args.command}", json_mode=json_mode)


def inject_command(argv: list[str], *, prog: str = "ctx mem inject") -> int:
    """``ctx mem inject ...`` (registered in memory-store's ``ctxops.mem_commands`` group)."""
    json_mode = json_requested(argv)
    parser = Parser(prog=prog, description="print the memories for a task, under a token budget")
    add_common_options(parser, subcommand=False)
    _inject_options(parser)
    args = parser.parse_args(argv)
    try:
        return _inject(args)
    except CliError as exc:
        return report_error(exc, prog=prog, json_mode=json_mode)
