"""One portable file holding a built index, keyed by the commit it was built at (`cq index --export/--import`).

An index built once (in CI, by one teammate) is reused by every clone: the archive holds the build store
(DuckDB), the lookup snapshot (SQLite) and a manifest; the importer installs both with the generation swap
a full build uses, and then an incremental update brings them to the working tree (mtimes differ on every
clone, so the update's stat check flags every file and its content hash decides: same content, a stat
refresh only; different, a rescan; added, removed or renamed, found by the directory walk).

The archive is hostile by default (a teammate's or CI's artifact may be an attacker's): a gzip'd tar read
as a stream, only regular members with fixed names (never extracted by name, never a link), each under a
size cap, the decompressed total bounded, every member's SHA-256 checked against the manifest, the SQLite
snapshot checked by SQLite (`quick_check`) and its schema compared with ours (no triggers, no views), and
every path the stores record relative and inside the repository. The build store travels as one Parquet
file per table, loaded into a new DuckDB file with the columns given by us: DuckDB treats a database file
as trusted input ("closer to loading a shared library than to opening a document", its security model),
so an archive never hands it one; a crafted data file (Parquet, CSV, JSON alike) may at worst fail or
exhaust the import's capped memory. (JSON lines cost 3x more to load, CSV 10x the bytes.)
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import sqlite3
import tarfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from ctxops_contracts.shared.confine import create_private

from . import duck_store, lookup_db
from .layout import IndexLayout
from .lock import WriterLock
from .schema import INDEX_FORMAT, SQLITE_DDL, SQLITE_INDEXES, TABLES

ARCHIVE_FORMAT = "ctxops-code-index"
ARCHIVE_VERSION = 1
MANIFEST = "manifest.json"
SNAPSHOT = "code-lookup.sqlite"
STORE_MEMBERS = {f"store/{table}.parquet": table for table in TABLES}  # the build store, a table a member
MEMBERS = (MANIFEST, SNAPSHOT, *STORE_MEMBERS)
MANIFEST_LIMIT = 64 * 1024 * 1024  # the manifest lists every source file's path, size and hash
MEMBER_LIMIT = 8 * 1024 * 1024 * 1024  # one store
TOTAL_LIMIT = 12 * 1024 * 1024 * 1024  # everything decompressed
COMPRESSED_RATIO_LIMIT = 200  # decompressed bytes per compressed byte past which the archive is a bomb
_CHUNK = 1 << 20


class ArchiveError(ValueError):
    """An archive refused: malformed, foreign, too large, or naming anything but its three members."""


@dataclass
class ExportReport:
    path: str
    commit: str
    dirty: bool
    files: int
    bytes: int
    elapsed_s: float


@dataclass
class ImportReport:
    commit: str  # the commit the archive was built at
    head: str  # this clone's HEAD
    files: int  # source files the archive recorded
    bytes: int
    elapsed_s: float  # verify + install
    warnings: list[str] = field(default_factory=list)

    @property
    def commit_matches(self) -> bool:
        return bool(self.commit) and self.commit == self.head


# -- export ----------------------------------------------------------------------------------------------


def export_index(root: Path, dest: Path, *, lock_timeout: float = 30.0) -> ExportReport:
    """Write the current index of ``root`` to ``dest`` (a gzip'd tar), under the writer lock."""
    started = time.perf_counter()
    layout = IndexLayout(root.resolve())
    work = layout.ensure_index_dir()
    snap_copy = work / "code-export.sqlite.tmp"
    store_copies = {name: work / f"code-export.{table}.parquet.tmp" for name, table in STORE_MEMBERS.items()}
    try:
        with WriterLock(layout.lock_path, lock_timeout):
            # A consistent copy of the snapshot through SQLite's backup (its WAL included), and of the build
            # store after a checkpoint; each connection is closed before its file is read as bytes (POSIX
            # locks are per process: closing a raw descriptor on a file drops our connection's locks).
            _remove(snap_copy)
            src = lookup_db.open_reader(layout)
            try:
                meta = lookup_db.meta(src)
                sources = src.execute("SELECT path, size, content_hash FROM files ORDER BY path").fetchall()
                dst = sqlite3.connect(snap_copy)
                try:
                    src.backup(dst)
                    dst.execute("PRAGMA journal_mode=DELETE")
                finally:
                    dst.close()
            finally:
                src.close()
            duck = duck_store.connect(layout.duckdb_path, wait=lock_timeout)
            try:
                if duck_store.generation(duck) != meta.get("generation"):
                    raise ArchiveError("the build store and the snapshot disagree: run `cq index` first")
                duck.execute("SET enable_progress_bar = false")  # stdout is the command's (`--json`)
                for name, table in STORE_MEMBERS.items():
                    _remove(store_copies[name])
                    target = str(store_copies[name]).replace("'", "''")
                    duck.execute(f"COPY (SELECT * FROM {table}) TO '{target}' (FORMAT parquet, COMPRESSION zstd)")
            finally:
                duck.close()
        members = {SNAPSHOT: _digest(snap_copy)}
        members.update({name: _digest(path) for name, path in store_copies.items()})
        manifest = {
            "format": ARCHIVE_FORMAT,
            "version": ARCHIVE_VERSION,
            "index_format": INDEX_FORMAT,
            "commit": meta.get("head", ""),
            "dirty": meta.get("dirty") == "1",
            "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "members": {name: {"sha256": h, "size": n} for name, (h, n) in members.items()},
            "sources": [[p, n, h] for p, n, h in sources],
        }
        data = json.dumps(manifest, sort_keys=True, separators=(",", ":")).encode()
        tmp = dest.with_name(dest.name + ".tmp")
        with (
            open(tmp, "wb") as raw,
            gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=1, mtime=0) as gz,
            tarfile.open(fileobj=gz, mode="w|", format=tarfile.PAX_FORMAT) as tar,
        ):
            _add(tar, MANIFEST, data, None)
            _add(tar, SNAPSHOT, None, snap_copy)
            for name, path in store_copies.items():
                _add(tar, name, None, path)
        tmp.replace(dest)
    finally:
        _remove(snap_copy)
        for path in store_copies.values():
            _remove(path)
    return ExportReport(
        path=str(dest),
        commit=str(manifest["commit"]),
        dirty=bool(manifest["dirty"]),
        files=len(sources),
        bytes=dest.stat().st_size,
        elapsed_s=time.perf_counter() - started,
    )


