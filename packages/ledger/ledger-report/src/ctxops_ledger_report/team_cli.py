"""``ctx ledger push LOCATION`` and the ``--from LOCATION`` option of ``report`` and ``totals`` (see :mod:`.team`)."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from typing import Any

from ctxops_contracts.shared.cli import EXIT_EMPTY, EXIT_OK, CliError, emit_json, plural
from ctxops_token_capture.cli import add_ledger_options, add_no_ingest, data_dir_of, live_note, repo_filter

LOCATION_HELP = "a directory (local, NFS, a synced folder) or s3://bucket/prefix"
LOCATION_FIX = (
    "give a directory whose parent exists, or s3://bucket/prefix with the endpoint in --endpoint or "
    "$AWS_ENDPOINT_URL and credentials in $AWS_ACCESS_KEY_ID/$AWS_SECRET_ACCESS_KEY (docs/ledger.md, Team ledger)"
)


DAMAGED_FIX = "move the damaged part named above out of the location (its machine can push again with --again)"


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0][:300] if lines else type(exc).__name__


def add_location_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--endpoint", metavar="URL", help="S3-compatible endpoint (default $AWS_ENDPOINT_URL_S3/_URL)")
    p.add_argument("--region", metavar="NAME", help="S3 region (default $AWS_REGION/$AWS_DEFAULT_REGION)")


def location_of(args: argparse.Namespace, text: str, *, create: bool) -> Any:
    from .team import LocationError, open_location

    try:
        return open_location(
            text, endpoint=getattr(args, "endpoint", None), region=getattr(args, "region", None), create=create
        )
    except LocationError as exc:
        raise CliError(str(exc), LOCATION_FIX) from None


def from_location(args: argparse.Namespace) -> str | None:
    return getattr(args, "from_location", None)


@contextlib.contextmanager
def open_report_view(args: argparse.Namespace, book: Any, mode: str) -> Iterator[Any]:
    """The view ``report --from`` reads: every machine's calls at the location."""
    import duckdb

    from .team import LocationError, open_team_view

    location = location_of(args, str(from_location(args)), create=False)
    with contextlib.ExitStack() as stack:
        try:
            view = stack.enter_context(open_team_view(location, book=book, mode=mode))
        except LocationError as exc:
            raise CliError(str(exc), LOCATION_FIX) from None
        try:
            yield view
        except duckdb.Error as exc:  # a part whose footer read well and a page did not, met by the report itself
            raise CliError(f"{location.text}: a part could not be read: {_first_line(exc)}", DAMAGED_FIX) from None


def _cmd_push(args: argparse.Namespace) -> int:
    from ctxops_contracts.shared.locks import LockBusy
    from ctxops_token_capture.machine import user_config_path

    from .cli import _book_and_config, _root_dir
    from .machine import MachineIdError, checked, machine_id
    from .store import open_view
    from .team import LocationError, push

    try:
        machine = checked(args.machine, "--machine") if args.machine else None
        try:
            local: str | None = machine_id(user_config_path())
        except MachineIdError:
            if machine is None:
                raise
            local = None  # --machine stands in for an invalid override
        machine = machine or local
    except MachineIdError as exc:
        raise CliError(str(exc), "for example CTXOPS_MACHINE_ID=alice-laptop") from None
    assert machine is not None
    location = location_of(args, args.location, create=True)
    book, _ = _book_and_config(args)
    fresh = live_note(args)
    try:
        with open_view(data_dir_of(args), book=book) as view:
            result = push(view, location, machine, _root_dir(args), again=args.again, local=local)
    except LocationError as exc:
        raise CliError(str(exc), LOCATION_FIX) from None
    except LockBusy:
        raise CliError(
            f"another push to {args.location} is running", "wait for it to finish, then push again"
        ) from None
    if fresh:
        result["note"] = fresh
    if args.json:
        emit_json(result)
    elif result["rows"]:
        others = {m: n for m, n in result["machines"].items() if m != machine}
        also = (
            f", and {plural(sum(others.values()), 'call')} recorded on other machines under their ids "
            f"({', '.join(sorted(others))})"
            if others
            else ""
        )
        print(
            f"pushed {plural(result['machines'].get(machine, 0), 'call')} as machine {machine}{also} to "
            f"{args.location} ({plural(len(result['files']), 'file')}, {result['seconds']:.2f} s)"
        )
    else:
        print(f"nothing new to push to {args.location} ({plural(result['calls'], 'call')} already there)")
    return EXIT_OK


