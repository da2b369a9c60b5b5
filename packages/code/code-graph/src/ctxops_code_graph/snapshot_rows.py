"""Writing the snapshot's references and edges in their compact layout (`ref_rows`, `edge_rows`).

Readers see the `refs` and `edges` views, whose columns are the old tables'; writers hand these functions
rows in that same shape. Repeated text goes to `strings` once and rows keep its key; an edge's kind,
confidence and resolution become one key into `edge_kinds`, and its file and line are dropped where its
reference has them (on the stdlib: 98 MB of snapshot, of which these two tables and their indexes were 60).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from .reader import file_refs_sql

Row = Sequence[Any]

_EDGE_INSERT = (
    "INSERT INTO edge_rows (rid, src_sk, dst_sk, how, fk, line)"
    " SELECT ?1, CASE WHEN r.rid IS NOT NULL AND r.enclosing_sk IS ?2 THEN NULL ELSE coalesce(?2, 0) END, ?3, ?4,"
    " CASE WHEN r.rid IS NOT NULL AND r.fk IS ?5 THEN NULL ELSE coalesce(?5, 0) END,"
    " CASE WHEN r.rid IS NOT NULL AND r.line IS ?6 THEN NULL ELSE coalesce(?6, -1) END"
    " FROM (SELECT 1) LEFT JOIN ref_rows r ON r.rid = ?1"
)


class Keys:
    """The snapshot's `strings` and `edge_kinds` keys, loaded once, new ones added as they come."""

    def __init__(self, con: sqlite3.Connection) -> None:
        self._con = con
        self._sids: dict[str, int] = dict(con.execute("SELECT text, sid FROM strings").fetchall())
        self._hows: dict[tuple[Any, Any, Any], int] = {
            (k, c, r): how for how, k, c, r in con.execute("SELECT how, kind, confidence, resolution FROM edge_kinds")
        }

    def sid(self, text: str | None) -> int | None:
        if text is None:
            return None
        found = self._sids.get(text)
        if found is None:  # (it may be there: `insert_imports` adds modules' text by SQL)
            self._con.execute("INSERT OR IGNORE INTO strings (text) VALUES (?)", (text,))
            (found,) = self._con.execute("SELECT sid FROM strings WHERE text = ?", (text,)).fetchone()
            self._sids[text] = found
        return found

    def how(self, kind: Any, confidence: Any, resolution: Any) -> int:
        key = (kind, confidence, resolution)
        found = self._hows.get(key)
        if found is None:
            cursor = self._con.execute("INSERT INTO edge_kinds (kind, confidence, resolution) VALUES (?, ?, ?)", key)
            found = self._hows[key] = int(cursor.lastrowid or 0)
        return found


_SPAN_KEYS = {"ref_spans": "fk", "enclosed_spans": "sk"}
_WIDEN = "DO UPDATE SET lo = min(lo, excluded.lo), hi = max(hi, excluded.hi)"


def _span_upsert(table: str, select: str = "VALUES (?, ?, ?)") -> str:
    """SQL adding spans (key, lo, hi) to ``table``, widening the ones there: a span always holds every
    reference of its key, whatever else it holds (stale width costs a longer scan, never a miss)."""
    return f"INSERT INTO {table} {select} ON CONFLICT({_SPAN_KEYS[table]}) {_WIDEN}"


def insert_refs(con: sqlite3.Connection, keys: Keys, rows: Iterable[Row]) -> None:
    """Rows (rid, symbol_name, fk, line, col, role, enclosing_sk, qualifier) into `ref_rows`, their
    files' spans widened to hold them."""
    sid = keys.sid
    batch = [(r[0], sid(r[1]), r[2], r[3], r[4], sid(r[5]), r[6], sid(r[7])) for r in rows]
    con.executemany("INSERT INTO ref_rows VALUES (?, ?, ?, ?, ?, ?, ?, ?)", batch)
    for table, column in (("ref_spans", 2), ("enclosed_spans", 6)):
        spans: dict[Any, tuple[int, int]] = {}
        for row in batch:
            rid, key = row[0], row[column]
            lo, hi = spans.get(key, (rid, rid))
            spans[key] = (min(lo, rid), max(hi, rid))
        con.executemany(_span_upsert(table), [(k, lo, hi) for k, (lo, hi) in spans.items() if k is not None])