def _add(tar: tarfile.TarFile, name: str, data: bytes | None, path: Path | None) -> None:
    info = tarfile.TarInfo(name)
    info.mode = 0o600
    info.mtime = 0
    if data is not None:
        import io

        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
        return
    assert path is not None
    info.size = path.stat().st_size
    with open(path, "rb") as fh:
        tar.addfile(info, fh)


def _digest(path: Path) -> tuple[str, int]:
    h = hashlib.sha256()
    n = 0
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
            n += len(chunk)
    return h.hexdigest(), n


def _remove(path: Path) -> None:
    for p in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm"), Path(f"{path}.wal")):
        p.unlink(missing_ok=True)


# -- import ----------------------------------------------------------------------------------------------


class _Bounded:
    """A read-only stream that refuses to yield more than ``limit`` bytes (a decompression bomb's cap)."""

    def __init__(self, inner: Any, limit: int) -> None:
        self.inner = inner
        self.limit = limit
        self.total = 0

    def read(self, n: int = -1) -> bytes:
        data: bytes = self.inner.read(n if n >= 0 else _CHUNK)
        self.total += len(data)
        if self.total > self.limit:
            raise ArchiveError(f"the archive decompresses past {self.limit} bytes: refused")
        return data


def import_index(root: Path, archive: Path, *, lock_timeout: float = 30.0) -> ImportReport:
    """Verify ``archive`` and install its index under ``root``/.meta/index (the caller then updates it)."""
    started = time.perf_counter()
    layout = IndexLayout(root.resolve())
    try:
        compressed = Path(archive).stat().st_size
    except OSError as exc:
        raise ArchiveError(f"cannot read {archive}: {exc.strerror}") from None
    if not Path(archive).is_file():
        raise ArchiveError(f"{archive} is not a regular file")
    work = layout.ensure_index_dir()
    store_tmp = work / "code-importing.duckdb"
    snap_tmp = work / "code-importing.sqlite"
    tables = {name: work / f"code-importing.{table}.parquet" for name, table in STORE_MEMBERS.items()}
    for p in (store_tmp, snap_tmp, *tables.values()):
        _remove(p)
    limit = min(TOTAL_LIMIT, max(compressed, 1 << 20) * COMPRESSED_RATIO_LIMIT)
    try:
        manifest = _unpack(archive, limit, {SNAPSHOT: snap_tmp, **tables})
        _check_snapshot(snap_tmp)
        _load_store(store_tmp, tables)
        _check_store(store_tmp)
        from ctxops_code_scan.gitinfo import read_head

        head = read_head(layout.root) or ""
        with WriterLock(layout.lock_path, lock_timeout):
            current = layout.current_lookup()
            generation = lookup_db._generation_of(current) + 1 if current else 1
            final = layout.lookup_path(generation)
            _remove(final)
            snap_tmp.replace(final)
            store_tmp.chmod(0o600)
            store_tmp.replace(layout.duckdb_path)
            layout.duckdb_path.with_name("code.duckdb.wal").unlink(missing_ok=True)
            lookup_db.publish(layout, final)
    finally:
        for p in (store_tmp, snap_tmp, *tables.values()):
            _remove(p)
    warnings = []
    commit = str(manifest.get("commit") or "")
    if not commit:
        warnings.append("the archive was built outside a git repository (no commit)")
    elif commit != head:
        warnings.append(
            f"built at {commit[:12]}, this clone is at {head[:12] or 'no commit'}: reused, then updated"
            " to the working tree"
        )
    if manifest.get("dirty"):
        warnings.append("the archive was built from a working tree with uncommitted changes")
    return ImportReport(
        commit=commit,
        head=head,
        files=len(manifest.get("sources") or []),
        bytes=compressed,
        elapsed_s=time.perf_counter() - started,
        warnings=warnings,
    )


