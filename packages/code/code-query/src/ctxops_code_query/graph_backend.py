"""`CodeIndex` over `ctxops_code_graph`: opening, first-time building, and the read operations.

The graph's read path is a SQLite snapshot (stdlib `sqlite3`), so `cq def` never imports DuckDB or
tree-sitter unless files changed since the last index and must be reindexed first.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ctxops_contracts import FileRecord, Reference, Symbol

from .backend import FileDeps, Hop, ImpactReport, RankedFile
from .errors import EnvironmentProblem
from .textsearch import words


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

    def _call(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except self._graph.IndexNotBuilt as exc:
            raise EnvironmentProblem(str(exc), fix="run `cq index`") from exc

    def revision(self) -> str | None:
        rev: str | None = self._call(lambda: self._index.revision)
        return rev

    def stale_files(self) -> list[str]:
        stale: list[str] = self._call(self._index.stale_files)
        return stale

    def freshen(self, wait: float | None) -> list[str]:
        """The staleness check and its bounded update, waiting for the update at most ``wait`` seconds.

        An update that takes longer continues in a detached process and commits (this process does not
        wait for it); this query answers from the current snapshot and reports the files as stale.
        Later index reads of the same query do not wait again.
        """
        self._index.update_wait = wait
        try:
            stale: list[str] = self._call(self._index.refresh)
        finally:
            self._index.update_wait = 0.0
        return stale

    def generation(self) -> str:
        stale = self.stale_files()  # the staleness check (and its bounded update) runs first
        current = self._index.layout.current_lookup()
        # Stale files are part of it: an answer given while an edit waits for its update is not the
        # answer of the same snapshot once nothing is pending.
        parts = [str(self.revision()), "stale:" + ",".join(stale)]
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
        return found

    def symbol(self, symbol_id: str) -> Symbol | None:
        found: Symbol | None = self._call(self._index.symbol, symbol_id)
        return found

    def symbols_in_file(self, path: str) -> list[Symbol]:
        found: list[Symbol] = self._call(self._index.symbols_in_file, path)
        return found

    def all_symbols(self) -> Iterable[Symbol]:
        """Every symbol, file by file, in one query."""
        found: Iterable[Symbol] = self._call(self._index.all_symbols)
        return found

    def references(self, name: str) -> list[Reference]:
        if ":" in name:  # path:NAME scopes the name's references to that definition's name
            name = name.rpartition(":")[2]
        found: list[Reference] = self._call(self._index.references, name)
        return found

    def _hops(self, raw: list[Any]) -> list[Hop]:
        return [Hop(edge=h.edge, depth=h.depth, symbol=h.symbol) for h in raw]

    def callers(self, symbol_id: str, depth: int) -> list[Hop]:
        return self._hops(self._call(self._index.callers, symbol_id, depth))

    def certain_uses(self, symbol_id: str, depth: int, kinds: tuple[str, ...]) -> list[Hop]:
        return self._hops(self._call(self._index.callers, symbol_id, depth, kinds, certain_only=True))

    def uncertain_references(self, name: str, roles: tuple[str, ...]) -> list[Reference]:
        found: list[Reference] = self._call(self._index.uncertain_references, name, roles)
        return found

    def callees(self, symbol_id: str, depth: int) -> list[Hop]:
        return self._hops(self._call(self._index.callees, symbol_id, depth))

    def impact(self, symbol_id: str, depth: int) -> ImpactReport:
        raw = self._call(self._index.impact, symbol_id, depth, certain_only=True)  # name-only: candidates apart
        return ImpactReport(callers=self._hops(raw.callers), files=list(raw.files), tests=list(raw.tests))

    def file_deps(self, path: str) -> FileDeps:
        raw = self._call(self._index.file_deps, path)
        inside = sorted({i.target for i in raw.imports if i.target and i.target != raw.path})
        outside = sorted({i.module for i in raw.imports if not i.target and i.module})
        return FileDeps(imports=inside, external=outside, imported_by=list(raw.imported_by))

    def ranked_files(self, query: str | None, limit: int) -> list[RankedFile]:
        terms = sorted(set(words(query))) if query else []
        raw = self._call(self._index.ranked_files, query_terms=terms, limit=limit, symbols_per_file=6)
        return [RankedFile(path=r.path, score=r.score, symbols=list(r.symbols)) for r in raw]

    def names(self, near: str | None = None) -> Iterable[str]:
        """Symbol names; with ``near``, the few candidates for suggestions about it (one indexed query)."""
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
        self._index.close()


def open_index(root: Path) -> GraphBackend:
    return GraphBackend(root)
