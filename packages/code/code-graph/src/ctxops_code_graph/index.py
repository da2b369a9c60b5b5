"""`CodeIndex`: the read API over a repository's code index (SQLite snapshot; stdlib only on this path).

Opening and querying import neither DuckDB nor tree-sitter: a lookup is a few indexed SQLite reads.
Before answering, a cheap stat-based check finds edited files; a bounded update reindexes them under
the writer lock (only then are the heavy modules imported). What could not be refreshed in time is
reported by `stale_files()`.
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctxops_contracts import Edge, FileRecord, Reference, Symbol

from . import lookup_db, reader
from .layout import IndexLayout
from .schema import INDEX_FORMAT

if TYPE_CHECKING:
    from .builder import BuildReport
    from .results import FileDeps, Hop, Impact, IndexStatus, RankedFile

_SYMBOL_SELECT = reader.SYMBOL_SELECT
_INBOUND = ", (SELECT count(*) FROM edges e WHERE e.dst_sk = s.sk) AS n"
_TEST_PATH = re.compile(
    r"(^|/)(tests?|__tests__|spec)/|(^|/)test_[^/]*\.py$|_test\.(py|go)$|\.(test|spec)\.[jt]sx?$|Tests?\.java$"
)
_WALK_LIMIT = 5000


class IndexNotBuilt(FileNotFoundError):
    """The repository has no code index yet; the message says how to build one."""


def rebuild_reason(root: str | os.PathLike[str]) -> str:
    """Why the index of ``root`` needs a full build before it can be read; "" when it is usable.

    No index yet, a snapshot that cannot be read, or one of another format (store or extractor version):
    an incremental update cannot succeed on any of them, so callers build in full (as on a first query).
    """
    layout = IndexLayout(Path(root).resolve())
    try:
        con = lookup_db.open_reader(layout)
    except lookup_db.LookupMissing:
        return "no code index yet"
    try:
        fmt = lookup_db.meta(con).get("format")
    except sqlite3.Error as exc:
        return f"the code index cannot be read ({exc})"
    finally:
        con.close()
    if fmt != INDEX_FORMAT:
        return f"the code index is in format {fmt}, this version reads {INDEX_FORMAT}"
    return ""


class CodeIndex:
    """The code map of one repository."""

    def __init__(
        self,
        root: str | os.PathLike[str] = ".",
        *,
        auto_update: bool = True,
        update_bound: int = 50,
        lock_wait: float = 2.0,
        check_interval: float = 0.0,
        update_wait: float | None = None,
    ) -> None:
        self.root = Path(root).resolve()
        self.layout = IndexLayout(self.root)
        self.auto_update = auto_update
        self.update_bound = update_bound
        self.lock_wait = lock_wait
        self.check_interval = check_interval
        # How long a read waits for its automatic update (None: until it is done). An update that takes
        # longer goes on in a background thread and commits; meanwhile reads answer from the snapshot.
        self.update_wait = update_wait
        self._updater: threading.Thread | None = None
        self._con: sqlite3.Connection | None = None
        self._con_path: Path | None = None
        self._checked_at = float("-inf")
        self._stale: list[str] = []
        self.last_update: BuildReport | None = None
        self.last_error: str | None = None  # why the last automatic refresh could not run, if it failed

    @classmethod
    def open(cls, root: str | os.PathLike[str] = ".", **kwargs: Any) -> CodeIndex:
        return cls(root, **kwargs)

    # -- writing ---------------------------------------------------------------------------------------

    def build(self, full: bool = False, workers: int | None = None) -> BuildReport:
        """Build (or bring up to date) the index; full when asked or when no usable index exists."""
        from .builder import IndexWriter

        self._close()
        report = IndexWriter(self.root).build(full=full, workers=workers)
        self._stale = list(report.stale)
        self._checked_at = time.monotonic()
        return report

    def update(self, paths: Iterable[str] | None = None, bound: int | None = None) -> BuildReport:
        """Reindex changed files (all of them when `bound` is None) under the writer lock."""
        from .builder import IndexWriter

        self._close()
        report = IndexWriter(self.root, lock_timeout=self.lock_wait).update(paths, bound=bound)
        self._stale = list(report.stale)
        self._checked_at = time.monotonic()
        return report

    def refresh(self) -> list[str]:
        """The cheap staleness check, then a bounded update if anything changed. Returns what is still stale."""
        con = self._connection()
        stale = reader.staleness(str(self.root), con, lookup_db.meta(con))
        self._checked_at = time.monotonic()
        if stale.fresh:
            self._stale = []
            return []
        pending = sorted(set(stale.modified)) + [_dir_marker(d) for d in stale.dirs_changed]
        if not self.auto_update:
            self._stale = pending
            return pending
        if self.updating():
            self._stale = pending  # this reader's update is still running: answer from the snapshot
            return pending
        if self.update_wait is None:
            self._auto_update(pending)
            return self._stale
        # The update runs to its commit whatever the reader's deadline: progress is never thrown away,
        # so repeated reads converge. Not a daemon thread: a process that answered waits for it to
        # commit before exiting instead of killing it mid-write.
        self._stale = pending
        self._updater = threading.Thread(
            target=self._auto_update, args=(pending,), name="code-index-update", daemon=False
        )
        self._updater.start()
        self._updater.join(max(0.0, self.update_wait))
        return list(self._stale)

    def updating(self) -> bool:
        """True while an automatic update started by a read is still running in the background."""
        return self._updater is not None and self._updater.is_alive()

    def wait_for_update(self, timeout: float | None = None) -> bool:
        """Wait for a background update to commit; True when none is running any more."""
        if self._updater is not None:
            self._updater.join(timeout)
        return not self.updating()

    def _auto_update(self, pending: list[str]) -> None:
        from .builder import IndexWriter
        from .lock import IndexBusy

        try:
            # Not `self.update()`: that closes the connection a concurrent read may be using. WAL lets the
            # open connection see the commit; a full rebuild's new generation is followed by `_connection`.
            report = IndexWriter(self.root, lock_timeout=self.lock_wait).update(bound=self.update_bound)
            self.last_update = report
            self.last_error = None
            self._stale = list(report.stale)
        except IndexBusy:
            self._stale = pending  # another writer (the watcher, a build) is on it: answer from the snapshot
        except Exception as exc:  # a failed refresh must not fail the read: answer from the snapshot, say so
            self.last_error = f"index update failed: {type(exc).__name__}: {exc}"
            self._stale = pending

    # -- reading ---------------------------------------------------------------------------------------

    @property
    def revision(self) -> str | None:
        """Git HEAD short hash plus `-dirty` when the indexed tree differed from it; None outside git."""
        snap = lookup_db.meta(self._ready())
        return snap.get("revision") or None

    def stale_files(self) -> list[str]:
        """What the last freshness check could not bring up to date (checks once if none ran yet)."""
        if self._checked_at == float("-inf"):
            self._ready()
        return list(self._stale)

    def definitions(self, name: str, limit: int = 200) -> list[Symbol]:
        """Definitions by plain name, qualified name (`Class.method`, `pkg::f`), `path:NAME`, or symbol id."""
        return [_symbol(r) for r in reader.definition_rows(self._ready(), name, limit)]

    def symbol(self, symbol_id: str) -> Symbol | None:
        row = self._ready().execute(f"{_SYMBOL_SELECT} WHERE s.id = ?", (symbol_id,)).fetchone()
        return _symbol(row) if row else None

    def symbols_in_file(self, path: str) -> list[Symbol]:
        rows = (
            self._ready()
            .execute(f"{_SYMBOL_SELECT} WHERE f.path = ? ORDER BY s.line, s.end_line DESC", (_norm(path),))
            .fetchall()
        )
        return [_symbol(r) for r in rows]

    def names(self) -> list[str]:
        """Every distinct symbol name and qualified name (for suggestions and fuzzy matching)."""
        rows = self._ready().execute("SELECT name FROM symbols UNION SELECT qualname FROM symbols ORDER BY 1")
        return [r[0] for r in rows]

    def all_symbols(self) -> Iterator[Symbol]:
        """Every symbol, file by file in path order."""
        for row in self._ready().execute(f"{_SYMBOL_SELECT} ORDER BY f.path, s.line"):
            yield _symbol(row)

    def references(self, name: str, limit: int = 1000) -> list[Reference]:
        """Every use of a name (calls, imports, inheritance, type uses), by file and line."""
        last = name.replace("::", ".").rsplit(".", 1)[-1]
        rows = (
            self._ready()
            .execute(
                "SELECT r.symbol_name, f.path, r.line, r.col, r.role, e.id, r.qualifier FROM refs r"
                " JOIN files f ON f.fk = r.fk LEFT JOIN symbols e ON e.sk = r.enclosing_sk WHERE r.symbol_name = ?"
                " ORDER BY f.path, r.line, r.col LIMIT ?",
                (last, limit),
            )
            .fetchall()
        )
        return [
            Reference(symbol_name=r[0], path=r[1], line=r[2], col=r[3], role=r[4], enclosing=r[5], qualifier=r[6])
            for r in rows
        ]

    def callers(
        self, symbol_id: str, depth: int = 1, kinds: Sequence[str] = ("call",), *, certain_only: bool = False
    ) -> list[Hop]:
        """Who uses the symbol (calls by default), up to `depth` hops; `certain_only` walks only edges
        resolved for certain (never a name-only guess, at any depth)."""
        return self._walk(symbol_id, depth, kinds, upward=True, certain_only=certain_only)

    def uncertain_references(self, name: str, roles: Sequence[str] = ("call",), limit: int = 1000) -> list[Reference]:
        """Uses of a bare name that no certain edge explains: the "possible by name only" candidates.

        A use resolved for certain to another symbol of the same name is not a candidate, and neither is
        an import statement that binds a module (`import urllib.request` is no use of a function `request`).
        """
        last = name.replace("::", ".").rsplit(".", 1)[-1]
        marks = ", ".join("?" for _ in roles)
        rows = (
            self._ready()
            .execute(
                "SELECT r.symbol_name, f.path, r.line, r.col, r.role, e.id, r.qualifier FROM refs r"
                " JOIN files f ON f.fk = r.fk LEFT JOIN symbols e ON e.sk = r.enclosing_sk"
                f" WHERE r.symbol_name = ? AND r.role IN ({marks})"
                " AND NOT (r.role = 'import' AND r.qualifier IS NULL)"
                " AND NOT EXISTS (SELECT 1 FROM edges x WHERE x.rid = r.rid AND x.confidence <> 'name-only')"
                # `json.loads()` where `json` is an import that resolves outside the repository: not ours.
                " AND NOT EXISTS (SELECT 1 FROM imports i WHERE i.fk = r.fk AND i.target_fk IS NULL"
                " AND (i.alias = r.qualifier OR r.qualifier LIKE i.alias || '.%'))"
                " ORDER BY f.path, r.line, r.col LIMIT ?",
                (last, *roles, limit),
            )
            .fetchall()
        )
        return [
            Reference(symbol_name=r[0], path=r[1], line=r[2], col=r[3], role=r[4], enclosing=r[5], qualifier=r[6])
            for r in rows
        ]

    def callees(self, symbol_id: str, depth: int = 1, kinds: Sequence[str] = ("call",)) -> list[Hop]:
        return self._walk(symbol_id, depth, kinds, upward=False)

    def impact(self, symbol_id: str, depth: int = 3, *, certain_only: bool = False) -> Impact:
        """Transitive callers (calls, inheritance, type uses, imports, uses as a value), the files they are
        in, the tests among them; `certain_only` follows no name-only edge."""
        target = self.symbol(symbol_id)
        if target is None:
            raise KeyError(f"no symbol {symbol_id!r} in the index")
        hops = self._walk(
            symbol_id, depth, ("call", "inherit", "type", "import", "read"), upward=True, certain_only=certain_only
        )
        files = sorted({target.path} | {h.edge.path for h in hops if h.edge.path})
        tests = [f for f in files if _TEST_PATH.search(f)]
        test_symbols = sorted(
            {
                h.symbol.id: h.symbol
                for h in hops
                if h.symbol is not None
                and h.symbol.name.startswith(("test", "Test"))
                and _TEST_PATH.search(h.symbol.path)
            }.values(),
            key=lambda s: (s.path, s.line),
        )
        from .results import Impact

        return Impact(target=target, callers=hops, files=files, tests=tests, test_symbols=test_symbols)

    def file_deps(self, path: str) -> FileDeps:
        con = self._ready()
        path = _norm(path)
        rows = con.execute(
            "SELECT i.module, i.name, i.line, t.path FROM imports i JOIN files f ON f.fk = i.fk"
            " LEFT JOIN files t ON t.fk = i.target_fk WHERE f.path = ? ORDER BY i.line, i.module, i.name",
            (path,),
        ).fetchall()
        by = con.execute(
            "SELECT DISTINCT f.path FROM imports i JOIN files f ON f.fk = i.fk JOIN files t ON t.fk = i.target_fk"
            " WHERE t.path = ? AND f.path <> t.path ORDER BY f.path",
            (path,),
        ).fetchall()
        from .results import FileDeps, ImportLink

        return FileDeps(
            path=path,
            imports=[ImportLink(module=r[0], name=r[1], line=r[2], target=r[3]) for r in rows],
            imported_by=[r[0] for r in by],
        )

    def ranked_files(
        self,
        query_terms: Sequence[str] = (),
        files_in_play: Sequence[str] = (),
        limit: int = 20,
        symbols_per_file: int = 5,
    ) -> list[RankedFile]:
        """Files by PageRank over the dependency graph, personalized toward query terms and files in play."""
        con = self._ready()
        langs = dict(con.execute("SELECT path, lang FROM files").fetchall())
        personal: dict[str, float] = {}
        for term in (t.lower() for t in query_terms if t.strip()):
            for (path,) in con.execute("SELECT path FROM files WHERE instr(lower(path), ?) > 0", (term,)):
                personal[path] = personal.get(path, 0.0) + 2.0
            for path, count in con.execute(
                "SELECT f.path, count(*) FROM symbols s JOIN files f ON f.fk = s.fk"
                " WHERE instr(lower(s.name), ?) > 0 GROUP BY f.path",
                (term,),
            ):
                personal[path] = personal.get(path, 0.0) + min(count, 5)
        for path in files_in_play:
            p = _norm(path)
            if p in langs:
                personal[p] = personal.get(p, 0.0) + 5.0
        if personal:
            from .rank import pagerank

            edges = list(
                con.execute(
                    "SELECT a.path, b.path, e.weight FROM file_edges e JOIN files a ON a.fk = e.src_fk"
                    " JOIN files b ON b.fk = e.dst_fk"
                )
            )
            ppr = pagerank(langs.keys(), edges, personalization=personal)
            # Half graph position (personalized PageRank), half direct relevance: the matched files come
            # first, then the hubs they lean on, instead of the global hubs drowning the query.
            top_rank = max(ppr.values(), default=0.0) or 1.0
            top_match = max(personal.values())
            scores = {p: 0.5 * ppr.get(p, 0.0) / top_rank + 0.5 * personal.get(p, 0.0) / top_match for p in langs}
        else:
            scores = dict(con.execute("SELECT path, rank FROM files").fetchall())
        top = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
        from .results import RankedFile

        out = []
        for path, score in top:
            rows = con.execute(
                f"{_SYMBOL_SELECT.replace(' FROM symbols s', _INBOUND + ' FROM symbols s', 1)}"
                " WHERE f.path = ? AND s.parent_sk IS NULL ORDER BY n DESC, s.line LIMIT ?",
                (path, symbols_per_file),
            ).fetchall()
            out.append(
                RankedFile(path=path, score=score, lang=langs.get(path), symbols=[_symbol(r[:-1]) for r in rows])
            )
        return out

    def file(self, path: str) -> FileRecord | None:
        row = (
            self._ready()
            .execute(
                "SELECT path, lang, size, mtime_ns, content_hash, parse_status, error FROM files WHERE path = ?",
                (_norm(path),),
            )
            .fetchone()
        )
        return _file(row) if row else None

    def files(self) -> list[FileRecord]:
        rows = (
            self._ready()
            .execute("SELECT path, lang, size, mtime_ns, content_hash, parse_status, error FROM files ORDER BY path")
            .fetchall()
        )
        return [_file(r) for r in rows]

    def status(self) -> IndexStatus:
        con = self._ready()
        snap = lookup_db.meta(con)
        from ctxops_code_scan.gitinfo import read_head

        head = read_head(self.root)
        indexed_rev = snap.get("revision") or None
        if snap.get("is_repo") == "1":
            current = (head[:7] if head else "no-commits") + ("-dirty" if snap.get("dirty") == "1" else "")
        else:
            current = None

        def counts(sql: str) -> dict[str, int]:
            return {str(k): int(v) for k, v in con.execute(sql).fetchall()}

        problems = con.execute(
            "SELECT path, lang, size, mtime_ns, content_hash, parse_status, error FROM files"
            " WHERE parse_status <> 'ok' ORDER BY path"
        ).fetchall()
        index_bytes = sum(p.stat().st_size for p in self.layout.index_dir.glob("code*") if p.is_file())
        from .results import IndexStatus

        return IndexStatus(
            root=str(self.root),
            revision=current,
            indexed_revision=indexed_rev,
            updated_at=snap.get("updated_at"),
            files=int(con.execute("SELECT count(*) FROM files").fetchone()[0]),
            files_by_language=counts("SELECT lang, count(*) FROM files GROUP BY lang ORDER BY count(*) DESC"),
            symbols=int(con.execute("SELECT count(*) FROM symbols").fetchone()[0]),
            references=int(con.execute("SELECT count(*) FROM refs").fetchone()[0]),
            edges=int(con.execute("SELECT count(*) FROM edges").fetchone()[0]),
            edges_by_confidence=counts("SELECT confidence, count(*) FROM edges GROUP BY confidence ORDER BY 1"),
            skipped_by_reason=counts(
                "SELECT CASE WHEN instr(reason, ':') > 0 THEN substr(reason, 1, instr(reason, ':') - 1)"
                " ELSE reason END,"
                " count(*) FROM skipped GROUP BY 1 ORDER BY 2 DESC"
            ),
            parse_problems=[_file(r) for r in problems],
            stale_files=list(self._stale),
            index_bytes=index_bytes,
            store={"duckdb": str(self.layout.duckdb_path), "lookup": str(self.layout.current_lookup())},
        )

    def close(self) -> None:
        self._close()

    def __enter__(self) -> CodeIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self._close()

    # -- internals -------------------------------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        if self._con is not None and self.layout.current_lookup() != self._con_path:
            self._close()  # a full build published a new generation: follow it
        if self._con is None:
            try:
                self._con_path = self.layout.current_lookup()
                self._con = lookup_db.open_reader(self.layout)
            except lookup_db.LookupMissing:
                raise IndexNotBuilt(
                    f"{self.root} has no code index yet: run `python -m ctxops_code_graph index {self.root}`"
                    " (or `cq index`)"
                ) from None
            fmt = lookup_db.meta(self._con).get("format")
            if fmt != INDEX_FORMAT:
                self._close()
                if not self.auto_update:
                    raise IndexNotBuilt(
                        f"the code index at {self.layout.index_dir} is format {fmt}, not {INDEX_FORMAT}: rebuild it"
                    )
                self.build()
                return self._connection()
        return self._con

    def _ready(self) -> sqlite3.Connection:
        con = self._connection()
        if time.monotonic() - self._checked_at >= self.check_interval:
            self.refresh()
            con = self._connection()
        return con

    def _close(self) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None

    def _walk(
        self, symbol_id: str, depth: int, kinds: Sequence[str], upward: bool, certain_only: bool = False
    ) -> list[Hop]:
        con = self._ready()
        start = con.execute("SELECT sk FROM symbols WHERE id = ?", (symbol_id,)).fetchone()
        if start is None:
            return []
        depth = max(1, int(depth))
        near, far = ("dst_sk", "src_sk") if upward else ("src_sk", "dst_sk")
        marks = ", ".join("?" for _ in kinds)
        sure = " AND e.confidence <> 'name-only'" if certain_only else ""
        sql = f"""
        WITH RECURSIVE walk(src_sk, dst_sk, kind, confidence, fk, line, resolution, depth) AS (
          SELECT src_sk, dst_sk, kind, confidence, fk, line, resolution, 1 FROM edges e
          WHERE {near} = ? AND kind IN ({marks}){sure}
          UNION
          SELECT e.src_sk, e.dst_sk, e.kind, e.confidence, e.fk, e.line, e.resolution, w.depth + 1
          FROM edges e JOIN walk w ON e.{near} = w.{far}
          WHERE w.depth < ? AND e.kind IN ({marks}){sure}
          LIMIT {_WALK_LIMIT}
        )
        SELECT w.src_sk, w.dst_sk, w.kind, w.confidence, f.path, w.line, w.resolution, min(w.depth) FROM walk w
        JOIN files f ON f.fk = w.fk
        GROUP BY w.src_sk, w.dst_sk, w.kind, w.confidence, w.fk, w.line, w.resolution
        ORDER BY min(w.depth), f.path, w.line
        """
        rows = con.execute(sql, (start[0], *kinds, depth, *kinds)).fetchall()
        by_sk = self._symbols_by_sk(con, {k for r in rows for k in (r[0], r[1]) if k is not None})
        from .results import Hop

        hops = []
        for src_sk, dst_sk, kind, confidence, path, line, resolution, hop_depth in rows:
            src = by_sk.get(src_sk)
            dst = by_sk.get(dst_sk)
            if dst is None:
                continue
            edge = Edge(
                src=src.id if src else path,
                dst=dst.id,
                kind=kind,
                confidence=confidence,
                path=path,
                line=line,
                resolution=resolution,
            )
            hops.append(Hop(edge=edge, depth=hop_depth, symbol=src if upward else dst))
        return hops

    def _symbols_by_sk(self, con: sqlite3.Connection, keys: Iterable[int]) -> dict[int, Symbol]:
        out: dict[int, Symbol] = {}
        batch = sorted(keys)
        select = _SYMBOL_SELECT.replace("SELECT ", "SELECT s.sk, ", 1)
        for begin in range(0, len(batch), 500):
            chunk = batch[begin : begin + 500]
            marks = ", ".join("?" for _ in chunk)
            for row in con.execute(f"{select} WHERE s.sk IN ({marks})", chunk):
                out[row[0]] = _symbol(row[1:])
        return out


def _dir_marker(path: str) -> str:
    """How a changed directory (files may have appeared or gone) or ignore file shows among stale paths."""
    if path.endswith((".gitignore", ".toml")):
        return path
    return f"{path}/" if path else "./"


_norm = reader.norm_path


def _symbol(r: Sequence[Any]) -> Symbol:
    return Symbol(
        id=r[0],
        name=r[1],
        qualname=r[2],
        kind=r[3],
        lang=r[4],
        path=r[5],
        line=r[6],
        end_line=r[7],
        signature=r[8],
        doc=r[9],
        parent=r[10],
        exported=bool(r[11]),
    )


def _file(r: Sequence[Any]) -> FileRecord:
    return FileRecord(path=r[0], lang=r[1], size=r[2], mtime_ns=r[3], content_hash=r[4], parse_status=r[5], error=r[6])
