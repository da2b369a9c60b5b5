"""The SQLite lookup snapshot: what the read API needs, in a file the stdlib opens in milliseconds.

A full build writes a new generation file and switches `code-lookup.current` to it with `os.replace`;
an incremental update applies its delta in one transaction (WAL mode: readers keep their snapshot and
are never blocked; a killed writer's transaction never becomes visible). Paths and symbol ids are
interned as integer keys (`fk`, `sk`) that stay stable across updates for files and symbols that remain.
"""

from __future__ import annotations

import sqlite3
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctxops_contracts.shared.files import atomic_write

from . import reader, rid_slices
from .layout import IndexLayout
from .schema import FILE_EDGE_INSERT, SQLITE_DDL, SQLITE_INDEXES, VIEW_TABLES, id_full_sql, stored_symbol_sql
from .snapshot_rows import Keys, copy_shard_refs, delete_file_rows, insert_edges, insert_imports, insert_refs

if TYPE_CHECKING:
    from .bulk_load import SnapshotKeys

Row = tuple[Any, ...]


class LookupMissing(FileNotFoundError):
    """No lookup snapshot yet: the repository has not been indexed."""


@dataclass
class Delta:
    """One incremental update, in the build store's shape."""

    meta: list[tuple[str, str]]
    scanned_paths: list[str]  # files re-extracted (their old rows go)
    deleted_paths: list[str]  # files gone from the index
    files: list[Row]
    touched: list[tuple[int, int, str]]  # (mtime_ns, size, path): same content, new stat
    symbols: list[Row]
    refs: list[Row]
    imports: list[Row]
    imports_replace_all: bool
    skipped: list[Row] | None  # None: keep; else the complete new list
    new_skipped: list[Row]
    dirs: list[tuple[str, int]] | None
    reresolved_rids: list[int]
    edges: list[Row]
    file_edges: list[Row] | None  # None: unchanged
    ranks: list[tuple[str, float]] | None
    extra: dict[str, Any] = field(default_factory=dict)


# Snapshot rows straight from the build store: DuckDB joins the integer keys in, Python only shuttles.
# Tables keyed by an INTEGER PRIMARY KEY (the rowid) are read in key order: SQLite appends rows in rowid
# order to the end of the table's B-tree, and in the hash joins' order it splits pages all over it (the
# stdlib's 590k references: 3.8 -> 1.9 CPU-s).
# The tables a full build has once it has loaded the scan, written while resolution runs...
_EARLY_FROM_DUCKDB = {
    "skipped": "SELECT DISTINCT ON (path) path, reason, size FROM skipped",
    "dirs": "SELECT path, mtime_ns FROM dirs",
    "symbols": f"SELECT k.sk, {id_full_sql('s', 's.path')}, s.name, s.qualname, s.kind, s.lang, f.fk, s.line,"
    " s.end_line, s.signature, s.doc, p.sk, s.exported FROM symbols s JOIN snap_sk k USING (id)"
    " JOIN snap_fk f ON f.path = s.path LEFT JOIN snap_sk p ON p.id = s.parent ORDER BY k.sk",
    "refs": "SELECT r.rid, r.symbol_name, f.fk, r.line, r.col, r.role, e.sk, r.qualifier FROM refs r"
    " JOIN snap_fk f ON f.path = r.path LEFT JOIN snap_sk e ON e.id = r.enclosing ORDER BY r.rid",
    "imports": "SELECT f.fk, i.module, i.name, i.alias, i.line, t.fk FROM imports i JOIN snap_fk f ON f.path = i.path"
    " LEFT JOIN snap_fk t ON t.path = i.target_path",
}
# ... and those that need the resolution's results.
_LATE_FROM_DUCKDB = {
    "meta": "SELECT key, value FROM meta",
    "files": "SELECT k.fk, f.path, f.lang, f.size, f.mtime_ns, f.content_hash, f.parse_status, f.error,"
    " coalesce(r.rank, 0) FROM files f JOIN snap_fk k USING (path) LEFT JOIN ranks r USING (path) ORDER BY k.fk",
    "file_edges": "SELECT a.fk, b.fk, e.kind, e.weight FROM file_edges e JOIN snap_fk a ON a.path = e.src"
    " JOIN snap_fk b ON b.path = e.dst",
}
# ... and the edges, copied as soon as resolution is done (`copy_edges`), or with the rest.
_EDGES_FROM_DUCKDB = {
    "edges": "SELECT e.rid, a.sk, b.sk, e.kind, e.confidence, f.fk, e.line, e.resolution FROM edges e"
    " JOIN snap_sk b ON b.id = e.dst LEFT JOIN snap_sk a ON a.id = e.src JOIN snap_fk f ON f.path = e.path"
    " WHERE {slice} ORDER BY e.rid, b.sk",  # the order of `edge_rows`' key: appended, no page split
}
# The edges are copied a range of references at a time (`rid_slices`, in rid order: the same rows in the
# same order): in one statement the `edges` view's join of every edge to its reference, the key lookups and
# the sort held more than DuckDB's 512 MB cap on a 10.7M-line corpus, beside the file graph's statement.
EDGE_COPY_ROWS = 250_000
_BATCH = 50_000
_STORED_AS = {"symbols": "symbol_rows"}  # the view's table, where its rows are copied in the view's columns


