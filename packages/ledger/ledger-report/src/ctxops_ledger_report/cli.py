"""``ctx ledger ...`` (ingest, totals, report, prices, check, statusline, export, savings, push) and ``ctx task ...``.

The grammar is the toolchain's (docs/cli-reference.md). ``statusline`` takes a fast path that imports
neither argparse's subcommand tree nor DuckDB.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ctxops_contracts.shared.cli import (
    EXIT_CHECK_FAILED,
    EXIT_EMPTY,
    EXIT_OK,
    CliError,
    Parser,
    emit_json,
    json_requested,
    plural,
)
from ctxops_token_capture.cli import (
    add_capture_commands,
    add_ledger_options,
    add_no_ingest,
    data_dir_of,
    live_note,
    repo_filter,
    run,
)

from .team_cli import add_from_option, add_team_commands

PROG = "python -m ctxops_ledger_report"
DESCRIPTION = "What the tokens cost, where they went, and whether a budget is exceeded."


def _root_dir(args: argparse.Namespace) -> Path:
    from ctxops_token_capture.paths import data_dir

    return data_dir_of(args) or data_dir()


def _config_repo(args: argparse.Namespace) -> str | None:
    """The repository whose ``.meta/config.toml`` applies: ``--root``, else the one holding the cwd."""
    chosen = repo_filter(args)
    if chosen:
        return chosen
    from ctxops_contracts.shared.repo import try_find_root

    return try_find_root()


def _book_and_config(args: argparse.Namespace) -> tuple[Any, Any]:
    from .config import config_files, load_config
    from .prices import PriceBook

    files = config_files(_config_repo(args))
    try:
        return PriceBook.load(files), load_config(files)
    except ValueError as exc:
        raise CliError(str(exc), "fix the value in that file (see docs/ledger.md, Configuration)") from None


def _filters(args: argparse.Namespace) -> Any:
    from ctxops_token_capture.timerange import TimeRange, check_tz

    from .reports import Filters

    check_tz(args.tz)
    return Filters(
        window=TimeRange.parse(getattr(args, "since", None), getattr(args, "until", None), tz=args.tz),
        repo=repo_filter(args),
        session=getattr(args, "session", None),
        task=getattr(args, "task", None),
        model=getattr(args, "model", None),
    )


def _context_dir(args: argparse.Namespace) -> str:
    from ctxops_contracts.shared.layout import context_records_dir

    explicit = data_dir_of(args)
    return str(explicit / "context") if explicit else context_records_dir()


def _snapshot(view: Any, config: Any, args: argparse.Namespace) -> None:
    from .snapshot import refresh_snapshot

    if getattr(args, "from_location", None) is not None:
        return  # a team ledger is not this machine's status line

    # The status line's cache is a convenience: a read-only data dir must not fail a report.
    with contextlib.suppress(OSError):
        refresh_snapshot(view, config, _root_dir(args))


def _cmd_report(args: argparse.Namespace) -> int:
    from .reports import ReportError, build, canonical
    from .store import open_view

    try:
        kind = canonical(args.kind)
    except ReportError as exc:
        raise CliError(str(exc), "for example `ctx ledger report day` or `ctx ledger report task`") from None
    filters = _filters(args)
    book, config = _book_and_config(args)
    if getattr(args, "from_location", None) is not None:  # a team ledger (team.py): nothing to ingest
        from .team_cli import open_report_view

        fresh, opened = None, open_report_view(args, book, args.compat)
    else:
        fresh, opened = live_note(args), open_view(data_dir_of(args), book=book, mode=args.compat)
    with opened as view:
        context_dir = _context_dir(args)
        if args.html:
            from .html import render, report_set

            reports = report_set(lambda k: build(view, k, filters, tz=args.tz, context_dir=context_dir))
            from .measured import latest

            measured = latest(_config_repo(args))
            page = render(reports, title="ctxops token ledger", price_date=book.date, measured=measured)
            Path(args.html).expanduser().write_text(page, encoding="utf-8")
            _snapshot(view, config, args)
            calls = reports["day"].total.get("calls", 0)
            if args.json:
                emit_json({"html": str(args.html), "calls": calls})
            else:
                print(f"wrote {args.html} ({plural(calls, 'call')})")
            return EXIT_OK if calls else EXIT_EMPTY
        try:
            report = build(
                view,
                kind,
                filters,
                tz=args.tz,
                breakdown=args.breakdown,
                context_dir=context_dir,
                savings_by=getattr(args, "by", "tool"),
                week_start=getattr(args, "week_start", "monday"),
            )
        except ReportError as exc:
            raise CliError(str(exc), f"see {args.prog_name} report --help") from None
        _snapshot(view, config, args)
    if fresh:
        report.notes.append(fresh)
    if kind == "savings":
        _label_savings(report, _config_repo(args))
    return _emit(report, args)


def _label_savings(report: Any, repo: str | None) -> None:
    """Estimated and measured savings, each named as what it is (``ctx bench`` measures; records estimate)."""
    from . import measured

    report.notes.insert(0, "estimated: tokens the context guard kept out of the context, from its own records")
    doc = measured.latest(repo)
    if doc is None:
        report.notes.append("measured: no bench in this repository (`ctx bench run TASKS.toml` measures the spend)")
        return
    report.meta["measured"] = doc
    report.notes += measured.lines(doc) or [f"measured: ctx bench {doc.get('bench')} has no arm to compare with off"]


def _emit(report: Any, args: argparse.Namespace) -> int:
    from .render import table, to_csv

    if args.json:
        emit_json(report.as_dict())
    elif getattr(args, "csv", False):
        sys.stdout.write(to_csv(report))
    elif report.rows:
        print(table(report))
    else:
        notes = "; ".join(report.notes)
        print(f"no {report.kind} rows in this range{'; ' + notes if notes else ''}", file=sys.stderr)
        if report.meta.get("measured"):  # measured savings stand without the guard's records
            print("\n".join(n for n in report.notes if n.startswith("measured")))
    return EXIT_OK if report.rows else EXIT_EMPTY


def _cmd_savings(args: argparse.Namespace) -> int:
    args.kind, args.breakdown, args.html, args.compat = "savings", False, None, "exact"
    return _cmd_report(args)


def _cmd_prices(args: argparse.Namespace) -> int:
    book, _ = _book_and_config(args)
    names = args.models or sorted(book.prices)
    rows = []
    missing = []
    for name in names:
        price = book.lookup(name)
        if price is None:
            missing.append(name)
            continue
        rows.append({"model": name, "provider": price.provider, "origin": price.origin, **price.per_mtok()})
    if args.json:
        emit_json(
            {
                "date": book.date,
                "unit": "USD per million tokens",
                "sources": book.sources,
                "overridden": book.overridden,
                "models": rows,
                "unpriced": missing,
            }
        )
    else:
        from rich.console import Console
        from rich.table import Table

        grid = Table(box=None, header_style="bold", pad_edge=False)
        for column, justify in (
            ("model", "left"),
            ("input", "right"),
            ("output", "right"),
            ("write 5m", "right"),
            ("write 1h", "right"),
            ("read", "right"),
            (">200k in/out", "right"),
            ("from", "left"),
        ):
            grid.add_column(column, justify=justify)  # type: ignore[arg-type]

        def usd(value: float | None) -> str:
            return "-" if value is None else f"{value:g}"

        for row in rows:
            long = f"{usd(row['input_long'])}/{usd(row['output_long'])}" if row["input_long"] is not None else "-"
            grid.add_row(
                row["model"],
                usd(row["input"]),
                usd(row["output"]),
                usd(row["cache_write"]),
                usd(row["cache_write_1h"]),
                usd(row["cache_read"]),
                long,
                row["origin"],
            )
        console = Console(width=160, color_system=None, force_terminal=False)
        console.print(grid)
        console.print(
            f"USD per million tokens; table dated {book.date}; sources: "
            + "; ".join(s.get("package", "") for s in book.sources),
            markup=False,
            highlight=False,
        )
        if book.overridden:
            console.print(f"overridden in config: {', '.join(book.overridden)}", markup=False, highlight=False)
        for name in missing:
            print(
                f'{name}: not in the price table (reported as unpriced; add [ledger.prices."{name}"])', file=sys.stderr
            )
    return EXIT_OK if rows else EXIT_EMPTY


def _cmd_check(args: argparse.Namespace) -> int:
    from ctxops_token_capture.timerange import check_tz

    from .check import run_checks
    from .store import open_view

    check_tz(args.tz)
    book, config = _book_and_config(args)
    fresh = live_note(args)
    if fresh and not args.json:
        print(f"note: {fresh}", file=sys.stderr)
    with open_view(data_dir_of(args), book=book) as view:
        findings = run_checks(view, config, tz=args.tz, repo=repo_filter(args))
        _snapshot(view, config, args)
    if args.json:
        emit_json({"ok": not findings, "budgets": config.budgets, "findings": [f.as_dict() for f in findings]})
    elif findings:
        for finding in findings:
            print(f"{finding.kind}: {finding.message}")
            for item in finding.burned_by:
                amount = (
                    f"${item['cost_usd']:,.2f}" if "cost_usd" in item else f"{item['cache_hit_rate']:.1%} cache hit"
                )
                print(f"  {item['by']:<8} {item['name']}  {amount}")
    else:
        budgets = ", ".join(f"{k} ${v:,.2f}" for k, v in config.budgets.items()) or "no budgets configured"
        print(f"ok: within budgets ({budgets}); cache hit rate steady")
    return EXIT_CHECK_FAILED if findings else EXIT_OK


def _cmd_export(args: argparse.Namespace) -> int:
    from .export import export_parquet
    from .store import open_view

    filters = _filters(args)
    book, _ = _book_and_config(args)
    with open_view(data_dir_of(args), book=book) as view:
        result = export_parquet(view, Path(args.parquet).expanduser(), filters, tz=args.tz)
    if args.json:
        emit_json(result)
    else:
        print(
            f"exported {plural(result['rows'], 'call')} to {result['directory']} "
            f"({plural(len(result['partitions']), 'partition')})"
        )
    return EXIT_OK if result["rows"] else EXIT_EMPTY


def _cmd_refresh(args: argparse.Namespace) -> int:
    """Ingest the default transcript locations and rewrite the status line's snapshot (one at a time)."""
    from ctxops_contracts.shared.locks import LockBusy, file_lock
    from ctxops_token_capture.ingest import Sources, ingest, remembered_sources

    from .statusline import REFRESH_LOCK
    from .store import open_view

    root = _root_dir(args)
    try:
        with file_lock(root / REFRESH_LOCK, timeout=0.0):
            # The directories the last ingest here read (a live report reads the same), else the defaults.
            sources = remembered_sources(root) or Sources.defaults()
            if sources.claude_dirs or sources.codex_homes or sources.gemini_dirs:
                ingest(sources, root)
            book, config = _book_and_config(args)
            with open_view(root, book=book) as view:
                _snapshot(view, config, args)
    except LockBusy:
        return EXIT_OK  # another refresh is running: that one will write the snapshot
    return EXIT_OK


