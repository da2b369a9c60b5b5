"""A full build's load path: scan workers write JSON lines, DuckDB loads each chunk as it arrives.

Symbols and references are most of the data (about 90k and 590k rows on the CPython standard library).
Turning each into a Python tuple in the parent, then boxing it value by value into DuckDB, cost more than
the parsing. Here each scan worker encodes its chunk's Symbol and Reference records as JSON lines
(msgspec, in C) into files of its own, and sends back only their names and the small tables (files,
skipped files, imports, type facts) as tuples: the 155 MB of lines never travel through a pipe or the
parent's Python. A loader thread in the parent hands each chunk to DuckDB's JSON reader while the
workers scan the next ones (DuckDB runs without the GIL), numbering the chunk's references from a running
count: the references' ids are the same as one file read in chunk order would give them.

The worker also writes the chunk's references and symbols as the SQLite snapshot's rows (a shard file),
keys included: a file's key `fk` is given by the parent (from the sorted list of discovered files) and
a symbol's key `sk` is `fk << shift | its rank in the file by (line, id)` (`snapshot_keys`), which the
build store computes the same way for the tables it copies itself. The snapshot then copies each shard
with `INSERT ... SELECT` inside SQLite, instead of 680k rows through Python.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import queue
import sqlite3
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
from ctxops_code_scan.languages import BY_NAME, family
from ctxops_code_scan.records import Import, ScanResult, Skipped
from ctxops_contracts.shared.confine import create_private, ensure_dir

from .schema import SHARD_DDL, TABLES

_JSON = msgspec.json.Encoder()
# The imports as the scan found them (no targets yet: those need every file's path), in the order found.
_IMPORT_FIELDS = ("path", "lang", "module", "name", "alias", "line")
_SCAN_IMPORTS = [("seq", "BIGINT"), *((name, dict(TABLES["imports"])[name]) for name in _IMPORT_FIELDS)]
SCAN_IMPORTS_DDL = f"CREATE TABLE IF NOT EXISTS scan_imports ({', '.join(f'{n} {k}' for n, k in _SCAN_IMPORTS)})"
IMPORT_BATCH = 50_000
# JSON keys of the records (the contract's field names) -> the table's columns; `fam` and `rid` are added.
SYMBOL_KEYS = [name for name, _ in TABLES["symbols"] if name != "fam"]
REF_KEYS = [name for name, _ in TABLES["refs"] if name not in {"rid", "fam"}]
_FILE_NAMES = itertools.count()


@dataclass(frozen=True)
class Chunk:
    """One scanned chunk as a worker hands it back: row tuples, and its JSON lines' file names (or None)."""

    files: list[tuple[Any, ...]]
    skipped: list[tuple[Any, ...]]
    imports: list[tuple[Any, ...]]
    types: list[tuple[Any, ...]]
    symbols_json: str | None
    refs_json: str | None
    n_refs: int
    shard: str | None = None  # the snapshot's `refs` (numbered from 0 in the chunk) and `symbols` rows
    max_symbols: int = 0  # the most symbols one file of the chunk has


@dataclass(frozen=True)
class SnapshotKeys:
    """How the snapshot keys files and symbols: `fk` by the path's place among the discovered files, `sk`
    as `fk << shift | rank` (the symbol's place in its file by line, then id). Gaps (files skipped while
    scanning) are harmless: keys only join tables and order them."""

    fks: dict[str, int]
    shift: int

    @classmethod
    def for_paths(cls, paths: list[str], max_file_bytes: int) -> SnapshotKeys:
        # A file holds fewer symbols than bytes: `shift` bits always number them.
        return cls({path: i for i, path in enumerate(sorted(paths), start=1)}, max(20, max_file_bytes.bit_length()))

    def packed(self, max_symbols: int) -> SnapshotKeys:
        """The same keys with only the bits the largest file's symbols need (known once scanned): smaller
        integers in every row and index that holds a symbol key."""
        return SnapshotKeys(self.fks, max(1, max_symbols.bit_length()))

    def repack_sql(self, packed: SnapshotKeys, column: str) -> str:
        """SQL turning ``column``, a key of these, into the same symbol's key of ``packed`` (NULL stays)."""
        if packed.shift == self.shift:
            return column
        mask = (1 << self.shift) - 1
        return f"((({column}) >> {self.shift}) << {packed.shift}) | (({column}) & {mask})"

    def symbol_keys(self, out: ScanResult) -> dict[str | None, int]:
        """id -> sk of one file's symbols."""
        base = self.fks[out.file.path] << self.shift
        ordered = sorted((s.line, s.id) for s in out.symbols)
        keys: dict[str | None, int] = {sid: base + rank for rank, (_line, sid) in enumerate(ordered)}
        return keys


