"""Rid ranges that cut a table of references into slices, for statements that hold memory per row.

Resolution's heaviest statements (a type hop, picking each reference's best candidates) relate rows of one
reference (`rid`) only: run over a slice of references at a time they give the same rows while holding a
slice's hash tables, windows and aggregate states instead of the whole build's, which DuckDB could not
spill ("failed to pin block" at a ~46k-file build's 512 MB cap).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

ROWS = 50_000  # distinct references per slice: the stdlib's resolution (64k typed receivers) passes under a 100 MB cap


def ranges(con: Any, table: str, rows: int | None = None) -> Iterator[str]:
    """SQL conditions on `rid`, one per slice of at most `rows` distinct references of `table`, in order;
    a single `TRUE` when the table fits in one."""
    rows = rows or ROWS
    cuts = [
        int(r[0])
        for r in con.execute(
            "SELECT rid FROM (SELECT rid, row_number() OVER (ORDER BY rid) AS k"
            f" FROM (SELECT DISTINCT rid FROM {table})) WHERE k % $1 = 0 ORDER BY rid",
            [rows],
        ).fetchall()
    ]
    if not cuts:
        yield "TRUE"
        return
    for low, high in zip([None, *cuts], [*cuts, None], strict=True):
        yield " AND ".join(f"rid {op} {v}" for op, v in ((">", low), ("<=", high)) if v is not None)
