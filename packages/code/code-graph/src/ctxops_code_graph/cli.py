"""`python -m ctxops_code_graph index [PATH] [--full] [--json]` (and `watch`): build, update, report."""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path

from .index import CodeIndex
from .lock import IndexBusy


def index_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ctxops_code_graph index", description="Build or update the code index."
    )
    parser.add_argument("path", nargs="?", default=".", help="repository root (default: .)")
    parser.add_argument("--full", action="store_true", help="rebuild from scratch instead of updating")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--workers", type=int, default=None, help="scanner processes (default: CPU count)")
    parser.add_argument(
        "--profile", action="store_true", help="also print wall and CPU seconds per build phase (full builds)"
    )
    args = parser.parse_args(argv)
    root = Path(args.path)
    if not root.is_dir():
        print(f"error: {root} is not a directory", file=sys.stderr)
        return 2
    started = time.perf_counter()
    index = CodeIndex(root, auto_update=False)
    try:
        report = index.build(full=args.full, workers=args.workers)
        status = index.status()
    except IndexBusy as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        index.close()
    elapsed = time.perf_counter() - started
    if args.json:
        payload = {
            "mode": report.mode,
            "reason": report.reason,
            "elapsed_s": round(elapsed, 3),
            "scanned": report.scanned,
            "deleted": report.deleted,
            "stale": report.stale,
            "phases": report.timings,
            "phases_cpu": report.cpu,
            "status": {k: v for k, v in asdict(status).items() if k != "parse_problems"},
            "parse_problems": [
                {"path": f.path, "status": f.parse_status, "error": f.error} for f in status.parse_problems
            ],
        }
        print(json.dumps(payload, indent=2, sort_keys=True))
        return 0
    print(render_report(report.mode, report.reason, report.scanned, elapsed, status))
    if args.profile:
        print(render_phases(report.timings, report.cpu))
    return 0


def render_phases(wall: dict[str, float], cpu: dict[str, float]) -> str:
    """One line per build phase: wall seconds, and CPU seconds (scan workers included)."""
    if not wall:
        return "phases: none timed (an incremental update or no-op)"
    lines = ["phase      wall s   cpu s"]
    lines += [f"{name:<9} {seconds:7.2f} {cpu.get(name, 0.0):7.2f}" for name, seconds in wall.items()]
    lines.append(f"{'total':<9} {sum(wall.values()):7.2f} {sum(cpu.values()):7.2f}")
    return "\n".join(lines)


def render_report(mode: str, reason: str, scanned: int, elapsed: float, status: object) -> str:
    from .results import IndexStatus

    assert isinstance(status, IndexStatus)
    head = f"{mode} index of {status.root}" + (f" ({reason})" if reason else "")
    return "\n".join([f"{head}: {scanned} files scanned in {elapsed:.2f} s", *status.describe()])


def update_main(argv: list[str]) -> int:
    """The detached automatic update a reader starts (see `background`); usable by hand too."""
    parser = argparse.ArgumentParser(
        prog="python -m ctxops_code_graph update",
        description="Reindex the files changed since the last index (what a query's automatic update runs).",
    )
    parser.add_argument("path", nargs="?", default=".", help="repository root (default: .)")
    parser.add_argument("--bound", type=int, default=None, help="reindex at most N files (default: all)")
    parser.add_argument("--lock-wait", type=float, default=30.0, help="seconds to wait for another writer")
    args = parser.parse_args(argv)
    root = Path(args.path)
    if not root.is_dir():
        print(f"error: {root} is not a directory", file=sys.stderr)
        return 2
    from .background import run_update

    return run_update(root, args.bound, args.lock_wait)


def main(argv: list[str] | None = None) -> int:
    from ctxops_contracts.shared.cli import CliError, json_requested, report_error, typed_prog

    argv = list(sys.argv[1:] if argv is None else argv)
    prog = typed_prog("python -m ctxops_code_graph")
    usage = f"usage: {prog} {{index,update,watch}} [PATH] ..."
    if argv and argv[0] in {"-h", "--help"}:
        print(usage)
        return 0
    if not argv or argv[0] not in {"index", "update", "watch"}:
        given = f"unknown command {argv[0]!r}" if argv else "no command given"
        error = CliError(f"{given} (expected index, update or watch)", fix=f"see {prog} --help")
        return report_error(error, prog=prog, json_mode=json_requested(argv))
    command, rest = argv[0], argv[1:]
    if command == "index":
        return index_main(rest)
    if command == "update":
        return update_main(rest)
    if command == "watch":
        from .watch_cli import watch_main

        code: int = watch_main(rest)
        return code
    raise AssertionError(command)  # every command was checked above
