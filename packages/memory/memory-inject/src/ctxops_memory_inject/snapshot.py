# ruff: noqa: PTH110, PTH112, PTH116, PTH118
"""The inject hook's read snapshot: SQLite (stdlib) with the active memories and their BM25 postings.

Decoding the whole memory catalog costs ~0.3 s at 10,000 entries on a busy machine; the hook only needs
the postings of the prompt's terms, the constants and the digests. ``.meta/index/memory-inject.sqlite``
holds them, indexed, and is brought up to date from the catalog (only files whose inode or time changed)
whenever an injection takes the catalog path. It is trusted without reading the catalog when the memory
directory's time is the one it was built from and that time is not within the racy window of the build
(the catalog's own rules, ``ctxops_memory_store.catalog``); stores of up to ``SMALL`` files always take
the catalog path, which is as fast there. Derived: delete it and the next injection rebuilds it.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
from collections.abc import Iterable, Sequence

from ctxops_memory_store.catalog import FULL_CHECK_AFTER_NS, RACY_NS, SMALL, Catalog

log = logging.getLogger(__name__)

NAME = "memory-inject.sqlite"
FORMAT = "1"
CONSTANT_KINDS = ("decision", "constraint", "convention")
RECENT_CONSTANTS = 60  # non-pinned constants read besides the ones the prompt matches (newest first)

Record = dict[str, object]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS files (file TEXT PRIMARY KEY, ino INTEGER, mtime_ns INTEGER);
CREATE TABLE IF NOT EXISTS docs (
    doc INTEGER PRIMARY KEY, file TEXT UNIQUE, kind TEXT, pinned INTEGER, born REAL, length REAL, entry TEXT);
CREATE TABLE IF NOT EXISTS postings (term TEXT, doc INTEGER, tf REAL);
CREATE INDEX IF NOT EXISTS postings_term ON postings (term);
CREATE INDEX IF NOT EXISTS postings_doc ON postings (doc);
CREATE INDEX IF NOT EXISTS docs_kind ON docs (kind, born);
"""


def path_for(index_dir: str) -> str:
    return os.path.join(index_dir, NAME)


def _born(entry: Record) -> float:
    from .ranking import born

    return born(entry)


class Snapshot:
    """An open snapshot (read side)."""

    def __init__(self, con: sqlite3.Connection) -> None:
        self.con = con
        meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
        self.n = int(meta.get("n", "0"))
        self.total = float(meta.get("total", "0"))

    def corpus(self) -> tuple[int, float]:
        return self.n, (self.total / self.n if self.n else 1.0)

    def records(self, terms: Sequence[str], top: int = 120) -> tuple[list[Record], dict[str, int]]:
        """Catalog-like records and the query terms' document frequencies: the ``top`` documents by BM25
        (scored in SQL, postings of the query's terms only), the pinned and the newest constants, and the
        newest digests. Ranking multiplies BM25 by at most ~2, so the final few are among the top 200."""
        from ctxops_memory_store.bm25 import K1, B, idf

        unique = sorted(set(terms))
        doc_freq: dict[str, int] = {}
        wanted: set[int] = set()
        by_doc: dict[int, dict[str, float]] = {}
        if unique and self.n:
            marks = ",".join("?" * len(unique))
            doc_freq = {
                str(t): int(c)
                for t, c in self.con.execute(
                    f"SELECT term, count(*) FROM postings WHERE term IN ({marks}) GROUP BY term", unique
                )
            }
            weights = [(t, idf(self.n, c)) for t, c in doc_freq.items()]
            if weights:
                values = ",".join("(?, ?)" for _ in weights)
                avgdl = self.corpus()[1]
                sql = (
                    f"WITH q(term, w) AS (VALUES {values}) "
                    "SELECT p.doc, sum(q.w * p.tf * ? / (p.tf + ? * (1 - ? + ? * d.length / ?))) AS score "
                    "FROM postings p JOIN q ON p.term = q.term JOIN docs d ON d.doc = p.doc "
                    "WHERE d.kind != 'summary' GROUP BY p.doc ORDER BY score DESC LIMIT ?"
                )
                params = [x for pair in weights for x in pair] + [K1 + 1, K1, B, B, avgdl, top]
                wanted = {int(doc) for doc, _ in self.con.execute(sql, params)}
        if wanted:
            docs = sorted(wanted)
            marks_d = ",".join("?" * len(docs))
            marks_t = ",".join("?" * len(unique))
            for term, doc, tf in self.con.execute(
                f"SELECT term, doc, tf FROM postings WHERE doc IN ({marks_d}) AND term IN ({marks_t})", [*docs, *unique]
            ):
                by_doc.setdefault(int(doc), {})[str(term)] = float(tf)
        rows = self.con.execute(
            "SELECT doc FROM docs WHERE pinned = 1 UNION "
            "SELECT doc FROM (SELECT doc FROM docs WHERE kind IN (?, ?, ?) ORDER BY born DESC LIMIT ?) UNION "
            "SELECT doc FROM (SELECT doc FROM docs WHERE kind = 'summary' ORDER BY born DESC LIMIT 20)",
            (*CONSTANT_KINDS, RECENT_CONSTANTS),
        ).fetchall()
        wanted |= {int(r[0]) for r in rows}
        out: list[Record] = []
        ids = sorted(wanted)
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for doc, length, entry in self.con.execute(
                f"SELECT doc, length, entry FROM docs WHERE doc IN ({marks})", chunk
            ):
                out.append({"entry": json.loads(entry), "terms": by_doc.get(int(doc), {}), "length": float(length)})
        return out, doc_freq


