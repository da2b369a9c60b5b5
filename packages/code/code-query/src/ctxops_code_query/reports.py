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