def _common_report_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tz", default="UTC", help="IANA time zone for days, weeks and months (default UTC)")
    p.add_argument("--since", metavar="TIME", help="from this time: RFC 3339, a date, or an age (7d, 12h)")
    p.add_argument("--until", metavar="TIME", help="up to this time (a date includes that whole day)")
    p.add_argument("--session", metavar="ID", help="only this session")
    p.add_argument("--task", metavar="NAME", help="only this task")
    p.add_argument("--model", metavar="MODEL", help="only this model")


def build_parser(prog: str = PROG, *, json_errors: bool | None = None) -> Parser:
    parser = Parser(prog=prog, description=DESCRIPTION, json_errors=json_errors)
    add_ledger_options(parser, subcommand=False)
    parser.set_defaults(prog_name=prog)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_capture_commands(sub, json_errors=json_errors)

    p = sub.add_parser(
        "report",
        help="costs and tokens per day, week, month, session, task, repo, model, block, ...",
        json_errors=json_errors,
    )
    p.add_argument(
        "kind",
        nargs="?",
        default="day",
        help="day|week|month|session|task|repo (project: git root, else cwd)|cwd|model|machine|block|tool|file|"
        "memory|savings|latency (proxy and SDK: latency, time to first token, errors) (default day)",
    )
    p.add_argument("--breakdown", action="store_true", help="one row per model within each group")
    p.add_argument(
        "--week-start",
        choices=("monday", "sunday"),
        default="monday",
        help="the first day of a week in `report week` (default monday, ISO; ccusage uses sunday)",
    )
    p.add_argument(
        "--compat",
        choices=("exact", "ccusage"),
        default="exact",
        help="pricing rule: exact (provider's, default) or ccusage (ccusage@17's, for side-by-side checks)",
    )
    p.add_argument("--csv", action="store_true", help="print CSV instead of a table")
    p.add_argument("--html", metavar="FILE", help="write a self-contained HTML report with charts to FILE")
    add_no_ingest(p)
    _common_report_options(p)
    add_ledger_options(p, subcommand=True)
    add_from_option(p)
    p.set_defaults(func=_cmd_report)

    p = sub.add_parser(
        "savings", help="tokens the context guard kept out of the context, next to real spend", json_errors=json_errors
    )
    p.add_argument("--by", default="tool", choices=("tool", "command", "day"), help="group by tool, command or day")
    p.add_argument("--csv", action="store_true", help="print CSV instead of a table")
    _common_report_options(p)
    add_ledger_options(p, subcommand=True)
    p.set_defaults(func=_cmd_savings)

    p = sub.add_parser(
        "prices", help="the price table (USD per million tokens), its date and your overrides", json_errors=json_errors
    )
    p.add_argument("models", nargs="*", metavar="MODEL", help="only these models (default: all)")
    add_ledger_options(p, subcommand=True)
    p.set_defaults(func=_cmd_prices)

    p = sub.add_parser(
        "check",
        help="exit 4 when a budget is exceeded or the cache hit rate dropped; what burned it",
        json_errors=json_errors,
    )
    p.add_argument("--tz", default="UTC", help="IANA time zone of 'today' for the day budgets (default UTC)")
    add_no_ingest(p)
    add_ledger_options(p, subcommand=True)
    p.set_defaults(func=_cmd_check)

    p = sub.add_parser(
        "export", help="write calls as Parquet partitioned by day and repository", json_errors=json_errors
    )
    p.add_argument("--parquet", metavar="DIR", required=True, help="directory for the partitioned Parquet set")
    _common_report_options(p)
    add_ledger_options(p, subcommand=True)
    p.set_defaults(func=_cmd_export)

    p = sub.add_parser(
        "statusline", help="one status line for Claude Code (statusLine stdin JSON in)", json_errors=json_errors
    )
    add_ledger_options(p, subcommand=True, root=False)

    p = sub.add_parser(
        "refresh",
        help="ingest default transcript locations and update the status line's snapshot",
        json_errors=json_errors,
    )
    add_ledger_options(p, subcommand=True, root=False)
    p.set_defaults(func=_cmd_refresh)
    add_team_commands(sub, json_errors=json_errors)
    return parser


