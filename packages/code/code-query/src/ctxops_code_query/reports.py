"""`cq index` and `cq status`: build or update the index, and say how fresh and how big it is."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from .errors import EXIT_OK


def _status_lines(status: Any) -> list[str]:
    return [f"index of {status.root}", *status.describe(stale_hint="run `cq index`")]


def status_text(root: Path) -> str:
    from .graph_backend import GraphBackend

    backend = GraphBackend(root)
    try:
        return "\n".join(_status_lines(backend.status()))
    finally:
        backend.close()


def _status_json(status: Any) -> dict[str, Any]:
    from dataclasses import asdict

    data = {k: v for k, v in asdict(status).items() if k != "parse_problems"}
    data["parse_problems"] = [
        {"path": f.path, "status": f.parse_status, "error": f.error} for f in status.parse_problems
    ]
    return data


def run_report(root: Path, args: argparse.Namespace) -> int:
    from .graph_backend import GraphBackend, build_index, ensure_index

    if args.command == "export":
        return _export_scip(root, args)
    if args.command == "index" and (args.export_path or args.import_path):
        return _portable(root, args)
    if args.command == "index":
        started = time.perf_counter()
        report, status = build_index(root, full=args.full, progress=sys.stderr.isatty() and not args.json)
        from .context import QueryContext
        from .search import build_vectors, prepare

        # The text index of `cq search` is built with the main index, so a first search does not pay for it.
        ctx = QueryContext(root=root, open_index=GraphBackend)
        search_started = time.perf_counter()
        search_files = len(prepare(ctx).paths)
        search_s = time.perf_counter() - search_started
        vectors = build_vectors(ctx) if args.vectors else None
        elapsed = time.perf_counter() - started
        if args.json:
            payload = {
                "mode": report.mode,
                "reason": report.reason,
                "elapsed_s": round(elapsed, 3),
                "scanned": report.scanned,
                "stale": report.stale,
                "vectors_embedded": vectors,
                "search_documents": {"files": search_files, "elapsed_s": round(search_s, 3)},
                "status": _status_json(status),
            }
            print(json.dumps(payload, sort_keys=True))
            return EXIT_OK
        head = f"{report.mode} index" + (f" ({report.reason})" if report.reason else "")
        print(f"{head}: {report.scanned} files scanned in {elapsed:.2f} s")
        print("\n".join(_status_lines(status)[1:]))
        print(f"search documents: {search_files} files in {search_s:.2f} s")
        if vectors is not None:
            print(f"vectors: embedded {vectors} chunks")
        return EXIT_OK
    ensure_index(root, interactive=sys.stderr.isatty())
    backend = GraphBackend(root)
    try:
        status = backend.status()
    finally:
        backend.close()
    if args.json:
        print(json.dumps(_status_json(status), sort_keys=True))
    else:
        print("\n".join(_status_lines(status)))
    return EXIT_OK


def _portable(root: Path, args: argparse.Namespace) -> int:
    """`cq index --export FILE` (update, then write the archive) and `--import FILE` (verify, install, update)."""
    from ctxops_code_graph import portable
    from ctxops_code_graph.lock import IndexBusy

    from .errors import EnvironmentProblem, UsageError
    from .graph_backend import build_index

    if args.full or args.vectors:
        raise UsageError("--export and --import take neither --full nor --vectors", fix="run `cq index --full` apart")
    progress = sys.stderr.isatty() and not args.json
    started = time.perf_counter()
    try:
        if args.export_path:
            dest = Path(args.export_path)
            if not dest.parent.is_dir():
                raise UsageError(f"no directory {dest.parent} for {dest.name}", fix="create it or name another FILE")
            report, _status = build_index(root, progress=progress)
            exported = portable.export_index(root, dest)
            payload = {
                "exported": exported.path,
                "commit": exported.commit,
                "dirty": exported.dirty,
                "files": exported.files,
                "bytes": exported.bytes,
                "update": report.mode,
                "elapsed_s": round(time.perf_counter() - started, 3),
            }
            text = (
                f"exported the index of {exported.files} files at {exported.commit[:12] or 'no commit'}"
                f"{' (uncommitted changes included)' if exported.dirty else ''} to {exported.path}"
                f" ({exported.bytes / 1e6:.1f} MB) in {payload['elapsed_s']:.2f} s"
            )
        else:
            source = Path(args.import_path)
            if not source.is_file():
                raise UsageError(f"no index archive at {source}", fix="name a file written by `cq index --export`")
            imported = portable.import_index(root, source)
            update_started = time.perf_counter()
            report, status = build_index(root, progress=progress)
            update_s = time.perf_counter() - update_started
            changed = len(report.changed) + len(report.deleted)
            payload = {
                "imported": str(source),
                "commit": imported.commit,
                "head": imported.head,
                "commit_matches": imported.commit_matches,
                "files": imported.files,
                "install_s": round(imported.elapsed_s, 3),
                "update": report.mode,
                "update_s": round(update_s, 3),
                "rescanned": report.scanned,
                "deleted": len(report.deleted),
                "warnings": imported.warnings,
                "elapsed_s": round(time.perf_counter() - started, 3),
                "status": _status_json(status),
            }
            lines = [
                f"imported the index of {imported.files} files built at {imported.commit[:12] or 'no commit'}"
                f" in {imported.elapsed_s:.2f} s; updated to the working tree in {update_s:.2f} s"
                f" ({report.scanned} rescanned, {len(report.deleted)} removed, {changed} changed in all)",
                *(f"note: {w}" for w in imported.warnings),
                *_status_lines(status)[1:],
            ]
            text = "\n".join(lines)
    except portable.ArchiveError as exc:
        raise UsageError(str(exc), fix="use a file written by `cq index --export` with this cq version") from None
    except IndexBusy as exc:
        raise EnvironmentProblem(f"the index is being written by another process: {exc}", fix="retry shortly") from None
    if args.json:
        print(json.dumps(payload, sort_keys=True))
    else:
        print(text)
    return EXIT_OK


def _export_scip(root: Path, args: argparse.Namespace) -> int:
    """`cq export --scip FILE`: update the index, then write it as a SCIP index."""
    from ctxops_code_graph import scip

    from .errors import UsageError
    from .graph_backend import build_index

    dest = Path(args.scip_path)
    if not dest.parent.is_dir():
        raise UsageError(f"no directory {dest.parent} for {dest.name}", fix="create it or name another FILE")
    started = time.perf_counter()
    build_index(root, progress=sys.stderr.isatty() and not args.json)
    from importlib.metadata import PackageNotFoundError, version

    try:
        tool_version = version("ctxops-code-query")
    except PackageNotFoundError:
        tool_version = ""
    report = scip.export_scip(root, dest, version=tool_version)
    elapsed = time.perf_counter() - started
    if args.json:
        payload = {**report.__dict__, "elapsed_s": round(elapsed, 3)}
        print(json.dumps(payload, sort_keys=True))
    else:
        print(
            f"wrote SCIP index {report.path}: {report.documents} documents, {report.symbols} symbols,"
            f" {report.occurrences} occurrences ({report.definitions} definitions, {report.references}"
            f" references) in {elapsed:.2f} s ({report.bytes / 1e6:.1f} MB)"
        )
    return EXIT_OK