@dataclass(frozen=True)
class ChunkWriter:
    """Runs in a scan worker (picklable: a directory is all it carries): one chunk's outcomes to a Chunk."""

    directory: str
    keys: SnapshotKeys | None = None  # None: no snapshot shard

    def __call__(self, outcomes: list[ScanResult | Skipped]) -> Chunk:
        files: list[tuple[Any, ...]] = []
        skipped: list[tuple[Any, ...]] = []
        imports: list[tuple[Any, ...]] = []
        types: list[tuple[Any, ...]] = []
        symbols, refs = bytearray(), bytearray()
        n_refs = max_symbols = 0
        rows: list[tuple[Any, ...]] = []
        sym_rows: list[tuple[Any, ...]] = []
        paths: list[tuple[int, str]] = []
        for out in outcomes:
            if isinstance(out, Skipped):
                skipped.append((out.path, out.reason, out.size))
                continue
            f = out.file
            files.append((f.path, f.lang, f.size, f.mtime_ns, f.content_hash, f.parse_status, f.error))
            symbols += _JSON.encode_lines(out.symbols)
            refs += _JSON.encode_lines(out.references)
            n_refs += len(out.references)
            max_symbols = max(max_symbols, len(out.symbols))
            imports.extend((i.path, i.lang, i.module, i.name, i.alias, i.line) for i in out.imports)
            types.extend((f.path, *t) for t in out.types)
            if self.keys is not None and (out.references or out.symbols):
                sks = self.keys.symbol_keys(out)
                fk = self.keys.fks[f.path]
                paths.append((fk, f.path))
                get = sks.get
                start = len(rows)
                rows.extend(
                    (start + i, r.symbol_name, fk, r.line, r.col, r.role, get(r.enclosing), r.qualifier)
                    for i, r in enumerate(out.references)
                )
                sym_rows.extend(
                    (
                        sks[s.id],
                        s.id,
                        s.name,
                        s.qualname,
                        s.kind,
                        s.lang,
                        fk,
                        s.line,
                        s.end_line,
                        s.signature,
                        s.doc,
                        get(s.parent),
                        s.exported,
                    )
                    for s in out.symbols
                )
        stem = f"{os.getpid()}-{next(_FILE_NAMES)}"
        sym_json, ref_json = self._write(f"sym-{stem}", symbols), self._write(f"ref-{stem}", refs)
        shard = self._shard(f"snap-{stem}", rows, sym_rows, paths) if rows or sym_rows else None
        return Chunk(files, skipped, imports, types, sym_json, ref_json, n_refs, shard, max_symbols)

    def _shard(
        self, name: str, refs: list[tuple[Any, ...]], symbols: list[tuple[Any, ...]], paths: list[tuple[int, str]]
    ) -> str:
        path = str(Path(self.directory, name + ".sqlite"))
        os.close(create_private(path))  # a fresh scratch file: never a link a repository planted there
        con = sqlite3.connect(path)
        try:
            con.execute("PRAGMA journal_mode=OFF")  # a private scratch file
            con.execute("PRAGMA synchronous=OFF")
            for statement in SHARD_DDL:
                con.execute(statement)
            con.executemany("INSERT INTO refs VALUES (?, ?, ?, ?, ?, ?, ?, ?)", refs)
            con.executemany("INSERT INTO symbols VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", symbols)
            con.executemany("INSERT INTO paths VALUES (?, ?)", paths)
            con.commit()
        finally:
            con.close()
        return path

    def _write(self, name: str, data: bytearray) -> str | None:
        if not data:
            return None
        path = Path(self.directory, name + ".jsonl")
        with open(create_private(str(path)), "wb") as fh:  # never through a symlink a repository planted
            fh.write(data)
        return str(path)


def read_json_sql(path: Path | str, table: str, keys: list[str]) -> str:
    """A `read_json` call over JSON lines with the table's column types, nothing sniffed."""
    types = dict(TABLES[table])
    spec = ", ".join(f"'{key}': '{types[key]}'" for key in keys)
    literal = str(path).replace("'", "''")
    return f"read_json('{literal}', format='newline_delimited', records=true, columns={{{spec}}})"


