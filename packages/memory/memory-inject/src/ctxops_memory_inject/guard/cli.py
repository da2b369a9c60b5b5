"""``ctx out show ID [--lines A:B | --grep RE] [--root DIR] [--json]``: a tool output the guard saved."""

from __future__ import annotations

import argparse
import re
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
)

from . import store


def build_parser(prog: str = "ctx out") -> Parser:
    parser = Parser(prog=prog, description="Full text of tool outputs the context guard summarized (.meta/outputs/).")
    add_common_options(parser, subcommand=False)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    show = sub.add_parser("show", prog=f"{prog} show", help="print a saved output, or a slice of it", json_errors=None)
    add_common_options(show, subcommand=True)
    show.add_argument("id", metavar="ID", help="the id the summary's last line names")
    pick = show.add_mutually_exclusive_group()
    pick.add_argument("--lines", metavar="A:B", help="only lines A to B (1-based, inclusive; A: or :B open-ended)")
    pick.add_argument("--grep", metavar="RE", help="only lines matching the regular expression RE")
    return parser


def parse_lines(spec: str) -> tuple[int, int]:
    match = re.fullmatch(r"\s*(\d*)\s*[:-]\s*(\d*)\s*|\s*(\d+)\s*", spec)
    if not match:
        raise CliError(f"--lines {spec!r} is not a range", fix="give --lines A:B, e.g. --lines 40:80 (or 40: or :80)")
    if match.group(3):
        n = int(match.group(3))
        return n, n
    start = int(match.group(1) or 1)
    end = int(match.group(2) or 10**12)
    if start < 1 or end < start:
        raise CliError(f"--lines {spec!r} is an empty range", fix="give A <= B, both at least 1")
    return start, end


def main(argv: list[str] | None = None) -> int:
    args_list = sys.argv[1:] if argv is None else argv
    json_mode = json_requested(args_list)
    parser = build_parser()
    args = parser.parse_args(args_list)
    try:
        return _show(args)
    except CliError as error:
        return report_error(error, prog="ctx out", json_mode=json_mode)


def resolve_root(explicit: str | None) -> str:
    from ctxops_contracts.shared.repo import NotARepository, find_root

    try:
        return str(find_root(explicit=explicit))
    except NotARepository as exc:
        raise CliError(exc.message, fix=exc.fix) from None


def _show(args: argparse.Namespace) -> int:
    root = resolve_root(args.root)
    result = show(root, str(args.id), lines=args.lines, grep=args.grep)
    numbered = result["lines"]
    assert isinstance(numbered, list)
    if args.json:
        emit_json(result)
    else:
        width = len(str(numbered[-1][0])) if numbered else 1
        for number, line in numbered:
            sys.stdout.write(f"{number:>{width}}  {line}\n")
        if not numbered:
            sys.stderr.write(f"no lines of output {args.id} match\n")
    return EXIT_OK if numbered else EXIT_EMPTY


def show(root: str, output_id: str, *, lines: str | None = None, grep: str | None = None) -> dict[str, object]:
    """The saved output ``output_id`` (or the slice asked for) as numbered lines plus what produced it."""
    try:
        text = store.load(root, output_id)
    except store.OutputNotFound:
        raise CliError(
            f"no saved output {output_id!r} in {store.outputs_dir(root)}",
            fix="use the id from the summary's last line; old outputs are rotated away "
            "(max_outputs in [guard] of .meta/config.toml)",
        ) from None
    pattern = None
    if grep is not None:
        try:
            pattern = re.compile(grep)
        except re.error as exc:
            raise CliError(
                f"--grep {grep!r} is not a regular expression: {exc}",
                fix="escape special characters, e.g. --grep 'test_a\\['",
            ) from None
    selected = store.select(text, lines=parse_lines(lines) if lines else None, grep=pattern)
    meta = store.load_meta(root, output_id)
    return {
        "id": output_id,
        "total_lines": text.count("\n") + (0 if text.endswith("\n") else 1),
        "meta": meta,
        "lines": selected,
    }