class GenerationWriter:
    """Writes a complete snapshot generation from the build store, in two halves.

    `start` (once files, symbols, references and imports are loaded) copies those tables in a background
    thread, on its own DuckDB cursor, while the caller resolves references: DuckDB runs its queries
    without the GIL, so the copy and the resolution overlap. `finish` (after edges and ranks exist) adds
    the rest, builds the indexes and renames the file into place; nothing is current until `publish`.
    """

    def __init__(
        self,
        layout: IndexLayout,
        duck: Any,
        keys: SnapshotKeys | None = None,
        shards: Sequence[tuple[str, int]] = (),
        max_symbols: int | None = None,
        *,
        memory_fallback: str | None = None,
    ) -> None:
        """`keys` and `shards` (a full build's scan wrote the `refs` rows itself, keyed by `keys`): the
        references are copied from the shards, every other table from the build store, keyed alike.
        `max_symbols` (the most symbols a scanned file has): symbol keys packed to the bits it needs.
        `memory_fallback`: DuckDB's cap for a second try of the edge copy that ran out of memory."""
        layout.ensure_index_dir()
        current = layout.current_lookup()
        generation = _generation_of(current) + 1 if current else 1
        self.final = layout.lookup_path(generation)
        self.tmp = self.final.with_name(self.final.name + ".tmp")
        self.tmp.unlink(missing_ok=True)
        self._duck = duck
        self._keys = keys
        self._packed = keys.packed(max_symbols) if keys is not None and max_symbols is not None else keys
        self._shards = list(shards)
        self._edges_copied = False
        self._memory_fallback = memory_fallback
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        self._con = sqlite3.connect(self.tmp, check_same_thread=False)

    def start(self) -> None:
        # Real tables, not TEMP ones: a temp table is private to the connection that made it.
        if self._keys is None:
            self._duck.execute(
                "CREATE OR REPLACE TABLE snap_fk AS SELECT path, row_number() OVER (ORDER BY path) AS fk FROM files"
            )
            self._duck.execute(
                "CREATE OR REPLACE TABLE snap_sk AS"
                " SELECT id, row_number() OVER (ORDER BY path, line, id) AS sk FROM symbols"
            )
        else:  # as the scan keyed the shards' rows (bulk_load.SnapshotKeys), packed
            assert self._packed is not None
            self._duck.execute("CREATE OR REPLACE TABLE snap_fk (path VARCHAR, fk BIGINT)")
            keyed = sorted(self._keys.fks.items())
            self._duck.execute(
                "INSERT INTO snap_fk SELECT * FROM (SELECT unnest($1::VARCHAR[]) AS path, unnest($2::BIGINT[]) AS fk)"
                " WHERE path IN (SELECT path FROM files)",
                [[p for p, _ in keyed], [k for _, k in keyed]],
            )
            self._duck.execute(
                "CREATE OR REPLACE TABLE snap_sk AS SELECT s.id, (f.fk << $1)"
                " + row_number() OVER (PARTITION BY s.path ORDER BY s.line, s.id) - 1 AS sk"
                " FROM symbols s JOIN snap_fk f USING (path)",
                [self._packed.shift],
            )
        self._con.execute("PRAGMA journal_mode=OFF")  # a private temp file until the rename: no journal needed
        self._con.execute("PRAGMA synchronous=OFF")
        for statement in SQLITE_DDL:
            self._con.execute(statement)
        self._keys_of_rows = Keys(self._con)
        self._thread = threading.Thread(target=self._copy_early, args=(self._duck.cursor(),), daemon=True)
        self._thread.start()

    def _copy_early(self, cursor: Any) -> None:
        def work() -> None:
            if self._keys is not None:
                self._copy_shards()
                self._copy(cursor, {t: q for t, q in _EARLY_FROM_DUCKDB.items() if t not in ("refs", "symbols")})
            else:
                self._copy(cursor, _EARLY_FROM_DUCKDB)
            for statement in _indexes_on(_EARLY_FROM_DUCKDB):
                self._con.execute(statement)

        self._in_background(cursor, work)

    def copy_edges(self) -> None:
        """Once resolution has made the edges: copy them (and index them) in the background, after the
        early tables, while the caller ranks the files."""
        previous = self._thread
        self._thread = threading.Thread(target=self._copy_edges, args=(self._duck.cursor(), previous), daemon=True)
        self._thread.start()
        self._edges_copied = True

    def _copy_edges(self, cursor: Any, previous: threading.Thread | None) -> None:
        def work() -> None:
            if previous is not None:
                previous.join()  # (one SQLite connection: the early copy must be done with it)
            if self._error is None:
                self._copy_edges_within_cap(cursor)
                for statement in _indexes_on(_EDGES_FROM_DUCKDB):
                    self._con.execute(statement)

        self._in_background(cursor, work)

    def _copy_edges_within_cap(self, cursor: Any) -> None:
        """The edge copy; out of DuckDB's memory under the build's cap (it runs beside the file graph's
        statement), the rows copied so far are dropped and the copy runs again once under the fallback cap
        (as `builder.within_cap` does for the build's other steps)."""
        import duckdb

        try:
            self._copy(cursor, _EDGES_FROM_DUCKDB)
        except duckdb.OutOfMemoryException as exc:
            if self._memory_fallback is None:
                raise
            print(
                f"cq index: the edge copy ran out of DuckDB's memory; retrying under {self._memory_fallback} ({exc})",
                file=sys.stderr,
            )
            self._con.execute("DELETE FROM edge_rows")
            cursor.execute(f"SET memory_limit = '{self._memory_fallback}'")
            self._copy(cursor, _EDGES_FROM_DUCKDB)

    def _in_background(self, cursor: Any, work: Callable[[], None]) -> None:
        """A copy thread's body: its failure is kept for finish() to raise; its DuckDB cursor is closed."""
        try:
            work()
        except BaseException as exc:
            self._error = exc
        finally:
            cursor.close()

    def _copy_shards(self) -> None:
        """The scan's shards: `refs` in rid order, `symbols` (SQLite's C, not a Python loop)."""
        self._con.commit()  # ATTACH cannot run inside a transaction
        for path, first_rid in self._shards:
            self._con.execute("ATTACH DATABASE ? AS shard", (path,))
            try:
                copy_shard_refs(self._con, first_rid, self._repack("r.enclosing_sk"))
                self._con.execute(
                    f"INSERT INTO symbol_rows SELECT {self._repack('s.sk')}, {id_full_sql('s', 'p.path')}, s.name,"
                    f" {stored_symbol_sql('s.name', 's.qualname', 's.kind', 's.lang')}, s.fk, s.line, s.end_line,"
                    " s.signature, s.doc,"
                    f" {self._repack('s.parent_sk')}, s.exported FROM shard.symbols s"
                    " LEFT JOIN shard.paths p ON p.fk = s.fk ORDER BY s.sk"
                )
                self._con.commit()
            finally:
                self._con.execute("DETACH DATABASE shard")
            Path(path).unlink(missing_ok=True)

    def _repack(self, column: str) -> str:
        assert self._keys is not None and self._packed is not None
        return self._keys.repack_sql(self._packed, column)

    def _copy(self, duck: Any, queries: dict[str, str]) -> None:
        for table, query in queries.items():
            if "{slice}" not in query:
                self._copy_rows(table, duck.execute(query))
                continue
            for where in list(rid_slices.ranges(duck, "edge_rows", EDGE_COPY_ROWS)):
                self._copy_rows(table, duck.execute(query.format(slice=where.replace("rid", "e.rid"))))

    def _copy_rows(self, table: str, cursor: Any) -> None:
        marks = ", ".join("?" for _ in cursor.description)
        insert = f"INSERT INTO {_STORED_AS.get(table, table)} VALUES ({marks})"
        if table == "symbols":  # (sk, id_full, name, qualname, kind, lang, ...): the last three stored coded
            rest = ", ".join(f"?{i}" for i in range(7, len(cursor.description) + 1))
            insert = f"INSERT INTO symbol_rows VALUES (?1, ?2, ?3, {stored_symbol_sql('?3', '?4', '?5', '?6')}, {rest})"
        while batch := cursor.fetchmany(_BATCH):
            if table == "refs":
                insert_refs(self._con, self._keys_of_rows, batch)
            elif table == "edges":
                insert_edges(self._con, self._keys_of_rows, batch)
            elif table == "imports":
                insert_imports(self._con, batch)
            elif table == "file_edges":
                self._con.executemany(FILE_EDGE_INSERT, batch)
            else:
                self._con.executemany(insert, batch)

    def _join(self) -> None:
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._error is not None:
            raise self._error

    def finish(self) -> Path:
        self._join()
        late = dict(_LATE_FROM_DUCKDB) if self._edges_copied else {**_LATE_FROM_DUCKDB, **_EDGES_FROM_DUCKDB}
        self._copy(self._duck, late)
        self._duck.execute("DROP TABLE snap_fk")
        self._duck.execute("DROP TABLE snap_sk")
        for statement in _indexes_on(late):
            self._con.execute(statement)
        self._con.commit()
        # Written once more, packed: rows that arrived out of key order (symbols chunk by chunk, spans widened
        # in place) and keys appended one by one (`edge_rows`) leave pages part empty, which VACUUM's copy
        # fills (the stdlib's snapshot: 47.7 -> 45.4 MB for ~0.2 CPU-s).
        packed = self.tmp.with_name(self.tmp.name + ".packed")
        packed.unlink(missing_ok=True)
        self._con.execute("VACUUM INTO ?", (str(packed),))
        self._con.close()
        self.tmp.unlink()
        con = sqlite3.connect(packed)
        try:
            con.execute("PRAGMA journal_mode=WAL")
        finally:
            con.close()
        packed.chmod(0o600)  # SQLite creates its file with the umask's mode: the index is private
        packed.replace(self.final)
        return self.final

    def abort(self) -> None:
        """After a failure: wait for the copy thread, drop the half-written file."""
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self._con.close()
        self.tmp.unlink(missing_ok=True)
        self.tmp.with_name(self.tmp.name + ".packed").unlink(missing_ok=True)