def _cmd_totals_from(args: argparse.Namespace) -> int:
    import duckdb
    from ctxops_token_capture.timerange import TimeRange, check_tz
    from ctxops_token_capture.totals import SUMS, Totals, format_table, parse_groups, query_totals

    from .team import LocationError, load_usage, skip_notes, summary

    try:
        by = parse_groups(args.by)
    except ValueError as exc:
        raise CliError(str(exc), "for example --by day,model") from None
    check_tz(args.tz)
    window = TimeRange.parse(args.since, args.until, tz=args.tz)
    location = location_of(args, str(from_location(args)), create=False)
    con = duckdb.connect(":memory:")
    try:
        con.execute("SET enable_progress_bar = false")
        try:
            read = load_usage(con, location)
        except LocationError as exc:
            raise CliError(str(exc), LOCATION_FIX) from None
        rows = query_totals(con, by, args.tz, window, repo_filter(args))
    finally:
        con.close()
    total = {c: sum(int(r[c]) for r in rows) for c in (*SUMS, "calls", "total_tokens")}
    note = summary(location, read)
    skipped = skip_notes(location, read["skipped"])
    result = Totals(by=by, tz=args.tz, rows=rows, total=total, note=note)
    if args.json:
        emit_json(result.as_dict() | {"machines": read["machines"], "notes": [note, *skipped]})
    elif rows:
        print(format_table(result))
        for line in (note, *skipped):
            print(f"note: {line}", file=sys.stderr)
    else:
        print(f"no calls at {args.from_location}{window.describe()}", file=sys.stderr)
        for line in skipped:
            print(f"note: {line}", file=sys.stderr)
    return EXIT_OK if rows else EXIT_EMPTY


def add_from_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--from",
        dest="from_location",
        metavar="LOCATION",
        help=f"the team ledger at LOCATION ({LOCATION_HELP}): every machine's pushed calls, each call once",
    )
    add_location_options(p)


def add_team_commands(sub: Any, *, json_errors: bool | None = None) -> None:
    """``push``, and ``--from`` on ``totals`` (``report`` adds its own in cli.py)."""
    p = sub.add_parser(
        "push",
        help="write this machine's new calls to a team ledger (Parquet by day and machine)",
        description="Write this machine's calls not yet at LOCATION as Hive-partitioned Parquet "
        "(LOCATION/day=YYYY-MM-DD/machine=ID/part-*.parquet). Re-pushing writes nothing new. "
        "`ctx ledger report --from LOCATION` reads every machine's calls back.",
        json_errors=json_errors,
    )
    p.add_argument("location", metavar="LOCATION", help=LOCATION_HELP)
    p.add_argument(
        "--machine",
        metavar="ID",
        help="this machine's id for its calls (default $CTXOPS_MACHINE_ID, the user config or the stored one); "
        "calls recorded on other machines keep theirs",
    )
    p.add_argument(
        "--again",
        action="store_true",
        help="push every call, not only those not pushed yet (after the location was emptied or restored)",
    )
    add_location_options(p)
    add_no_ingest(p)
    add_ledger_options(p, subcommand=True, root=False)
    p.set_defaults(func=_cmd_push)

    totals = sub.choices["totals"]
    add_from_option(totals)
    local = totals.get_default("func")

    def totals_cmd(args: argparse.Namespace) -> int:
        return _cmd_totals_from(args) if from_location(args) is not None else int(local(args))

    totals.set_defaults(func=totals_cmd)