def insert_edges(con: sqlite3.Connection, keys: Keys, rows: Iterable[Row]) -> None:
    """Rows (rid, src_sk, dst_sk, kind, confidence, fk, line, resolution) into `edge_rows`; their
    references must be in already (an edge keeps its file and line only where they differ)."""
    how = keys.how
    # (An edge whose target the snapshot does not hold answers nothing: not kept; its key needs a target.)
    con.executemany(
        _EDGE_INSERT, [(r[0], r[1], r[2], how(r[3], r[4], r[7]), r[5], r[6]) for r in rows if r[2] is not None]
    )


def copy_shard_refs(con: sqlite3.Connection, first_rid: int, enclosing: str = "r.enclosing_sk") -> None:
    """An attached shard's `refs` (plain layout, rids from 0) into `ref_rows`, inside SQLite; ``enclosing``
    is the SQL of the enclosing symbol's key (repacked) from `r`'s."""
    # Most used first: SQLite stores a key below 128 in one byte, below 32,768 in two, so the roles and the
    # commonest names and qualifiers (the first shard's) take the small keys (the stdlib's snapshot: -2 MB).
    con.execute(
        "INSERT OR IGNORE INTO strings (text) SELECT t FROM (SELECT symbol_name AS t FROM shard.refs"
        " UNION ALL SELECT role FROM shard.refs UNION ALL SELECT qualifier FROM shard.refs)"
        " WHERE t IS NOT NULL GROUP BY t ORDER BY count(*) DESC, t"
    )
    con.execute(
        f"INSERT INTO ref_rows SELECT r.rid + ?, n.sid, r.fk, r.line, r.col, o.sid, {enclosing}, q.sid"
        " FROM shard.refs r LEFT JOIN strings n ON n.text = r.symbol_name LEFT JOIN strings o ON o.text = r.role"
        " LEFT JOIN strings q ON q.text = r.qualifier ORDER BY r.rid",
        (first_rid,),
    )
    spans = "SELECT {0}, min(r.rid) + ?1, max(r.rid) + ?1 FROM shard.refs r WHERE {0} IS NOT NULL GROUP BY {0}"
    con.execute(_span_upsert("ref_spans", spans.format("r.fk")), (first_rid,))
    con.execute(_span_upsert("enclosed_spans", spans.format(enclosing)), (first_rid,))


def insert_imports(con: sqlite3.Connection, rows: Sequence[Row]) -> None:
    """`imports` rows (fk, module, name, alias, line, target_fk) into `import_rows`, each module's text in
    `strings` (by SQL, not `Keys`: a shard's copy adds strings behind a `Keys`' back)."""
    modules = dict.fromkeys(r[1] for r in rows if r[1] is not None)  # first seen first: a stable order
    con.executemany("INSERT OR IGNORE INTO strings (text) VALUES (?)", [(m,) for m in modules])
    con.executemany(
        "INSERT INTO import_rows VALUES (?1, (SELECT sid FROM strings WHERE text = ?2), ?3, ?4, ?5, ?6)", rows
    )


def delete_file_rows(con: sqlite3.Connection, fk: int, tables: Iterable[str]) -> None:
    """Delete one file's rows from `symbols`, `refs`, `imports` and `edges` (edges before their references:
    an edge finds its file through them)."""
    wanted = set(tables)
    if "edges" in wanted:
        con.execute(
            f"DELETE FROM edge_rows WHERE fk IS NULL AND rid IN (SELECT rid FROM ref_rows WHERE {file_refs_sql('')})",
            (fk,),
        )
        con.execute("DELETE FROM edge_rows WHERE fk = ?", (fk,))
    if "refs" in wanted:
        con.execute(f"DELETE FROM ref_rows WHERE {file_refs_sql('')}", (fk,))
        con.execute("DELETE FROM ref_spans WHERE fk = ?", (fk,))
        con.execute("DELETE FROM enclosed_spans WHERE sk IN (SELECT sk FROM symbol_rows WHERE fk = ?)", (fk,))
    for table, stored in (("symbols", "symbol_rows"), ("imports", "import_rows")):
        if table in wanted:
            con.execute(f"DELETE FROM {stored} WHERE fk = ?", (fk,))
