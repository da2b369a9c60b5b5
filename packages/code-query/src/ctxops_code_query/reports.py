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
    langs = ", ".join(f"{lang} {n}" for lang, n in status.files_by_language.items()) or "none"
    skipped = ", ".join(f"{reason} {n}" for reason, n in status.skipped_by_reason.items()) or "none"
    conf = ", ".join(f"{k} {v}" for k, v in status.edges_by_confidence.items()) or "none"
    lines = [
        f"index of {status.root}",
        f"revision {status.indexed_revision or '(not a git repository)'}"
        + (
            f" (working tree now {status.revision})"
            if status.revision and status.revision != status.indexed_revision
            else ""
        )
        + (f", updated {status.updated_at}" if status.updated_at else ""),
        f"files {status.files}: {langs}",
        f"symbols {status.symbols}, references {status.references}, edges {status.edges} ({conf})",
        f"skipped: {skipped}",
        f"size {status.index_bytes / 1e6:.1f} MB",
    ]
    if status.parse_problems:
        shown = ", ".join(f"{f.path} [{f.parse_status}]" for f in status.parse_problems[:5])
        more = len(status.parse_problems) - 5
        lines.append(
            f"parse problems {len(status.parse_problems)}: {shown}" + (f" ... and {more} more" if more > 0 else "")
        )
    if status.stale_files:
        shown = ", ".join(status.stale_files[:5])
        more = len(status.stale_files) - 5
        lines.append(
            f"stale {len(status.stale_files)}: {shown}"
            + (f" ... and {more} more" if more > 0 else "")
            + " (run `cq index`)"
        )
    else:
        lines.append("fresh: no stale files")
    return lines


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

    if args.command == "index":
        started = time.perf_counter()
        report, status = build_index(root, full=args.full, progress=sys.stderr.isatty() and not args.json)
        vectors = None
        if args.vectors:
            from .context import QueryContext
            from .search import build_vectors

            ctx = QueryContext(root=root, open_index=GraphBackend)
            vectors = build_vectors(ctx)
        elapsed = time.perf_counter() - started
        if args.json:
            payload = {
                "mode": report.mode,
                "reason": report.reason,
                "elapsed_s": round(elapsed, 3),
                "scanned": report.scanned,
                "stale": report.stale,
                "vectors_embedded": vectors,
                "status": _status_json(status),
            }
            print(json.dumps(payload, sort_keys=True))
            return EXIT_OK
        head = f"{report.mode} index" + (f" ({report.reason})" if report.reason else "")
        print(f"{head}: {report.scanned} files scanned in {elapsed:.2f} s")
        print("\n".join(_status_lines(status)[1:]))
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