def _unpack(archive: Path, limit: int, dests: dict[str, Path]) -> dict[str, Any]:
    seen: list[str] = []
    manifest: dict[str, Any] | None = None
    digests: dict[str, tuple[str, int]] = {}
    try:
        with open(archive, "rb") as raw, gzip.GzipFile(fileobj=raw, mode="rb") as gz:
            bounded = _Bounded(gz, limit)
            with tarfile.open(fileobj=bounded, mode="r|", bufsize=_CHUNK) as tar:  # type: ignore[call-overload]
                for info in tar:
                    name = info.name
                    if name not in MEMBERS:
                        raise ArchiveError(f"unexpected member {name[:80]!r} (only {', '.join(MEMBERS)})")
                    if name in seen:
                        raise ArchiveError(f"member {name} appears twice")
                    if not info.isreg():
                        raise ArchiveError(f"member {name} is not a regular file (a link or device)")
                    if name == MANIFEST:
                        if seen:
                            raise ArchiveError("the manifest must come first")
                        if info.size > MANIFEST_LIMIT:
                            raise ArchiveError(f"manifest of {info.size} bytes: past the cap")
                        fh = tar.extractfile(info)
                        assert fh is not None
                        manifest = _parse_manifest(fh.read(info.size + 1))
                    else:
                        if manifest is None:
                            raise ArchiveError("the manifest must come first")
                        expected = manifest["members"][name]
                        if info.size != expected["size"] or info.size > MEMBER_LIMIT:
                            raise ArchiveError(f"member {name}: size {info.size} differs from the manifest's")
                        fh = tar.extractfile(info)
                        assert fh is not None
                        digests[name] = _write_member(fh, info.size, dests[name])
                        if digests[name][0] != expected["sha256"]:
                            raise ArchiveError(f"member {name}: SHA-256 differs from the manifest's")
                    seen.append(name)
    except (tarfile.TarError, EOFError, gzip.BadGzipFile, OSError, zlib_error()) as exc:
        raise ArchiveError(f"not a readable index archive ({type(exc).__name__}: {exc})") from None
    missing = [m for m in MEMBERS if m not in seen]
    if missing or manifest is None:
        raise ArchiveError(f"the archive lacks {', '.join(missing)}")
    return manifest


def zlib_error() -> type[Exception]:
    import zlib

    return zlib.error


def _parse_manifest(data: bytes) -> dict[str, Any]:
    try:
        manifest = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        raise ArchiveError("the manifest is not JSON") from None
    if not isinstance(manifest, dict) or manifest.get("format") != ARCHIVE_FORMAT:
        raise ArchiveError("not a ctxops code index archive (manifest format)")
    if manifest.get("version") != ARCHIVE_VERSION:
        raise ArchiveError(f"archive version {manifest.get('version')!r}; this cq reads {ARCHIVE_VERSION}")
    if manifest.get("index_format") != INDEX_FORMAT:
        raise ArchiveError(
            f"index format {str(manifest.get('index_format'))[:40]!r} differs from this cq's {INDEX_FORMAT}:"
            " export it again with this version, or run `cq index`"
        )
    members = manifest.get("members")
    if not isinstance(members, dict) or set(members) != set(MEMBERS[1:]):
        raise ArchiveError("the manifest's members are not the snapshot and the store's tables")
    for entry in members.values():
        if (
            not isinstance(entry, dict)
            or not isinstance(entry.get("size"), int)
            or not isinstance(entry.get("sha256"), str)
            or len(entry["sha256"]) != 64
        ):
            raise ArchiveError("a manifest member lacks its size or SHA-256")
    if not isinstance(manifest.get("commit", ""), str) or not isinstance(manifest.get("sources", []), list):
        raise ArchiveError("the manifest's commit or sources are malformed")
    return manifest