def _indexes_on(tables: dict[str, str]) -> list[str]:
    """The snapshot's indexes on these tables."""
    physical = {name for table in tables for name in VIEW_TABLES.get(table, (table,))}
    return [s for s in SQLITE_INDEXES if s.split(" ON ", 1)[1].split("(", 1)[0] in physical]


def write_generation(layout: IndexLayout, duck: Any) -> Path:
    """Write a complete snapshot from the build store as a new generation (made current by `publish`). From
    a published store, symbols come without their signature and doc (`duck_store.SNAPSHOT_ONLY`)."""
    writer = GenerationWriter(layout, duck)
    try:
        writer.start()
        return writer.finish()
    except BaseException:
        writer.abort()
        raise


def publish(layout: IndexLayout, final: Path) -> None:
    """Make a written generation the current one, then drop the older ones."""
    # A temporary file of our own (exclusive create) renamed over: never written through a planted symlink.
    atomic_write(layout.pointer_path, final.name + "\n", fsync=False)
    _remove_old_generations(layout, keep=final)


def apply_delta(layout: IndexLayout, delta: Delta) -> None:
    """Apply an incremental update in one transaction; keys of surviving files and symbols are kept."""
    con = open_writer(layout)
    try:
        con.execute("BEGIN IMMEDIATE")
        _apply(con, delta)
        con.execute("COMMIT")
    except BaseException:
        if con.in_transaction:
            con.execute("ROLLBACK")
        raise
    finally:
        con.close()