def main(argv: Sequence[str] | None = None, prog: str = PROG) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["statusline"] and "--help" not in argv and "-h" not in argv:
        from .statusline import main as statusline_main

        return statusline_main(argv[1:])
    return run(build_parser(prog, json_errors=json_requested(argv)), argv)


def ledger_command(argv: list[str]) -> int:
    """``ctx ledger COMMAND ...``."""
    return main(argv, prog="ctx ledger")


# ---------------------------------------------------------------------------------------------- tasks


def _task_repo(args: argparse.Namespace) -> str:
    from ctxops_contracts.shared.repo import NotARepository, find_root

    try:
        return find_root(explicit=args.root)
    except NotARepository as exc:
        raise CliError(exc.message, exc.fix) from None


def _tasks_dir(args: argparse.Namespace) -> str:
    return str(_root_dir(args))


def _cmd_task_start(args: argparse.Namespace) -> int:
    from ctxops_contracts.shared import tasks

    repo = _task_repo(args)
    before = tasks.current(repo, data_dir=_tasks_dir(args))
    try:
        started = tasks.start(repo, args.name, data_dir=_tasks_dir(args))
    except ValueError as exc:
        raise CliError(str(exc), "for example `ctx task start checkout-v2`") from None
    if args.json:
        emit_json(
            {"repo": repo, "task": started.name, "start": started.start, "previous": before.name if before else None}
        )
    else:
        closed = f" (stopped {before.name})" if before else ""
        print(f"task {started.name} started in {repo}{closed}")
    return EXIT_OK