@dataclass
class ChunkLoader:
    """The parent's side: loads each chunk into DuckDB (`files`, `symbols`, `refs`, `types`, and the imports
    as found into `scan_imports`) on a thread of its own, in the order the chunks are added. Python keeps only
    each file's (path, language) and the skipped files: the imports and type facts held to the end of the
    build grew the parent with the corpus (~100 MiB of Python objects at 10.7M lines). The tables must exist;
    `close()` waits for the last chunk and re-raises a failed load."""

    connect: Callable[[], Any]  # opens the build store, tables made (called at the first chunk)
    directory: Path
    keys: SnapshotKeys | None = None
    first_rid: int = 1
    files: list[tuple[str, str]] = field(default_factory=list)  # (path, lang)
    skipped: list[tuple[Any, ...]] = field(default_factory=list)
    n_refs: int = 0
    n_imports: int = 0
    max_symbols: int = 0
    shards: list[tuple[str, int]] = field(default_factory=list)  # (snapshot shard, its first rid), in rid order

    def __post_init__(self) -> None:
        ensure_dir(self.directory)  # 0700; a symlinked directory under .meta is refused
        self._queue: queue.Queue[tuple[Chunk, int, int] | None] = queue.Queue()
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        self._con: Any = None

    def connection(self) -> Any:
        """The build store (opened now if no chunk came back)."""
        if self._con is None:
            self._con = self.connect()
            self._con.execute(SCAN_IMPORTS_DDL)
        return self._con

    def writer(self) -> ChunkWriter:
        return ChunkWriter(str(self.directory), self.keys)

    def add(self, chunk: Chunk) -> None:
        self.files.extend((f[0], f[1]) for f in chunk.files)
        self.skipped.extend(chunk.skipped)
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, args=(self.connection().cursor(),), daemon=True)
            self._thread.start()
        self._queue.put((chunk, self.first_rid + self.n_refs, self.n_imports))
        if chunk.shard is not None:
            self.shards.append((chunk.shard, self.first_rid + self.n_refs))
        self.n_refs += chunk.n_refs
        self.n_imports += len(chunk.imports)
        self.max_symbols = max(self.max_symbols, chunk.max_symbols)

    def _run(self, cursor: Any) -> None:
        try:
            cursor.execute("CREATE OR REPLACE TEMP TABLE lang_fam (lang VARCHAR, fam VARCHAR)")
            cursor.execute("INSERT INTO lang_fam VALUES " + ", ".join("(?, ?)" for _ in BY_NAME), _lang_fams())
            while (item := self._queue.get()) is not None:
                if self._error is None:  # after a failure, only drain the queue
                    _load_chunk(cursor, *item)
        except BaseException as exc:  # re-raised by close()
            self._error = exc
            while self._queue.get() is not None:
                pass
        finally:
            cursor.close()

    def close(self) -> None:
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._thread = None
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def imports(self, batch: int = IMPORT_BATCH) -> Iterator[list[Import]]:
        """The scanned imports in the order they were found, a batch at a time (after `close()`)."""
        cursor = self.connection().cursor()
        try:
            cursor.execute(f"SELECT {', '.join(_IMPORT_FIELDS)} FROM scan_imports ORDER BY seq")
            while rows := cursor.fetchmany(batch):
                yield [Import(**dict(zip(_IMPORT_FIELDS, row, strict=True))) for row in rows]
        finally:
            cursor.close()

    def drop_imports(self) -> None:
        """Drop the scanned imports' table (once their rows with targets are in `imports`)."""
        self.connection().execute("DROP TABLE IF EXISTS scan_imports")

    def abandon(self) -> None:
        """After a failed scan: stop loading, close the build store if it was opened, delete the files."""
        self.remove()
        if self._con is not None:
            with contextlib.suppress(BaseException):
                self._con.close()
            self._con = None

    def remove(self) -> None:
        """Stop loading (after a failure, quietly) and delete the chunk files and shards."""
        with contextlib.suppress(BaseException):
            self.close()
        for path in [*self.directory.glob("*.jsonl"), *self.directory.glob("*.sqlite")]:
            path.unlink(missing_ok=True)
        with contextlib.suppress(OSError):  # not empty: something else is in there, leave it
            self.directory.rmdir()


def _load_chunk(con: Any, chunk: Chunk, first_rid: int, first_import: int) -> None:
    from .duck_store import insert_rows, insert_typed

    insert_rows(con, "files", chunk.files)
    insert_rows(con, "types", chunk.types)
    insert_typed(con, "scan_imports", _SCAN_IMPORTS, [(first_import + i, *row) for i, row in enumerate(chunk.imports)])
    # A language the table does not know is its own family (as `family()` says).
    if chunk.symbols_json is not None:
        cols = ", ".join(f"s.{n}" if n != "fam" else "coalesce(m.fam, s.lang)" for n, _ in TABLES["symbols"])
        con.execute(
            f"INSERT INTO symbols SELECT {cols} FROM {read_json_sql(chunk.symbols_json, 'symbols', SYMBOL_KEYS)} s"
            " LEFT JOIN lang_fam m USING (lang)"
        )
        Path(chunk.symbols_json).unlink()
    if chunk.refs_json is not None:
        cols = ", ".join(f"r.{n}" if n != "fam" else "coalesce(m.fam, f.lang, '')" for n, _ in TABLES["refs"])
        con.execute(
            f"INSERT INTO refs SELECT {cols} FROM (SELECT row_number() OVER () + {int(first_rid) - 1} AS rid, *"
            f" FROM {read_json_sql(chunk.refs_json, 'refs', REF_KEYS)}) r"
            " LEFT JOIN files f ON f.path = r.path LEFT JOIN lang_fam m ON m.lang = f.lang"
        )
        Path(chunk.refs_json).unlink()


def _lang_fams() -> list[str]:
    return [value for lang in BY_NAME for value in (lang, family(lang))]