def _apply(con: sqlite3.Connection, d: Delta) -> None:
    def fk_of(path: str | None) -> int | None:
        if path is None:
            return None
        row = con.execute("SELECT fk FROM files WHERE path = ?", (path,)).fetchone()
        return int(row[0]) if row else None

    sk_cache: dict[str, int | None] = {}

    def sk_of(sid: str | None) -> int | None:
        if sid is None:
            return None
        if sid not in sk_cache:
            row = con.execute(f"SELECT sk FROM symbol_rows s WHERE {reader.ID_WHERE}", reader.id_params(sid)).fetchone()
            sk_cache[sid] = int(row[0]) if row else None
        return sk_cache[sid]

    gone_fks: list[int] = []
    for path in d.deleted_paths:
        key = fk_of(path)
        if key is None:
            continue
        gone_fks.append(key)
        delete_file_rows(con, key, ("symbols", "refs", "imports", "edges"))
        con.execute("UPDATE import_rows SET target_fk = NULL WHERE target_fk = ?", (key,))
        con.execute("DELETE FROM files WHERE fk = ?", (key,))
    if gone_fks:  # one scan for all of them: `file_edges` has no index (it is read whole)
        con.execute("CREATE TEMP TABLE IF NOT EXISTS gone_fks (fk INTEGER PRIMARY KEY)")
        con.execute("DELETE FROM temp.gone_fks")
        con.executemany("INSERT OR IGNORE INTO temp.gone_fks VALUES (?)", [(k,) for k in gone_fks])
        con.execute(
            "DELETE FROM file_edges WHERE src_fk IN (SELECT fk FROM temp.gone_fks)"
            " OR dst_fk IN (SELECT fk FROM temp.gone_fks)"
        )
    con.executemany("DELETE FROM skipped WHERE path = ?", [(p,) for p in d.scanned_paths + d.deleted_paths])
    con.executemany("UPDATE files SET mtime_ns = ?, size = ? WHERE path = ?", d.touched)
    scanned_ok = {r[0] for r in d.files}
    for path in d.scanned_paths:
        if path not in scanned_ok:  # re-scanned but now skipped (too large, binary, ...)
            key = fk_of(path)
            if key is not None:
                delete_file_rows(con, key, ("symbols", "refs", "imports", "edges"))
                con.execute("DELETE FROM files WHERE fk = ?", (key,))
    con.executemany(
        "INSERT INTO files (path, lang, size, mtime_ns, content_hash, parse_status, error) VALUES (?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT(path) DO UPDATE SET lang = excluded.lang, size = excluded.size, mtime_ns = excluded.mtime_ns,"
        " content_hash = excluded.content_hash, parse_status = excluded.parse_status, error = excluded.error",
        d.files,
    )
    new_ids_by_path: dict[str, set[str]] = {}
    for r in d.symbols:
        new_ids_by_path.setdefault(r[6], set()).add(r[0])
    for path in scanned_ok:
        key = fk_of(path)
        if key is not None:
            delete_file_rows(con, key, ("refs", "imports", "edges"))
        keep = new_ids_by_path.get(path, set())
        gone = [
            (sk, sid) for sk, sid in con.execute("SELECT sk, id FROM symbols WHERE fk = ?", (key,)) if sid not in keep
        ]
        con.executemany("DELETE FROM symbol_rows WHERE sk = ?", [(sk,) for sk, _ in gone])
        for _, sid in gone:
            sk_cache.pop(sid, None)
    fks = {r[0]: fk_of(r[0]) for r in d.files}
    # A symbol that stays (same id, so same file) keeps its key; a new one is appended.
    symbol_params = [
        (r[0], r[4], r[2], r[3], fks.get(r[6]), r[1], r[7], r[8], r[9], r[10], r[12], sk_of(r[0])) for r in d.symbols
    ]
    con.executemany(_SYMBOL_UPDATE, [r for r in symbol_params if r[-1] is not None])
    con.executemany(_SYMBOL_INSERT, [r[:-1] for r in symbol_params if r[-1] is None])
    sk_cache.clear()
    con.executemany(
        "UPDATE symbol_rows SET parent_sk = ? WHERE sk = ?", [(sk_of(r[11]), sk_of(r[0])) for r in d.symbols]
    )
    keys = Keys(con)
    insert_refs(con, keys, [(r[0], r[1], fks.get(r[2]), r[3], r[4], r[5], sk_of(r[6]), r[7]) for r in d.refs])
    if d.imports_replace_all:
        con.execute("DELETE FROM import_rows")
        all_fk = dict(con.execute("SELECT path, fk FROM files").fetchall())
        rows = [(all_fk.get(r[0]), r[2], r[3], r[4], r[5], all_fk.get(r[6])) for r in d.imports]
    else:
        rows = [(fk_of(r[0]), r[2], r[3], r[4], r[5], fk_of(r[6])) for r in d.imports]
    insert_imports(con, rows)
    con.execute("CREATE TEMP TABLE IF NOT EXISTS rids (rid INTEGER PRIMARY KEY)")
    con.execute("DELETE FROM temp.rids")
    con.executemany("INSERT OR IGNORE INTO temp.rids VALUES (?)", [(r,) for r in d.reresolved_rids])
    con.execute("DELETE FROM edge_rows WHERE rid IN (SELECT rid FROM temp.rids)")
    insert_edges(con, keys, [(r[0], sk_of(r[1]), sk_of(r[2]), r[3], r[4], fk_of(r[5]), r[6], r[7]) for r in d.edges])
    if d.file_edges is not None:
        all_fk = dict(con.execute("SELECT path, fk FROM files").fetchall())
        con.execute("DELETE FROM file_edges")
        con.executemany(
            FILE_EDGE_INSERT,
            [(all_fk.get(r[0]), all_fk.get(r[1]), r[2], r[3]) for r in d.file_edges],
        )
    if d.ranks is not None:
        con.execute("UPDATE files SET rank = 0")
        con.executemany("UPDATE files SET rank = ? WHERE path = ?", [(score, path) for path, score in d.ranks])
    if d.skipped is not None:
        con.execute("DELETE FROM skipped")
        con.executemany("INSERT OR REPLACE INTO skipped VALUES (?, ?, ?)", d.skipped)
    else:
        con.executemany("INSERT OR REPLACE INTO skipped VALUES (?, ?, ?)", d.new_skipped)
    if d.dirs is not None:
        con.execute("DELETE FROM dirs")
        con.executemany("INSERT INTO dirs VALUES (?, ?)", d.dirs)
    con.execute("DELETE FROM meta")
    con.executemany("INSERT INTO meta VALUES (?, ?)", d.meta)


