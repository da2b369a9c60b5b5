"""`cq def NAME` right after a save, answered without waiting for the index update.

An update costs a fresh process most of a CPU-second (DuckDB, resolution, the snapshot); on a loaded
machine that is longer than a query's deadline, and the answer would then come from the old snapshot. A
definition needs none of that: the saved files are extracted here (one tree-sitter parse each) and their
definitions of the name replace the snapshot's rows for those files, ordered as the snapshot orders
them. The detached update still runs and commits, for every other question and the next query.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

from ctxops_code_graph import reader


def definition_rows(root: str, con: sqlite3.Connection, name: str, modified: Sequence[str]) -> list[tuple[object, ...]]:
    """The rows (`reader.SYMBOL_SELECT` columns) of the plain name's definitions, best first, as the
    index will hold them once the `modified` files (indexed, their stat changed) are reindexed."""
    from ctxops_code_scan.config import ScanConfig
    from ctxops_code_scan.languages import language_for_path
    from ctxops_code_scan.records import ScanResult
    from ctxops_code_scan.scan import scan_file

    saved = set(modified)
    rows = [row for row in reader.definition_rows(con, name) if row[5] not in saved]
    config = ScanConfig.load(Path(root))
    for path in sorted(saved):
        spec = language_for_path(path)
        if spec is None:
            continue
        outcome = scan_file(Path(root), path, spec.name, config)
        if not isinstance(outcome, ScanResult):
            continue  # gone, or skipped by rule now: the update removes it from the index
        rows.extend(
            (
                s.id,
                s.name,
                s.qualname,
                s.kind,
                s.lang,
                path,
                s.line,
                s.end_line,
                s.signature,
                s.doc,
                s.parent,
                s.exported,
            )
            for s in outcome.symbols
            if s.name == name
        )
    paths = sorted({str(row[5]) for row in rows})
    marks = ", ".join("?" for _ in paths)
    ranks = (
        dict(con.execute(f"SELECT path, rank FROM files WHERE path IN ({marks})", paths).fetchall()) if paths else {}
    )
    # As `reader.definition_rows` orders a plain name: top-level first, then file rank, path, line.
    rows.sort(key=lambda r: (r[10] is not None, -(ranks.get(r[5]) or 0.0), r[5], r[6]))
    return rows