def _write_member(fh: IO[bytes], size: int, dest: Path) -> tuple[str, int]:
    h = hashlib.sha256()
    n = 0
    fd = create_private(str(dest))
    with os.fdopen(fd, "wb") as out:
        while n < size:
            chunk = fh.read(min(_CHUNK, size - n))
            if not chunk:
                raise ArchiveError(f"{dest.name}: the archive ends inside a member")
            h.update(chunk)
            out.write(chunk)
            n += len(chunk)
    return h.hexdigest(), n


def _safe_rel(path: object) -> bool:
    """A repository-relative path: no absolute path, no `..`, no NUL or backslash, no empty part."""
    if not isinstance(path, str):
        return False
    if path == "":
        return True  # the root directory's own entry in `dirs`
    if path.startswith("/") or "\x00" in path or "\\" in path:
        return False
    return all(part not in ("", ".", "..") for part in path.split("/"))


def _check_snapshot(path: Path) -> None:
    """The snapshot's schema is exactly ours (our views, no trigger to run on our writes), its paths safe."""
    expected = {_norm(s) for s in SQLITE_DDL + SQLITE_INDEXES}
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        con.execute("PRAGMA trusted_schema=OFF")
        rows = con.execute("SELECT type, name, sql FROM sqlite_master").fetchall()
        found = {_norm(sql) for kind, _name, sql in rows if sql is not None}
        kinds = {kind for kind, _n, _s in rows}
        if kinds - {"table", "index", "view"} or found != expected:
            raise ArchiveError("the snapshot's schema is not a ctxops lookup snapshot's (extra or missing objects)")
        # SQLite's advice for a database from an untrusted source: check it before any other use.
        ok = con.execute("PRAGMA quick_check").fetchone()
        if not ok or ok[0] != "ok":
            raise ArchiveError("the snapshot fails SQLite's quick_check")
        meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
        if meta.get("format") != INDEX_FORMAT:
            raise ArchiveError("the snapshot's index format differs from the manifest's")
        for table in ("files", "skipped", "dirs"):
            for (p,) in con.execute(f"SELECT path FROM {table}"):
                if not _safe_rel(p) or (table != "dirs" and p == ""):
                    raise ArchiveError(f"the snapshot names a path outside the repository: {str(p)[:80]!r}")
    except sqlite3.DatabaseError as exc:
        raise ArchiveError(f"the snapshot is not a readable SQLite database ({exc})") from None
    finally:
        con.close()


def _norm(sql: str) -> str:
    return " ".join(sql.replace("IF NOT EXISTS ", "").split())


def _load_store(path: Path, tables: dict[str, Path]) -> None:
    """A new build store from the archive's Parquet files: exactly our columns, cast to our types (DuckDB's
    reader under the full build's memory cap; a file that is not one of our tables fails the import)."""
    from .builder import FULL_BUILD_MEMORY

    con = duck_store.connect(path, memory_limit=FULL_BUILD_MEMORY, block_size=duck_store.PUBLISHED_BLOCK_SIZE)
    try:
        con.execute("SET enable_progress_bar = false")
        con.execute("SET threads TO 1")  # a load: one thread costs less CPU than two contending (1.7 vs 2.0 s)
        duck_store.create_tables(con)
        for name, table in STORE_MEMBERS.items():
            source = str(tables[name]).replace("'", "''")
            con.execute(f"CREATE OR REPLACE TEMP VIEW incoming AS SELECT * FROM read_parquet('{source}')")
            found = [r[0] for r in con.execute("DESCRIBE incoming").fetchall()]
            if found != [col for col, _ in TABLES[table]]:
                raise ArchiveError(f"the build store's table {table} has other columns")
            cast = ", ".join(f"CAST({col} AS {kind})" for col, kind in TABLES[table])
            con.execute(f"INSERT INTO {table} SELECT {cast} FROM incoming")
        con.execute("DROP VIEW incoming")
        con.execute("CHECKPOINT")
    except Exception as exc:
        if isinstance(exc, ArchiveError):
            raise
        raise ArchiveError(f"the build store's tables do not load ({type(exc).__name__}: {str(exc)[:200]})") from None
    finally:
        con.close()


def _check_store(path: Path) -> None:
    """The paths the loaded build store records are relative and safe."""
    import duckdb

    con = duckdb.connect(str(path), read_only=True)
    try:
        for table in ("files", "skipped", "dirs"):
            for (p,) in con.execute(f"SELECT path FROM {table}").fetchall():
                if not _safe_rel(p) or (table != "dirs" and p == ""):
                    raise ArchiveError(f"the build store names a path outside the repository: {str(p)[:80]!r}")
    except duckdb.Error as exc:
        raise ArchiveError(f"the build store is not readable ({type(exc).__name__})") from None
    finally:
        con.close()