# A delta's symbol as parameters ?1 id, ?2 lang, ?3 qualname, ?4 kind, ?5 fk, ?6 name, ?7 line, ?8 end_line,
# ?9 signature, ?10 doc, ?11 exported (?12 its key, for an update); its id kept whole only where it is not
# the one the view builds.
_DELTA_SYMBOL = "(SELECT ?1 AS id, ?2 AS lang, ?3 AS qualname, ?4 AS kind, ?5 AS fk) v LEFT JOIN files f ON f.fk = v.fk"
_SYMBOL_INSERT = (
    "INSERT INTO symbol_rows (id_full, name, qual_key, kind_key, lang_key, fk, line, end_line, signature, doc,"
    f" exported) SELECT {id_full_sql('v', 'f.path')}, ?6, {stored_symbol_sql('?6', '?3', '?4', '?2')}, ?5, ?7, ?8,"
    f" ?9, ?10, ?11 FROM {_DELTA_SYMBOL}"
)
_SYMBOL_UPDATE = (
    f"UPDATE symbol_rows SET id_full = (SELECT {id_full_sql('v', 'f.path')} FROM {_DELTA_SYMBOL}), name = ?6,"
    f" (qual_key, kind_key, lang_key) = (SELECT {stored_symbol_sql('?6', '?3', '?4', '?2')}), fk = ?5, line = ?7,"
    " end_line = ?8, signature = ?9, doc = ?10,"
    " exported = ?11 WHERE sk = ?12"
)