def _cmd_task_stop(args: argparse.Namespace) -> int:
    from ctxops_contracts.shared import tasks

    repo = _task_repo(args)
    stopped = tasks.stop(repo, data_dir=_tasks_dir(args))
    if args.json:
        emit_json(
            {
                "repo": repo,
                "stopped": stopped.name if stopped else None,
                "start": stopped.start if stopped else None,
                "end": stopped.end if stopped else None,
            }
        )
    elif stopped:
        print(f"task {stopped.name} stopped in {repo}")
    else:
        print(f"no task running in {repo}", file=sys.stderr)
    return EXIT_OK if stopped else EXIT_EMPTY


def _cmd_task_show(args: argparse.Namespace) -> int:
    from ctxops_contracts.shared import tasks

    repo = _task_repo(args)
    found = tasks.intervals(repo, data_dir=_tasks_dir(args))
    running = next((i for i in reversed(found) if i.end is None), None)
    if args.json:
        emit_json(
            {
                "repo": repo,
                "current": running.name if running else None,
                "intervals": [{"task": i.name, "start": i.start, "end": i.end} for i in found],
            }
        )
    elif found:
        print(f"current: {running.name if running else '(none: usage goes to the git branch)'}")
        for interval in found[-10:]:
            end = interval.end.strftime("%Y-%m-%d %H:%MZ") if interval.end else "running"
            print(f"  {interval.start:%Y-%m-%d %H:%MZ} - {end}  {interval.name}")
    else:
        print(f"no task recorded in {repo}; usage is attributed to the git branch", file=sys.stderr)
    return EXIT_OK if found else EXIT_EMPTY