def open_trusted(index_dir: str, memory_dir: str) -> Snapshot | None:
    """The snapshot when it still describes the memory directory without reading it; else None."""
    import time

    path = path_for(index_dir)
    if not os.path.exists(path):
        return None
    try:
        dir_mtime = os.stat(memory_dir).st_mtime_ns
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except (OSError, sqlite3.Error):
        return None
    try:
        meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
        if meta.get("format") != FORMAT or meta.get("memory_dir") != memory_dir:
            con.close()
            return None
        built_mtime, checked = int(meta["dir_mtime_ns"]), int(meta["checked_ns"])
        fresh = (
            built_mtime == dir_mtime
            and checked - built_mtime >= RACY_NS
            and int(meta.get("files", "0")) > SMALL
            and time.time_ns() - int(meta["full_check_ns"]) < FULL_CHECK_AFTER_NS
        )
        if not fresh:
            con.close()
            return None
        return Snapshot(con)
    except (sqlite3.Error, KeyError, ValueError):
        con.close()
        return None


def update(index_dir: str, catalog: Catalog) -> None:
    """Bring the snapshot in step with ``catalog`` (changed files only); best effort, never raises."""
    try:
        _update(index_dir, catalog)
    except (OSError, sqlite3.Error) as exc:
        log.warning("inject snapshot not updated: %s", exc)


def _update(index_dir: str, catalog: Catalog) -> None:
    if not os.path.isdir(index_dir):
        return
    con = sqlite3.connect(path_for(index_dir), timeout=0.5)
    inserted: list[Record] = []
    try:
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=OFF")  # derived data: rebuilt from the files if a crash damages it
        con.executescript(_SCHEMA)
        meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
        if meta.get("format") not in (None, FORMAT) or meta.get("memory_dir") not in (None, catalog.memory_dir):
            con.executescript("DELETE FROM files; DELETE FROM docs; DELETE FROM postings;")
        known = {str(f): (int(i), int(m)) for f, i, m in con.execute("SELECT file, ino, mtime_ns FROM files")}
        current = catalog.records
        changed = [
            name for name, record in current.items() if known.get(name) != (record.get("ino"), record.get("mtime_ns"))
        ]
        removed = [name for name in known if name not in current]
        with con:
            for name in [*changed, *removed]:
                row = con.execute("SELECT doc FROM docs WHERE file = ?", (name,)).fetchone()
                if row is not None:
                    con.execute("DELETE FROM postings WHERE doc = ?", row)
                    con.execute("DELETE FROM docs WHERE doc = ?", row)
                con.execute("DELETE FROM files WHERE file = ?", (name,))
            for name in changed:
                record = current[name]
                con.execute("INSERT INTO files VALUES (?, ?, ?)", (name, record.get("ino"), record.get("mtime_ns")))
                _insert(con, name, record)
            n, total = con.execute(
                "SELECT count(*), coalesce(sum(length), 0) FROM docs WHERE kind != 'summary'"
            ).fetchone()
            values = {
                "format": FORMAT,
                "memory_dir": catalog.memory_dir,
                "dir_mtime_ns": catalog.dir_mtime_ns,
                "checked_ns": catalog.checked_ns,
                "full_check_ns": catalog.full_check_ns,
                "files": len(current),
                "n": n,
                "total": total,
            }
            con.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", [(k, str(v)) for k, v in values.items()])
    finally:
        con.close()
    _count_lines(index_dir, inserted)


def _count_lines(index_dir: str, records: list[Record]) -> None:
    """Count the memory line of every new entry now, so the hook does not load the tokenizer for them."""
    if not records:
        return
    from .build import memory_line
    from .tokens import LineCounter, TokenizerUnavailable

    counter = LineCounter(index_dir)
    try:
        for record in records:
            entry = record.get("entry")
            if isinstance(entry, dict):
                counter.line(memory_line(entry))
    except TokenizerUnavailable as exc:
        log.warning("memory lines not counted ahead: %s", exc)
    counter.save()


def _insert(con: sqlite3.Connection, name: str, record: Record) -> bool:
    entry, terms, length = record.get("entry"), record.get("terms"), record.get("length")
    if not isinstance(entry, dict) or entry.get("status") != "active":
        return False
    if not isinstance(terms, dict) or not isinstance(length, (int, float)):
        return False
    cursor = con.execute(
        "INSERT INTO docs (file, kind, pinned, born, length, entry) VALUES (?, ?, ?, ?, ?, ?)",
        (
            name,
            entry.get("kind"),
            1 if entry.get("pinned") else 0,
            _born(entry),
            float(length),
            json.dumps(entry, ensure_ascii=False),
        ),
    )
    doc = cursor.lastrowid
    rows: Iterable[tuple[str, int | None, float]] = ((str(t), doc, float(f)) for t, f in terms.items())
    con.executemany("INSERT INTO postings VALUES (?, ?, ?)", rows)
    return True