def _generation_of(path: Path) -> int:
    try:
        return int(path.name.split(".")[1])
    except (IndexError, ValueError):
        return 0


def _remove_old_generations(layout: IndexLayout, keep: Path) -> None:
    """Drop generations older than the one just replaced.

    The replaced generation stays: a reader may have read the pointer just before the swap and be opening
    it now (deleting its WAL files under it would fail that read). Readers switch to the new generation at
    their next call, so by the following full build nobody uses it any more.
    """
    newest = _generation_of(keep)
    for path in layout.index_dir.glob("code-lookup.*.sqlite*"):
        if path.name.endswith(".tmp"):
            continue
        if _generation_of(path) < newest - 1:
            path.unlink(missing_ok=True)


def open_reader(layout: IndexLayout) -> sqlite3.Connection:
    """A connection on the current snapshot; retried if a full build swapped it meanwhile."""
    for _attempt in range(3):
        path = layout.current_lookup()
        if path is None:
            raise LookupMissing(f"no code index at {layout.index_dir}")
        if not path.exists():
            continue
        try:
            return reader.connect(str(path))
        except sqlite3.OperationalError:
            continue
    raise LookupMissing(f"the code index at {layout.index_dir} could not be opened")


def open_writer(layout: IndexLayout) -> sqlite3.Connection:
    path = layout.current_lookup()
    if path is None or not path.exists():
        raise LookupMissing(f"no code index at {layout.index_dir}")
    con = sqlite3.connect(path, timeout=30.0, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=NORMAL")
    return con


def meta(con: sqlite3.Connection) -> dict[str, str]:
    return dict(con.execute("SELECT key, value FROM meta").fetchall())


def indexed_files(con: sqlite3.Connection) -> dict[str, tuple[int, int, str]]:
    """path -> (size, mtime_ns, content_hash) of every indexed file."""
    rows = con.execute("SELECT path, size, mtime_ns, content_hash FROM files")
    return {p: (size, mtime, digest) for p, size, mtime, digest in rows}


def recorded_dirs(con: sqlite3.Connection) -> dict[str, int]:
    """The directory (and ignore file) mtimes the last walk recorded."""
    return dict(con.execute("SELECT path, mtime_ns FROM dirs").fetchall())


def recorded_skipped(con: sqlite3.Connection) -> list[tuple[str, str, int]]:
    return con.execute("SELECT path, reason, size FROM skipped").fetchall()


def rows_by_path(rows: Iterable[Sequence[Any]], index: int) -> dict[str, list[Sequence[Any]]]:
    out: dict[str, list[Sequence[Any]]] = {}
    for row in rows:
        out.setdefault(row[index], []).append(row)
    return out