def build_task_parser(prog: str = "ctx task", *, json_errors: bool | None = None) -> Parser:
    parser = Parser(
        prog=prog,
        description="Name the task a repository is working on, so the ledger sums its sessions and days into one "
        "row (without one, usage goes to the git branch, then to the session).",
        json_errors=json_errors,
    )

    def options(p: argparse.ArgumentParser, subcommand: bool) -> None:
        default: Any = argparse.SUPPRESS if subcommand else None
        p.add_argument(
            "--root",
            metavar="DIR",
            default=default,
            help="the repository (default: the one holding the working directory, or $CTXOPS_ROOT)",
        )
        p.add_argument(
            "--json",
            action="store_true",
            default=argparse.SUPPRESS if subcommand else False,
            help="print one compact JSON document on stdout (errors too)",
        )
        p.add_argument(
            "--data-dir",
            metavar="DIR",
            default=default,
            help="where task intervals are kept (default: $CTXOPS_DATA_DIR or the user data dir)",
        )

    options(parser, False)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = sub.add_parser("start", help="start NAME (stops the running task first)", json_errors=json_errors)
    p.add_argument("name", metavar="NAME", help="the task's name, e.g. checkout-v2 or JIRA-1234")
    options(p, True)
    p.set_defaults(func=_cmd_task_start)
    p = sub.add_parser("stop", help="stop the running task", json_errors=json_errors)
    options(p, True)
    p.set_defaults(func=_cmd_task_stop)
    p = sub.add_parser("show", help="the running task and the last intervals", json_errors=json_errors)
    options(p, True)
    p.set_defaults(func=_cmd_task_show)
    return parser


def task_command(argv: list[str]) -> int:
    """``ctx task start NAME | stop | show``."""
    return run(build_task_parser(json_errors=json_requested(argv)), argv)
