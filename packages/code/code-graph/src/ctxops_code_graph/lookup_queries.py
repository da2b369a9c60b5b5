"""The read queries `CodeIndex` runs on the SQLite lookup snapshot (rows in, rows out; stdlib only).

Rows of symbols follow `reader.SYMBOL_SELECT`; files are (path, lang, size, mtime_ns, content_hash,
parse_status, error).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from .reader import ID_WHERE, SYMBOL_SELECT, id_of, id_params, names_near

Row = tuple[Any, ...]
__all__ = ["names_near"]  # with the other queries here; it lives in `reader` for the fast path
WALK_LIMIT = 5000
_FILE_COLS = "path, lang, size, mtime_ns, content_hash, parse_status, error"
_INBOUND = ", (SELECT count(*) FROM edges e WHERE e.dst_sk = s.sk) AS n"


def symbol_row(con: sqlite3.Connection, symbol_id: str) -> Row | None:
    row: Row | None = con.execute(f"{SYMBOL_SELECT} WHERE {ID_WHERE}", id_params(symbol_id)).fetchone()
    return row


def symbols_in_file(con: sqlite3.Connection, path: str) -> list[Row]:
    return con.execute(f"{SYMBOL_SELECT} WHERE f.path = ? ORDER BY s.line, s.end_line DESC", (path,)).fetchall()


def names(con: sqlite3.Connection) -> list[str]:
    """Every distinct symbol name and qualified name, in one indexed query."""
    return [r[0] for r in con.execute("SELECT name FROM symbols UNION SELECT qualname FROM symbols ORDER BY 1")]


def all_symbol_rows(con: sqlite3.Connection) -> Iterator[Row]:
    yield from con.execute(f"{SYMBOL_SELECT} ORDER BY f.path, s.line")


def reference_rows(con: sqlite3.Connection, name: str, limit: int) -> list[Row]:
    """(symbol_name, path, line, col, role, enclosing id, qualifier) of every use of a bare name."""
    return con.execute(
        f"SELECT r.symbol_name, f.path, r.line, r.col, r.role, {id_of('e')}, r.qualifier FROM refs r"
        " JOIN files f ON f.fk = r.fk LEFT JOIN symbol_rows e ON e.sk = r.enclosing_sk WHERE r.symbol_name = ?"
        " ORDER BY f.path, r.line, r.col LIMIT ?",
        (name, limit),
    ).fetchall()


def imports_of(con: sqlite3.Connection, path: str) -> list[Row]:
    """(module, name, line, target path) of the imports of ``path``."""
    return con.execute(
        "SELECT i.module, i.name, i.line, t.path FROM imports i JOIN files f ON f.fk = i.fk"
        " LEFT JOIN files t ON t.fk = i.target_fk WHERE f.path = ? ORDER BY i.line, i.module, i.name",
        (path,),
    ).fetchall()


def importers_of(con: sqlite3.Connection, path: str) -> list[str]:
    rows = con.execute(
        "SELECT DISTINCT f.path FROM imports i JOIN files f ON f.fk = i.fk JOIN files t ON t.fk = i.target_fk"
        " WHERE t.path = ? AND f.path <> t.path ORDER BY f.path",
        (path,),
    )
    return [r[0] for r in rows]


def file_langs(con: sqlite3.Connection) -> dict[str, str | None]:
    return dict(con.execute("SELECT path, lang FROM files").fetchall())


def paths_matching(con: sqlite3.Connection, term: str) -> list[str]:
    """Files whose path contains ``term`` (lower case)."""
    return [r[0] for r in con.execute("SELECT path FROM files WHERE instr(lower(path), ?) > 0", (term,))]


def symbol_matches_by_file(con: sqlite3.Connection, term: str) -> list[tuple[str, int]]:
    """(path, count) of the symbols whose name contains ``term`` (lower case)."""
    return con.execute(
        "SELECT f.path, count(*) FROM symbols s JOIN files f ON f.fk = s.fk"
        " WHERE instr(lower(s.name), ?) > 0 GROUP BY f.path",
        (term,),
    ).fetchall()


def file_edges(con: sqlite3.Connection) -> list[tuple[str, str, float]]:
    return con.execute(
        "SELECT a.path, b.path, e.weight FROM file_edges e JOIN files a ON a.fk = e.src_fk"
        " JOIN files b ON b.fk = e.dst_fk"
    ).fetchall()


def file_ranks(con: sqlite3.Connection) -> dict[str, float]:
    return dict(con.execute("SELECT path, rank FROM files").fetchall())


def key_symbols(con: sqlite3.Connection, path: str, limit: int) -> list[Row]:
    """The top-level symbols of ``path`` most used from elsewhere (`SYMBOL_SELECT` columns)."""
    rows = con.execute(
        f"{SYMBOL_SELECT.replace(' FROM symbol_rows s', _INBOUND + ' FROM symbol_rows s', 1)}"
        " WHERE f.path = ? AND s.parent_sk IS NULL ORDER BY n DESC, s.line LIMIT ?",
        (path, limit),
    ).fetchall()
    return [r[:-1] for r in rows]


def file_row(con: sqlite3.Connection, path: str) -> Row | None:
    row: Row | None = con.execute(f"SELECT {_FILE_COLS} FROM files WHERE path = ?", (path,)).fetchone()
    return row


def file_rows(con: sqlite3.Connection, problems_only: bool = False) -> list[Row]:
    where = " WHERE parse_status <> 'ok'" if problems_only else ""
    return con.execute(f"SELECT {_FILE_COLS} FROM files{where} ORDER BY path").fetchall()


# The rows behind a view, counted directly (the view's outer joins keep every row): through the view,
# SQLite walks every row's joins (the stdlib's edges: 0.46 s against 1 ms).
_COUNTED = {"refs": "ref_rows", "edges": "edge_rows"}


def count(con: sqlite3.Connection, table: str) -> int:
    return int(con.execute(f"SELECT count(*) FROM {_COUNTED.get(table, table)}").fetchone()[0])


def counts(con: sqlite3.Connection, what: str) -> dict[str, int]:
    """Counts for the status report: files by language, edges by confidence, skipped files by reason."""
    sql = {
        "languages": "SELECT lang, count(*) FROM files GROUP BY lang ORDER BY count(*) DESC",
        # Counted by the edges' small key first: through the `edges` view it looks each row's kind up.
        "confidence": "SELECT h.confidence, sum(n) FROM (SELECT how, count(*) AS n FROM edge_rows GROUP BY how)"
        " JOIN edge_kinds h USING (how) GROUP BY h.confidence ORDER BY 1",
        "skipped": "SELECT CASE WHEN instr(reason, ':') > 0 THEN substr(reason, 1, instr(reason, ':') - 1)"
        " ELSE reason END, count(*) FROM skipped GROUP BY 1 ORDER BY 2 DESC",
    }[what]
    return {str(k): int(v) for k, v in con.execute(sql).fetchall()}


def vendored_dirs(con: sqlite3.Connection, limit: int = 50) -> list[tuple[str, str]]:
    """Directories left out as vendored, with why (`vendored: has its own package.json`), by path."""
    rows = con.execute(
        "SELECT path, reason FROM skipped WHERE reason LIKE 'vendored%' ORDER BY path LIMIT ?", (limit,)
    ).fetchall()
    return [(str(p), str(r).removeprefix("vendored: ") if str(r) != "vendored" else "vendored") for p, r in rows]


def symbol_key(con: sqlite3.Connection, symbol_id: str) -> int | None:
    row = con.execute(f"SELECT sk FROM symbol_rows s WHERE {ID_WHERE}", id_params(symbol_id)).fetchone()
    return None if row is None else int(row[0])


def walk(
    con: sqlite3.Connection, start: int, depth: int, kinds: Sequence[str], upward: bool, *, certain_only: bool = False
) -> list[Row]:
    """Edges reachable from symbol key ``start`` in ``depth`` hops over edge kinds ``kinds``, up (callers)
    or down (callees): rows (src_sk, dst_sk, kind, confidence, path, line, resolution, depth), nearest
    first; ``certain_only`` follows no name-only edge."""
    if not upward:
        return _walk_down(con, start, depth, kinds, certain_only)
    marks = ", ".join("?" for _ in kinds)
    sure = " AND e.confidence <> 'name-only'" if certain_only else ""
    sql = f"""
    WITH RECURSIVE walk(src_sk, dst_sk, kind, confidence, fk, line, resolution, depth) AS (
      SELECT src_sk, dst_sk, kind, confidence, fk, line, resolution, 1 FROM edges e
      WHERE dst_sk = ? AND kind IN ({marks}){sure}
      UNION
      SELECT e.src_sk, e.dst_sk, e.kind, e.confidence, e.fk, e.line, e.resolution, w.depth + 1
      FROM edges e JOIN walk w ON e.dst_sk = w.src_sk
      WHERE w.depth < ? AND e.kind IN ({marks}){sure}
      LIMIT {WALK_LIMIT}
    )
    SELECT w.src_sk, w.dst_sk, w.kind, w.confidence, f.path, w.line, w.resolution, min(w.depth) FROM walk w
    JOIN files f ON f.fk = w.fk
    GROUP BY w.src_sk, w.dst_sk, w.kind, w.confidence, w.fk, w.line, w.resolution
    ORDER BY min(w.depth), f.path, w.line
    """
    return con.execute(sql, (start, *kinds, depth, *kinds)).fetchall()


def _walk_down(con: sqlite3.Connection, start: int, depth: int, kinds: Sequence[str], certain_only: bool) -> list[Row]:
    """`walk` downwards, hop by hop: each symbol reached is expanded once, at its nearest depth (a later
    expansion reaches nothing nearer), until `WALK_LIMIT` edges."""
    nearest: dict[Row, int] = {}
    expanded: set[int] = set()
    frontier = {start}
    for level in range(1, depth + 1):
        expanded |= frontier
        reached: set[int] = set()
        for row in _edges_from(con, frontier, kinds, certain_only):
            nearest.setdefault(row, level)
            if row[1] is not None:
                reached.add(row[1])
            if len(nearest) >= WALK_LIMIT:
                break
        frontier = reached - expanded
        if not frontier or len(nearest) >= WALK_LIMIT:
            break
    fks = sorted({row[4] for row in nearest if row[4] is not None})
    paths: dict[int, str] = {}
    for begin in range(0, len(fks), 500):
        chunk = fks[begin : begin + 500]
        marks = ", ".join("?" for _ in chunk)
        paths.update(con.execute(f"SELECT fk, path FROM files WHERE fk IN ({marks})", chunk).fetchall())
    out = [(*row[:4], paths[row[4]], *row[5:], level) for row, level in nearest.items() if row[4] in paths]
    out.sort(key=lambda r: (r[7], r[4], _none_first(r[5]), *map(_none_first, r[:4]), _none_first(r[6])))
    return out


def _none_first(value: Any) -> tuple[bool, Any]:
    return (value is not None, value)


def _edges_from(con: sqlite3.Connection, sources: set[int], kinds: Sequence[str], certain_only: bool) -> list[Row]:
    """(src_sk, dst_sk, kind, confidence, fk, line, resolution) of the edges out of ``sources``: through
    the references they enclose (an edge's source is its reference's enclosing symbol unless it says
    otherwise; a symbol's references are a range of their keys, `enclosed_spans`), and the few edges whose
    source is stored apart."""
    marks = ", ".join("?" for _ in kinds)
    sure = " AND e.confidence <> 'name-only'" if certain_only else ""
    cols = "e.src_sk, e.dst_sk, e.kind, e.confidence, e.fk, e.line, e.resolution"
    rows: set[Row] = set()
    ordered = sorted(sources)
    for begin in range(0, len(ordered), 500):
        chunk = ordered[begin : begin + 500]
        at = ", ".join("?" for _ in chunk)
        rows.update(
            con.execute(
                f"SELECT {cols} FROM edges e WHERE e.rid IN (SELECT r.rid FROM enclosed_spans p JOIN ref_rows r"
                f" ON r.rid BETWEEN p.lo AND p.hi AND r.enclosing_sk = p.sk WHERE p.sk IN ({at}))"
                f" AND e.src_sk IN ({at}) AND e.kind IN ({marks}){sure}"
                f" UNION SELECT {cols} FROM edges e WHERE e.rid IN (SELECT rid FROM edge_rows WHERE src_sk IN ({at}))"
                f" AND e.src_sk IN ({at}) AND e.kind IN ({marks}){sure}",
                (*chunk, *chunk, *kinds, *chunk, *chunk, *kinds),
            )
        )
    return sorted(rows, key=lambda r: tuple(map(_none_first, r)))


def symbols_by_key(con: sqlite3.Connection, keys: Iterable[int]) -> dict[int, Row]:
    """`SYMBOL_SELECT` rows by symbol key."""
    out: dict[int, Row] = {}
    batch = sorted(keys)
    select = SYMBOL_SELECT.replace("SELECT ", "SELECT s.sk, ", 1)
    for begin in range(0, len(batch), 500):
        chunk = batch[begin : begin + 500]
        marks = ", ".join("?" for _ in chunk)
        for row in con.execute(f"{select} WHERE s.sk IN ({marks})", chunk):
            out[row[0]] = row[1:]
    return out
