"""`CodeIndex` over `ctxops_code_graph`: opening, first-time building, and the read operations.

The graph's read path is a SQLite snapshot (stdlib `sqlite3`), so `cq def` never imports DuckDB or
tree-sitter unless files changed since the last index and must be reindexed first.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from ctxops_contracts import Edge, FileRecord, Reference, Symbol

from .backend import FileDeps, Hop, ImpactReport, RankedFile
from .errors import EnvironmentProblem
from .overlay import SavedFiles
from .path_kinds import is_test
from .textsearch import words

# Edge kinds `cq impact` follows (`CodeIndex.impact`'s).
_IMPACT_KINDS = ("call", "inherit", "type", "import", "read")


class _Rank(NamedTuple):
    path: str
    rank: float | None


def _graph() -> Any:
    try:
        import ctxops_code_graph
    except ImportError as exc:  # pragma: no cover - a declared dependency
        raise EnvironmentProblem("ctxops-code-graph is not installed", fix="pip install ctxops-code-query") from exc
    return ctxops_code_graph


def has_index(root: Path) -> bool:
    """True when ``root`` has an index this version can read (not missing, unreadable or of another format)."""
    return not _graph().rebuild_reason(root)


def build_index(root: Path, *, full: bool = False, progress: bool = False) -> Any:
    """Build or update the index of ``root`` (a ticker on stderr while it runs when ``progress``)."""
    graph = _graph()
    stop = threading.Event()
    ticker = None
    if progress:

        def tick() -> None:
            started = time.monotonic()
            while not stop.wait(0.5):
                sys.stderr.write(f"\rcq: indexing {root} ... {time.monotonic() - started:.0f} s")
                sys.stderr.flush()

        ticker = threading.Thread(target=tick, daemon=True)
        ticker.start()
    index = graph.CodeIndex(root, auto_update=False)
    try:
        report = index.build(full=full)
        status = index.status()
    except graph.IndexBusy as exc:
        raise EnvironmentProblem(f"the index is being written by another process: {exc}", fix="retry shortly") from exc
    except graph.IndexDamaged as exc:
        raise EnvironmentProblem(exc.message, fix=exc.fix) from exc
    finally:
        stop.set()
        if ticker is not None:
            ticker.join(1.0)
            sys.stderr.write("\r\x1b[K")
        index.close()
    return report, status


def ensure_index(root: Path, *, interactive: bool) -> bool:
    """Build the index on a repository's first query rather than answering "not found".

    A terminal sees a progress ticker; anything else (an agent, a pipe) one line on stderr.
    Returns True when a build happened.
    """
    reason = _graph().rebuild_reason(root)
    if not reason:
        return False
    # An old or unknown format is handled like a missing index: an incremental update cannot succeed
    # on it, so it is built in full here, announced, before the query's deadline starts.
    if not interactive:
        if reason == "no code index yet":
            print(f"cq: no code index yet for {root}; building it now (one time)", file=sys.stderr, flush=True)
        else:
            print(f"cq: {reason} at {root}; rebuilding it now (one time)", file=sys.stderr, flush=True)
    report, status = build_index(root, full=reason != "no code index yet", progress=interactive)
    if interactive:
        print(f"cq: indexed {status.files} files of {root} in {report.elapsed_s:.1f} s", file=sys.stderr, flush=True)
    return True


def index_or_provisional(root: Path, *, deadline_s: float | None) -> Any:
    """What a query reads: None (the index is usable, open it as usual), or a `ProvisionalIndex` when the
    repository has no usable index yet. Then the full build starts in a detached process (announced on
    stderr in one line) and this query answers from a provisional scan within its deadline."""
    reason = _graph().rebuild_reason(root)
    if not reason:
        return None
    from .provisional import ProvisionalIndex, start_build

    started = start_build(root)
    what = "building it" if started else "a build is already running"
    print(f"cq: {reason} for {root}; {what} in the background, answering provisionally", file=sys.stderr, flush=True)
    return ProvisionalIndex(root, deadline_s)


class GraphBackend:
    """The `backend.CodeIndex` protocol over `ctxops_code_graph.CodeIndex`."""

    def __init__(self, root: Path) -> None:
        graph = _graph()
        self.root = root
        self._graph = graph
        # One freshness check per query (`freshen` runs it first), not one per index read: the check
        # stats every file, and a miss reads the index several times.
        self._index = graph.CodeIndex(root, check_interval=1.0)
        self._opened = self._index.layout.current_lookup()
        self._saved: SavedFiles | None = None  # files saved since the snapshot, read now (`freshen`)
        self._saved_conn: Any = None

    def _call(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except self._graph.IndexNotBuilt as exc:
            raise EnvironmentProblem(str(exc), fix="run `cq index`") from exc

    def revision(self) -> str | None:
        rev: str | None = self._call(lambda: self._index.revision)
        return rev

    def stale_files(self) -> list[str]:
        if self._saved is not None:
            return []  # read from the files themselves
        stale: list[str] = self._call(self._index.stale_files)
        return stale

    def saved_files(self) -> list[str]:
        """The files saved since the snapshot that this query reads directly (`overlay.SavedFiles`)."""
        return sorted(self._saved.paths) if self._saved is not None else []

    def freshen(self, wait: float | None) -> list[str]:
        """The staleness check and its bounded update, waiting for the update at most ``wait`` seconds.

        A few saved files (`overlay.MAX_SAVED`) are not waited for: the update starts in a detached process
        and this query reads those files now, laid over the snapshot (`overlay.SavedFiles`). Otherwise an
        update that takes longer than ``wait`` continues in a detached process and commits (this process
        does not wait for it); this query answers from the current snapshot and reports the files as
        stale. Later index reads of the same query do not wait again. With no deadline (``wait`` None) the
        update runs here, to the end.
        """
        self._close_saved()
        saved = self._saved_plan() if wait is not None else None
        if saved is not None:
            self._index.update_wait = 0.0
            try:
                stale: list[str] = self._call(self._index.refresh)
            finally:
                self._index.update_wait = 0.0
            if not stale:
                return stale
            try:
                self._saved = SavedFiles(self.root, self._saved_con(), saved)
                return []
            except Exception:
                self._close_saved()
                self._call(self._index.wait_for_update, wait)
                return self.stale_files()
        self._index.update_wait = wait
        try:
            stale = self._call(self._index.refresh)
        finally:
            self._index.update_wait = 0.0
        return stale

    def _saved_plan(self) -> list[str] | None:
        from .overlay import saved_since

        try:
            return saved_since(self.root, self._saved_con())
        except Exception:
            self._close_saved()
            return None

    def _saved_con(self) -> Any:
        if self._saved_conn is None:
            from ctxops_code_graph import reader

            snapshot = reader.current_snapshot(str(self.root))
            if snapshot is None:
                raise FileNotFoundError("no snapshot")
            self._saved_conn = reader.connect(snapshot)
        return self._saved_conn

    def _close_saved(self) -> None:
        self._saved = None
        if self._saved_conn is not None:
            self._saved_conn.close()
            self._saved_conn = None

    def generation(self) -> str:
        stale = self.stale_files()  # the staleness check (and its bounded update) runs first
        current = self._index.layout.current_lookup()
        # Stale files are part of it: an answer given while an edit waits for its update is not the
        # answer of the same snapshot once nothing is pending.
        parts = [str(self.revision()), "stale:" + ",".join(stale)]
        if self._saved is not None:
            parts.append(self._saved.key())
        if current is not None:
            for p in (current, current.with_name(current.name + "-wal")):
                try:
                    st = p.stat()
                    parts.append(f"{p.name}:{st.st_mtime_ns}:{st.st_size}")
                except OSError:
                    parts.append(f"{p.name}:-")
        return "|".join(parts)

    def definitions(self, name: str) -> list[Symbol]:
        found: list[Symbol] = self._call(self._index.definitions, name)
        saved = self._saved
        if saved is None:
            return found
        kept = [s for s in found if not saved.covers(s.path)]
        fresh = saved.definitions(name)
        if not fresh:
            return kept
        # As the index orders them: top-level first, then file rank, path, line.
        ranks = {f.path: (f.rank or 0.0) for f in self._ranks()}
        return sorted([*kept, *fresh], key=lambda s: (s.parent is not None, -ranks.get(s.path, 0.0), s.path, s.line))

    def _ranks(self) -> list[Any]:
        rows = self._saved_con().execute("SELECT path, rank FROM files").fetchall()
        return [_Rank(path, rank) for path, rank in rows]

    def symbol(self, symbol_id: str) -> Symbol | None:
        saved = self._saved
        if saved is not None and symbol_id in saved.by_id:
            return saved.by_id[symbol_id]
        found: Symbol | None = self._call(self._index.symbol, symbol_id)
        if found is not None and saved is not None and saved.covers(found.path):
            return None  # defined there before the save, not any more
        return found

    def symbols_in_file(self, path: str) -> list[Symbol]:
        if self._saved is not None and self._saved.covers(path):
            return self._saved.symbols_in_file(path)
        found: list[Symbol] = self._call(self._index.symbols_in_file, path)
        return found

    def all_symbols(self) -> Iterable[Symbol]:
        """Every symbol, file by file, in one query."""
        found: Iterable[Symbol] = self._call(self._index.all_symbols)
        saved = self._saved
        if saved is None:
            return found
        return sorted(
            [*(s for s in found if not saved.covers(s.path)), *saved.symbols()], key=lambda s: (s.path, s.line)
        )

    def references(self, name: str) -> list[Reference]:
        if ":" in name:  # path:NAME scopes the name's references to that definition's name
            name = name.rpartition(":")[2]
        found: list[Reference] = self._call(self._index.references, name)
        saved = self._saved
        if saved is None:
            return found
        last = name.replace("::", ".").rsplit(".", 1)[-1]
        return sorted(
            [*(r for r in found if not saved.covers(r.path)), *saved.references(last)],
            key=lambda r: (r.path, r.line, r.col),
        )

    def _hops(self, raw: list[Any]) -> list[Hop]:
        return [Hop(edge=h.edge, depth=h.depth, symbol=h.symbol) for h in raw]

    def _with_saved(self, hops: list[Hop], symbol_id: str, kinds: Sequence[str], *, certain: bool) -> list[Hop]:
        """The snapshot's uses of a symbol, those written in the saved files replaced by the files' own."""
        saved = self._saved
        if saved is None:
            return hops
        kept = [h for h in hops if not saved.covers(h.edge.path) and not (h.symbol and saved.covers(h.symbol.path))]
        if symbol_id in saved.by_id or self.symbol(symbol_id) is not None:
            for ref, confidence, resolution in saved.uses_of(symbol_id, kinds):
                edge = _saved_edge(ref, ref.enclosing or ref.path, symbol_id, confidence, resolution)
                caller = saved.by_id.get(ref.enclosing) if ref.enclosing else None
                kept.append(Hop(edge=edge, depth=1, symbol=caller))
        if not certain:
            kept = [h for h in kept if h.edge.confidence != "name-only" or not saved.covers(h.edge.path)]
        return kept

    def callers(self, symbol_id: str, depth: int) -> list[Hop]:
        hops = self._hops(self._call(self._index.callers, symbol_id, depth))
        return self._with_saved(hops, symbol_id, ("call",), certain=False)

    def certain_uses(self, symbol_id: str, depth: int, kinds: tuple[str, ...]) -> list[Hop]:
        if self._saved is not None and symbol_id in self._saved.by_id and self._index_symbol(symbol_id) is None:
            return self._with_saved([], symbol_id, kinds, certain=True)  # new since the snapshot
        hops = self._hops(self._call(self._index.callers, symbol_id, depth, kinds, certain_only=True))
        return self._with_saved(hops, symbol_id, kinds, certain=True)

    def _index_symbol(self, symbol_id: str) -> Symbol | None:
        found: Symbol | None = self._call(self._index.symbol, symbol_id)
        return found

    def uncertain_references(self, name: str, roles: tuple[str, ...]) -> list[Reference]:
        found: list[Reference] = self._call(self._index.uncertain_references, name, roles)
        saved = self._saved
        if saved is None:
            return found
        last = name.replace("::", ".").rsplit(".", 1)[-1]
        return sorted(
            [*(r for r in found if not saved.covers(r.path)), *saved.unresolved(last, roles)],
            key=lambda r: (r.path, r.line, r.col),
        )

    def callees(self, symbol_id: str, depth: int) -> list[Hop]:
        saved = self._saved
        if saved is None or (symbol_id not in saved.by_id and self._index_symbol(symbol_id) is None):
            return self._hops(self._call(self._index.callees, symbol_id, depth))
        sym = self.symbol(symbol_id)
        if sym is None or not saved.covers(sym.path):
            return self._hops(self._call(self._index.callees, symbol_id, depth))
        # A definition of a saved file: what its body uses now (one hop).
        hops = []
        for ref, dst, confidence, resolution in saved.uses_in(symbol_id, ("call",)):
            edge = _saved_edge(ref, symbol_id, dst, confidence, resolution)
            hops.append(Hop(edge=edge, depth=1, symbol=self.symbol(dst)))
        return hops

    def impact(self, symbol_id: str, depth: int) -> ImpactReport:
        if self._saved is not None and symbol_id in self._saved.by_id and self._index_symbol(symbol_id) is None:
            target = self._saved.by_id[symbol_id]
            hops = self._with_saved([], symbol_id, _IMPACT_KINDS, certain=True)
            files = sorted({target.path} | {h.edge.path for h in hops if h.edge.path})
            return ImpactReport(callers=hops, files=files, tests=[f for f in files if is_test(f)])
        raw = self._call(self._index.impact, symbol_id, depth, certain_only=True)  # name-only: candidates apart
        hops = self._with_saved(self._hops(raw.callers), symbol_id, _IMPACT_KINDS, certain=True)
        if self._saved is None:
            return ImpactReport(callers=hops, files=list(raw.files), tests=list(raw.tests))
        files = sorted({raw.target.path} | {h.edge.path for h in hops if h.edge.path})
        return ImpactReport(callers=hops, files=files, tests=[f for f in files if f in raw.tests or is_test(f)])

    def file_deps(self, path: str) -> FileDeps:
        saved = self._saved
        if saved is not None:  # the saved files' imports read from them, resolved as the update will
            from ctxops_code_graph.reader import norm_path

            path = norm_path(path)
            links = [(module, target) for _p, module, target in saved.import_links(path)]
            importers = saved.importers(path)
        else:
            raw = self._call(self._index.file_deps, path)
            path, links, importers = raw.path, [(i.module, i.target) for i in raw.imports], raw.imported_by
        inside = sorted({target for _m, target in links if target and target != path})
        outside = sorted({module for module, target in links if not target and module})
        return FileDeps(imports=inside, external=outside, imported_by=list(importers))

    def ranked_files(self, query: str | None, limit: int) -> list[RankedFile]:
        terms = sorted(set(words(query))) if query else []
        # With saved files: their imports and uses laid over the file graph (`SavedFiles.file_edges`).
        raw = self._call(
            self._index.ranked_files, query_terms=terms, limit=limit, symbols_per_file=6, facts=self._saved
        )
        return [RankedFile(path=r.path, score=r.score, symbols=list(r.symbols)) for r in raw]

    def names(self, near: str | None = None) -> Iterable[str]:
        """Symbol names; with ``near``, the few candidates for suggestions about it (one indexed query)."""
        if self._saved is not None:
            return self._saved.names(near)
        found: list[str] = self._call(self._index.names, near)
        return found

    def files(self) -> list[FileRecord]:
        found: list[FileRecord] = self._call(self._index.files)
        return found

    def status(self) -> Any:
        return self._call(self._index.status)

    def replaced(self) -> bool:
        """True when a full rebuild switched the lookup snapshot since this backend opened it."""
        current: Path | None = self._index.layout.current_lookup()
        return bool(current != self._opened)

    def close(self) -> None:
        self._close_saved()
        self._index.close()


def open_index(root: Path) -> GraphBackend:
    return GraphBackend(root)


def _saved_edge(ref: Reference, src: str, dst: str, confidence: str, resolution: str | None) -> Edge:
    """The edge of a use in a saved file (`overlay.SavedFiles`), as the index would have stored it."""
    return Edge(
        src=src,
        dst=dst,
        kind=ref.role,
        confidence=confidence,  # type: ignore[arg-type]
        path=ref.path,
        line=ref.line,
        resolution=resolution,
    )
