"""`ctx bench`: the same agent on your own tasks, with and without each ctxops line, priced by the ledger.

ctx bench run TASKS.toml --agent claude-code --arms off,all,map,memory,guard --repeat 3
ctx bench report [--bench ID] [--json]
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from ctxops_contracts.shared import cli as grammar
from ctxops_contracts.shared.repo import NotARepository, find_root


def _parser() -> grammar.Parser:
    parser = grammar.Parser(prog="ctx bench", description=__doc__.splitlines()[0])
    grammar.add_common_options(parser, subcommand=False)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    run = sub.add_parser("run", help="run every task under every arm, --repeat times, in random interleaved order")
    grammar.add_common_options(run, subcommand=True)
    run.add_argument("tasks", metavar="TASKS.toml", help="[[task]] tables: name, prompt, optional setup/check")
    run.add_argument("--agent", default="claude-code", help="claude-code, codex or gemini (default claude-code)")
    run.add_argument(
        "--arms", default="off,all", help="off, all, map, memory, guard (comma-separated; default off,all)"
    )
    run.add_argument("--repeat", type=int, default=3, help="repetitions per task and arm (default 3)")
    run.add_argument("--seed", type=int, help="seed of the run order (default: random, recorded in the results)")
    run.add_argument("--max-seconds", type=float, default=900.0, help="time cap per run, seconds (default 900)")
    run.add_argument("--max-usd", type=float, help="money cap per run: a run above it stops the bench")
    run.add_argument("--budget-usd", type=float, help="money cap for the whole bench: no run starts past it")
    run.add_argument("--budget-seconds", type=float, help="time cap for the whole bench")
    run.add_argument("--agent-command", help="the agent's executable (default: claude, codex or gemini on PATH)")
    run.add_argument("--data-dir", help="the ledger's directory (default: $CTXOPS_DATA_DIR or the user data dir)")
    run.add_argument(
        "--no-proxy", action="store_true", help="price from transcripts only (default: Claude Code through ctx proxy)"
    )
    report = sub.add_parser("report", help="cost, tokens, turns, time and success per task and arm, against off")
    grammar.add_common_options(report, subcommand=True)
    report.add_argument("--bench", help="a bench id (default: the newest in this repository)")
    return parser


def main(argv: list[str]) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help(sys.stderr)
        return grammar.EXIT_USAGE
    try:
        root = Path(find_root(explicit=args.root))
        if args.command == "run":
            return _run(root, args)
        return _report(root, args)
    except NotARepository as exc:
        return grammar.report_error(grammar.CliError(exc.message, exc.fix), prog="ctx bench", json_mode=args.json)
    except grammar.CliError as exc:
        return grammar.report_error(exc, prog="ctx bench", json_mode=args.json)


def _run(root: Path, args: Any) -> int:
    from .bench import agent_cli, arms, report, runner, tasks_file
    from .bench.ledger_calls import LedgerMissing

    try:
        tasks = tasks_file.load(Path(args.tasks))
        options = runner.BenchOptions(
            agent=arms.parse_agent(args.agent),
            arms=arms.parse_arms(args.arms),
            repeat=args.repeat,
            seed=args.seed,
            max_seconds=args.max_seconds,
            max_usd=args.max_usd,
            budget_usd=args.budget_usd,
            budget_seconds=args.budget_seconds,
            agent_command=args.agent_command,
            data_dir=Path(args.data_dir) if args.data_dir else None,
            proxy=not args.no_proxy,
        )
    except (tasks_file.TasksError, arms.ArmError) as exc:
        raise grammar.CliError(str(exc)) from None
    if args.repeat < 1 or args.max_seconds <= 0:
        raise grammar.CliError("--repeat must be at least 1 and --max-seconds positive")
    try:
        import ctxops_ledger_report  # noqa: F401  (a bench prices its runs with the ledger)
    except ModuleNotFoundError:
        fix = "pip install ctxops-ledger-report"
        raise grammar.CliError("ctx bench prices its runs with the ledger, which is not installed", fix=fix) from None
    progress = (lambda line: None) if args.json else (lambda line: print(line, file=sys.stderr, flush=True))
    try:
        bench_id, path, _records, stopped = runner.run_bench(root, tasks, options, progress=progress)
    except agent_cli.AgentNotFound as exc:
        raise grammar.CliError(str(exc)) from None
    except (LedgerMissing, RuntimeError) as exc:
        raise grammar.CliError(str(exc)) from None
    header, runs = report.load(root, bench_id)
    doc = report.build(header, runs)
    doc["stopped"] = stopped
    doc["results"] = str(path)
    report.write_latest(root, doc)
    if args.json:
        grammar.emit_json(doc)
    else:
        print(report.render(doc))
        print(f"\nresults: {path}" + (f"\nstopped early: {stopped}" if stopped else ""))
    return grammar.EXIT_OK if not stopped else grammar.EXIT_TIMEOUT


def _report(root: Path, args: Any) -> int:
    from .bench import report

    try:
        header, runs = report.load(root, args.bench)
    except report.NoBench as exc:
        raise grammar.CliError(str(exc), code=grammar.EXIT_EMPTY) from None
    doc = report.build(header, runs)
    if args.json:
        grammar.emit_json(doc)
    else:
        print(report.render(doc))
    return grammar.EXIT_OK
