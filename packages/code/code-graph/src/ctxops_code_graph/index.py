"""`CodeIndex`: the read API over a repository's code index (SQLite snapshot; stdlib only on this path).

Opening and querying import neither DuckDB nor tree-sitter: a lookup is a few indexed SQLite reads
(the SQL is in `lookup_queries`). Before answering, a cheap stat-based check finds edited files; a
bounded update reindexes them under the writer lock, in this process or, for a reader with a deadline,
in a detached one (`background`). What could not be refreshed in time is reported by `stale_files()`.
"""

from __future__ import annotations

import os
import re
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ctxops_contracts import Edge, FileRecord, Reference, Symbol

from . import lookup_db, lookup_queries, reader
from .layout import IndexLayout
from .schema import INDEX_FORMAT

if TYPE_CHECKING:
    from .background import DetachedUpdate
    from .results import BuildReport, FileDeps, Hop, Impact, IndexStatus, RankedFile

_TEST_PATH = re.compile(
    r"(^|/)(tests?|__tests__|spec)/|(^|/)test_[^/]*\.py$|_test\.(py|go)$|\.(test|spec)\.[jt]sx?$|Tests?\.java$"
)


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
        # How long a read waits for its automatic update. None: the update runs in this process, to the
        # end. A number: it runs in a detached process (`background`), which goes on and commits when it
        # takes longer, so this process can answer from the snapshot and exit by its deadline.
        self.update_wait = update_wait
        self._updater: DetachedUpdate | None = None
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
        from .background import DetachedUpdate

        self._stale = pending
        self._updater = DetachedUpdate(self.layout, self.update_bound, lock_wait=max(self.lock_wait, 30.0))
        self._updater.start()
        if self._updater.wait(max(0.0, self.update_wait)):
            self._take_outcome(pending)
        return list(self._stale)

    def updating(self) -> bool:
        """True while an automatic update started by a read is still running in its detached process."""
        return self._updater is not None and self._updater.running()

    def wait_for_update(self, timeout: float | None = None) -> bool:
        """Wait for a detached update to commit; True when none is running any more."""
        if self._updater is not None:
            if not self._updater.wait(timeout):
                return False
            self._take_outcome(self._stale)
        return True

    def _take_outcome(self, pending: list[str]) -> None:
        """Adopt what the finished detached update reports (its commit is visible to the next read)."""
        assert self._updater is not None
        report, error = self._updater.outcome()
        self._updater = None
        self.last_error = error
        if report is not None:
            self.last_update = report
        if error is not None:
            self._stale = pending
            return
        # Check again rather than trusting the report: another update may have committed meanwhile.
        con = self._connection()
        stale = reader.staleness(str(self.root), con, lookup_db.meta(con))
        self._checked_at = time.monotonic()
        self._stale = [] if stale.fresh else sorted(set(stale.modified)) + [_dir_marker(d) for d in stale.dirs_changed]

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
        except IndexBusy as exc:
            # Another writer (the watcher, a build) or a process holding the build store: answer from the
            # snapshot and say why it is stale.
            self.last_error = str(exc)
            self._stale = pending
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
        row = lookup_queries.symbol_row(self._ready(), symbol_id)
        return _symbol(row) if row else None

    def symbols_in_file(self, path: str) -> list[Symbol]:
        return [_symbol(r) for r in lookup_queries.symbols_in_file(self._ready(), _norm(path))]

    def names(self, near: str | None = None) -> list[str]:
        """Every distinct symbol name and qualified name; with ``near``, only the candidates for
        suggestions about that name (one indexed query, whatever the repository's size)."""
        if near is not None:
            return lookup_queries.names_near(self._ready(), near)
        return lookup_queries.names(self._ready())

    def all_symbols(self) -> Iterator[Symbol]:
        """Every symbol, file by file in path order."""
        for row in lookup_queries.all_symbol_rows(self._ready()):
            yield _symbol(row)

    def references(self, name: str, limit: int = 1000) -> list[Reference]:
        """Every use of a name (calls, imports, inheritance, type uses), by file and line."""
        last = name.replace("::", ".").rsplit(".", 1)[-1]
        rows = lookup_queries.reference_rows(self._ready(), last, limit)
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
                f"SELECT r.symbol_name, f.path, r.line, r.col, r.role, {reader.id_of('e')}, r.qualifier FROM refs r"
                " JOIN files f ON f.fk = r.fk LEFT JOIN symbol_rows e ON e.sk = r.enclosing_sk"
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
        rows = lookup_queries.imports_of(con, path)
        by = lookup_queries.importers_of(con, path)
        from .results import FileDeps, ImportLink

        return FileDeps(
            path=path,
            imports=[ImportLink(module=r[0], name=r[1], line=r[2], target=r[3]) for r in rows],
            imported_by=by,
        )

    def ranked_files(
        self,
        query_terms: Sequence[str] = (),
        files_in_play: Sequence[str] = (),
        limit: int = 20,
        symbols_per_file: int = 5,
        facts: FileFacts | None = None,
    ) -> list[RankedFile]:
        """Files by PageRank over the dependency graph, personalized toward query terms and files in play.

        ``facts``: what the ranking reads (the snapshot's files, file graph and symbols by default; code-query
        lays the files saved since the snapshot over them)."""
        facts = SnapshotFacts(self._ready()) if facts is None else facts
        langs = facts.file_langs()
        personal: dict[str, float] = {}
        for term in (t.lower() for t in query_terms if t.strip()):
            for path in facts.paths_matching(term):
                personal[path] = personal.get(path, 0.0) + 2.0
            for path, count in facts.symbol_matches_by_file(term):
                personal[path] = personal.get(path, 0.0) + min(count, 5)
        for path in files_in_play:
            p = _norm(path)
            if p in langs:
                personal[p] = personal.get(p, 0.0) + 5.0
        if personal:
            from .rank import pagerank

            ppr = pagerank(langs.keys(), facts.file_edges(), personalization=personal)
            # Half graph position (personalized PageRank), half direct relevance: the matched files come
            # first, then the hubs they lean on, instead of the global hubs drowning the query.
            top_rank = max(ppr.values(), default=0.0) or 1.0
            top_match = max(personal.values())
            scores = {p: 0.5 * ppr.get(p, 0.0) / top_rank + 0.5 * personal.get(p, 0.0) / top_match for p in langs}
        else:
            scores = facts.file_ranks()
        top = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
        from .results import RankedFile

        return [
            RankedFile(path=path, score=score, lang=langs.get(path), symbols=facts.key_symbols(path, symbols_per_file))
            for path, score in top
        ]

    def file(self, path: str) -> FileRecord | None:
        row = lookup_queries.file_row(self._ready(), _norm(path))
        return _file(row) if row else None

    def files(self) -> list[FileRecord]:
        return [_file(r) for r in lookup_queries.file_rows(self._ready())]

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

        problems = lookup_queries.file_rows(con, problems_only=True)
        index_bytes = sum(p.stat().st_size for p in self.layout.index_dir.glob("code*") if p.is_file())
        from .results import IndexStatus

        return IndexStatus(
            root=str(self.root),
            revision=current,
            indexed_revision=indexed_rev,
            updated_at=snap.get("updated_at"),
            files=lookup_queries.count(con, "files"),
            files_by_language=lookup_queries.counts(con, "languages"),
            symbols=lookup_queries.count(con, "symbols"),
            references=lookup_queries.count(con, "refs"),
            edges=lookup_queries.count(con, "edges"),
            edges_by_confidence=lookup_queries.counts(con, "confidence"),
            skipped_by_reason=lookup_queries.counts(con, "skipped"),
            parse_problems=[_file(r) for r in problems],
            stale_files=list(self._stale),
            index_bytes=index_bytes,
            store={"duckdb": str(self.layout.duckdb_path), "lookup": str(self.layout.current_lookup())},
            vendored_dirs=lookup_queries.vendored_dirs(con),
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
        start = lookup_queries.symbol_key(con, symbol_id)
        if start is None:
            return []
        rows = lookup_queries.walk(con, start, max(1, int(depth)), kinds, upward, certain_only=certain_only)
        if upward and symbol_id.startswith("python"):  # a `.pyi` stub's uses are its implementation's
            from .stubs import implementations

            for impl in implementations(con, symbol_id):
                rows += lookup_queries.walk(con, impl, max(1, int(depth)), kinds, upward, certain_only=certain_only)
        by_sk = {
            k: _symbol(r)
            for k, r in lookup_queries.symbols_by_key(
                con, {k for r in rows for k in (r[0], r[1]) if k is not None}
            ).items()
        }
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


def _dir_marker(path: str) -> str:
    """How a changed directory (files may have appeared or gone) or ignore file shows among stale paths."""
    if path.endswith((".gitignore", ".toml")):
        return path
    return f"{path}/" if path else "./"


_norm = reader.norm_path


class FileFacts(Protocol):
    """What `CodeIndex.ranked_files` reads: the files, the file graph, the symbols."""

    def file_langs(self) -> dict[str, str | None]: ...

    def paths_matching(self, term: str) -> list[str]:
        """Files whose path contains ``term`` (lower case)."""
        ...

    def symbol_matches_by_file(self, term: str) -> list[tuple[str, int]]:
        """(path, count) of the symbols whose name contains ``term`` (lower case)."""
        ...

    def file_edges(self) -> list[tuple[str, str, float]]: ...

    def file_ranks(self) -> dict[str, float]:
        """Every file's PageRank over the whole file graph."""
        ...

    def key_symbols(self, path: str, limit: int) -> list[Symbol]:
        """The top-level symbols of ``path`` most used from elsewhere."""
        ...


class SnapshotFacts:
    """`FileFacts` of the lookup snapshot."""

    def __init__(self, con: sqlite3.Connection) -> None:
        self.con = con

    def file_langs(self) -> dict[str, str | None]:
        return lookup_queries.file_langs(self.con)

    def paths_matching(self, term: str) -> list[str]:
        return lookup_queries.paths_matching(self.con, term)

    def symbol_matches_by_file(self, term: str) -> list[tuple[str, int]]:
        return lookup_queries.symbol_matches_by_file(self.con, term)

    def file_edges(self) -> list[tuple[str, str, float]]:
        return lookup_queries.file_edges(self.con)

    def file_ranks(self) -> dict[str, float]:
        return lookup_queries.file_ranks(self.con)

    def key_symbols(self, path: str, limit: int) -> list[Symbol]:
        return [_symbol(r) for r in lookup_queries.key_symbols(self.con, path, limit)]


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
