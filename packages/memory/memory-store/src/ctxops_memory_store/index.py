"""The derived DuckDB index of the memory files: BM25 in SQL plus metadata filters.

One writer per DuckDB file: a rebuild writes a fresh file under a short lock and swaps it in with
``os.replace``, so readers (read-only connections, opened per query) never meet a half-built index and
never wait on a writer. A reader that finds the index missing, stale and locked, or damaged returns
None, and the caller ranks by scanning the Markdown files instead.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ctxops_contracts import MemoryEntry
from ctxops_contracts.shared.confine import ensure_dir
from ctxops_contracts.shared.locks import LockBusy, file_lock

from . import bm25
from .terms import tokens, weighted_terms

INDEX_NAME = "memory.duckdb"
LOCK_NAME = "memory.lock"
INDEX_FORMAT = "2"  # 2: the session-5 stemmer (see terms._stem_of)


@dataclass(frozen=True)
class Filters:
    """Metadata filters of a search; None means "any"."""

    kinds: tuple[str, ...] | None = None
    statuses: tuple[str, ...] | None = ("active",)
    scope_path: str | None = None
    since: datetime | None = None
    until: datetime | None = None


def files_signature(memory_dir: Path) -> str:
    """A digest of the memory files' names, sizes and modification times: changes when any file does."""
    digest = hashlib.sha256(INDEX_FORMAT.encode())
    if memory_dir.is_dir():
        for entry in sorted(os.scandir(memory_dir), key=lambda e: e.name):
            if entry.name.endswith(".md") and entry.is_file():
                stat = entry.stat()
                digest.update(f"{entry.name}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def scope_matches(scope: Iterable[str], path: str) -> bool:
    """Global entries (no scope) match every path; otherwise a glob or a directory prefix must match."""
    from fnmatch import fnmatchcase

    scope = list(scope)
    if not scope:
        return True
    for pattern in scope:
        prefix = pattern.rstrip("*").rstrip("/")
        if fnmatchcase(path, pattern) or (prefix and (path == prefix or path.startswith(prefix + "/"))):
            return True
    return False


class MemoryIndex:
    """The DuckDB file under ``.meta/index/`` for one repository."""

    def __init__(self, index_dir: Path, memory_dir: Path) -> None:
        self.index_dir = index_dir
        self.memory_dir = memory_dir
        self.path = index_dir / INDEX_NAME

    @contextmanager
    def _read(self) -> Iterator[object]:
        import duckdb

        con = duckdb.connect(str(self.path), read_only=True)
        try:
            yield con
        finally:
            con.close()

    def stored_signature(self) -> str | None:
        """The signature the index was built from, or None when it is missing, locked or damaged."""
        if not self.path.exists():
            return None
        try:
            with self._read() as con:
                row = con.execute("SELECT value FROM meta WHERE key = 'signature'").fetchone()  # type: ignore[attr-defined]
        except Exception:  # duckdb raises several types for locked and corrupt files
            return None
        return str(row[0]) if row else None

    def is_fresh(self) -> bool:
        return self.stored_signature() == files_signature(self.memory_dir)

    def rebuild(self, entries: Iterable[MemoryEntry], paths: dict[str, str], *, lock_timeout: float = 2.0) -> bool:
        """Build a new index from ``entries`` and swap it in; False when another writer holds the lock."""
        import duckdb

        ensure_dir(self.index_dir)  # 0700; a symlinked .meta/index is refused
        signature = files_signature(self.memory_dir)
        try:
            with file_lock(self.index_dir / LOCK_NAME, timeout=lock_timeout):
                if self.stored_signature() == signature:
                    return True  # another process rebuilt it while we waited
                tmp = self.index_dir / f".{INDEX_NAME}.{os.getpid()}.{time.monotonic_ns()}.tmp"
                con = duckdb.connect(str(tmp))
                try:
                    _create(con, entries, paths, signature, self.index_dir)
                    con.execute("CHECKPOINT")
                finally:
                    con.close()
                tmp.chmod(0o600)  # DuckDB creates its file with the umask's mode
                Path(str(tmp) + ".wal").unlink(missing_ok=True)
                tmp.replace(self.path)
                return True
        except LockBusy:
            return False

    def search(self, query: str, filters: Filters, limit: int) -> list[tuple[str, float]] | None:
        """(entry id, BM25 score), best first; None when the index cannot answer (caller scans files)."""
        terms = sorted(set(tokens(query)))
        if not terms:
            return []
        where, params = _filter_sql(filters)
        sql = f"""
            WITH q AS (SELECT unnest($terms) AS term),
            stats AS (SELECT count(*) AS n, coalesce(avg(doc_len), 1) AS avgdl FROM entries),
            df AS (SELECT p.term, count(*) AS df FROM postings p JOIN q USING (term) GROUP BY p.term),
            scored AS (
                SELECT p.id, sum(
                    ln(1 + (stats.n - df.df + 0.5) / (df.df + 0.5))
                    * p.tf * ({bm25.K1} + 1)
                    / (p.tf + {bm25.K1} * (1 - {bm25.B} + {bm25.B} * e.doc_len / stats.avgdl))
                ) AS score
                FROM postings p JOIN df USING (term) JOIN entries e USING (id), stats
                GROUP BY p.id
            )
            SELECT e.id, s.score, e.scope FROM scored s JOIN entries e USING (id)
            WHERE {where}
            ORDER BY s.score DESC, e.id
        """
        try:
            with self._read() as con:
                rows = con.execute(sql, {"terms": terms, **params}).fetchall()  # type: ignore[attr-defined]
        except Exception:
            return None
        hits = [
            (str(i), float(s))
            for i, s, scope in rows
            if not filters.scope_path or scope_matches(scope, filters.scope_path)
        ]
        return hits[:limit]


def _filter_sql(filters: Filters) -> tuple[str, dict[str, object]]:
    clauses = ["TRUE"]
    params: dict[str, object] = {}
    if filters.kinds:
        clauses.append("list_contains($kinds, e.kind)")
        params["kinds"] = list(filters.kinds)
    if filters.statuses:
        clauses.append("list_contains($statuses, e.status)")
        params["statuses"] = list(filters.statuses)
    if filters.since:
        clauses.append("e.created_at >= $since")
        params["since"] = filters.since
    if filters.until:
        clauses.append("e.created_at < $until")
        params["until"] = filters.until
    return " AND ".join(clauses), params


def _create(con: object, entries: Iterable[MemoryEntry], paths: dict[str, str], signature: str, load_dir: Path) -> None:
    run = con.execute  # type: ignore[attr-defined]
    run("CREATE TABLE meta (key VARCHAR PRIMARY KEY, value VARCHAR)")
    run(
        """CREATE TABLE entries (
            id VARCHAR PRIMARY KEY, path VARCHAR, kind VARCHAR, status VARCHAR, title VARCHAR, body VARCHAR,
            scope VARCHAR[], tags VARCHAR[], files VARCHAR[], pinned BOOLEAN, created_at TIMESTAMPTZ,
            valid_from TIMESTAMPTZ, valid_until TIMESTAMPTZ, superseded_by VARCHAR, doc_len DOUBLE)"""
    )
    run("CREATE TABLE postings (id VARCHAR, term VARCHAR, tf DOUBLE)")
    # Bulk load through newline-delimited JSON read by DuckDB itself: executemany inserts row by row
    # (minutes for the postings of ten thousand entries; this takes about a second).
    import json
    import tempfile

    entry_columns = {
        "id": "VARCHAR", "path": "VARCHAR", "kind": "VARCHAR", "status": "VARCHAR", "title": "VARCHAR",
        "body": "VARCHAR", "scope": "VARCHAR[]", "tags": "VARCHAR[]", "files": "VARCHAR[]", "pinned": "BOOLEAN",
        "created_at": "TIMESTAMPTZ", "valid_from": "TIMESTAMPTZ", "valid_until": "TIMESTAMPTZ",
        "superseded_by": "VARCHAR", "doc_len": "DOUBLE",
    }  # fmt: skip
    posting_columns = {"id": "VARCHAR", "term": "VARCHAR", "tf": "DOUBLE"}

    def stamp(value: object) -> object:
        return value.isoformat() if hasattr(value, "isoformat") else value

    with tempfile.TemporaryDirectory(prefix=".bulk-", dir=str(load_dir)) as tmp:
        entries_path, postings_path = Path(tmp) / "entries.jsonl", Path(tmp) / "postings.jsonl"
        with entries_path.open("w", encoding="utf-8") as ef, postings_path.open("w", encoding="utf-8") as pf:
            for entry in entries:
                tf, length = weighted_terms(entry.title, entry.body, entry.tags, entry.scope)
                row = {
                    "id": entry.id, "path": paths.get(entry.id, ""), "kind": entry.kind, "status": entry.status,
                    "title": entry.title, "body": entry.body, "scope": entry.scope, "tags": entry.tags,
                    "files": entry.files, "pinned": entry.pinned, "created_at": stamp(entry.created_at),
                    "valid_from": stamp(entry.valid_from), "valid_until": stamp(entry.valid_until),
                    "superseded_by": entry.superseded_by, "doc_len": length,
                }  # fmt: skip
                ef.write(json.dumps(row, ensure_ascii=False) + "\n")
                for term, freq in tf.items():
                    pf.write(json.dumps({"id": entry.id, "term": term, "tf": freq}, ensure_ascii=False) + "\n")
        for table, path, columns in (
            ("entries", entries_path, entry_columns),
            ("postings", postings_path, posting_columns),
        ):
            if path.stat().st_size:
                run(
                    f"INSERT INTO {table} SELECT * FROM read_json(?, format='newline_delimited', columns=?)",
                    [str(path), columns],
                )
    run("INSERT INTO meta VALUES ('signature', ?), ('format', ?)", [signature, INDEX_FORMAT])
    run("CREATE INDEX postings_term ON postings (term)")
