"""Build and update the index: scan, load DuckDB, resolve, rank, publish the SQLite snapshot.

Every write happens under the writer lock. A full build writes a fresh DuckDB file and a fresh snapshot
generation beside the old ones and swaps them in with `os.replace`; an update applies one delta in a
DuckDB transaction and then in a SQLite transaction. Both stores carry a generation number: if they
ever disagree (a writer killed between the two commits), the next write rebuilds in full.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ctxops_code_scan.config import ScanConfig
from ctxops_code_scan.discover import Discovery, discover, discover_dirs
from ctxops_code_scan.gitinfo import GitFacts, git_facts
from ctxops_code_scan.languages import family
from ctxops_code_scan.records import Import, ScanResult, Skipped
from ctxops_code_scan.scan import content_hash, scan_chunks, scan_files

from . import bulk_load, duck_store, health, lookup_db
from .freshness import Staleness, check
from .import_targets import ModuleIndex
from .layout import IndexLayout
from .lock import WriterLock
from .rank import pagerank, summed
from .results import BuildReport
from .schema import INDEX_FORMAT

DEFAULT_UPDATE_BOUND = 50  # files reindexed by one read-triggered update; the rest is reported stale
# DuckDB's cap for a full build (it spills past it), from the load to the compaction. The parent's peak is this
# cap plus what sits beside it (allocator slack, Python's objects, SQLite's caches). Resolution and the file
# graph kept 512 MB until their statements that did not fit 256 MB at ~50k files were bounded (the closure
# walk; the file graph and the edge copy in slices). A step that runs out of memory under the cap is retried
# once under the fallback (`within_cap`), not failed; each step starts again at the cap.
FULL_BUILD_MEMORY = "256MB"
FULL_BUILD_MEMORY_FALLBACK = "512MB"


@dataclass
class _Rows:
    files: list[tuple[Any, ...]] = field(default_factory=list)
    skipped: list[tuple[Any, ...]] = field(default_factory=list)
    symbols: list[tuple[Any, ...]] = field(default_factory=list)
    refs: list[tuple[Any, ...]] = field(default_factory=list)
    imports: list[Import] = field(default_factory=list)
    types: list[tuple[Any, ...]] = field(default_factory=list)


def _collect(outcomes: Iterable[ScanResult | Skipped], next_rid: int) -> tuple[_Rows, int]:
    """Records to row tuples. Repeated strings (paths, ids, kinds, names) share one object: less memory."""
    rows = _Rows()
    intern = sys.intern
    for out in outcomes:
        if isinstance(out, Skipped):
            rows.skipped.append((out.path, out.reason, out.size))
            continue
        f = out.file
        path = f.path
        rows.files.append((path, f.lang, f.size, f.mtime_ns, f.content_hash, f.parse_status, f.error))
        fam = intern(family(f.lang or ""))
        lang = intern(f.lang or "")
        ids: dict[str, str] = {}
        for s in out.symbols:
            ids[s.id] = s.id
            rows.symbols.append(
                (
                    s.id,
                    intern(s.name),
                    s.qualname,
                    intern(s.kind),
                    lang,
                    fam,
                    path,
                    s.line,
                    s.end_line,
                    s.signature,
                    s.doc,
                    ids.get(s.parent, s.parent) if s.parent else None,
                    s.exported,
                )
            )
        for r in out.references:
            enclosing = ids.get(r.enclosing, r.enclosing) if r.enclosing else None
            qualifier = intern(r.qualifier) if r.qualifier else None
            rows.refs.append(
                (
                    next_rid,
                    intern(r.symbol_name),
                    path,
                    r.line,
                    r.col,
                    intern(r.role),
                    enclosing,
                    qualifier,
                    r.receiver_type,
                    fam,
                )
            )
            next_rid += 1
        rows.imports.extend(out.imports)
        rows.types.extend((path, *t) for t in out.types)
    return rows, next_rid


def _import_rows(imports: Iterable[Import], modules: ModuleIndex) -> list[tuple[Any, ...]]:
    rows: list[tuple[Any, ...]] = []
    for imp in imports:
        targets = modules.resolve(imp.lang, imp.module, imp.name, imp.path)
        if not targets:
            rows.append((imp.path, imp.lang, imp.module, imp.name, imp.alias, imp.line, None, None))
        for target in targets:
            rows.append((imp.path, imp.lang, imp.module, imp.name, imp.alias, imp.line, target.path, target.kind))
    return rows


def _ranks(files: Sequence[str], file_edges: Sequence[tuple[str, str, str, float]]) -> list[tuple[str, float]]:
    weights: dict[tuple[str, str], float] = {}
    for src, dst, _kind, weight in file_edges:
        weights[(src, dst)] = weights.get((src, dst), 0.0) + weight
    ranked = pagerank(files, [(s, d, w) for (s, d), w in weights.items()])
    return sorted(ranked.items())


def within_cap(con: Any, step: Callable[[], None], fallback: str = FULL_BUILD_MEMORY_FALLBACK) -> None:
    """Run a step that starts over when re-run; if DuckDB runs out of memory under the build's cap, raise
    the cap to `fallback` (once, logged) and run it again. A larger corpus then builds, only less bounded."""
    import duckdb

    try:
        step()
    except duckdb.OutOfMemoryException as exc:
        cap = con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
        print(f"cq index: out of memory under DuckDB's cap {cap}; retrying under {fallback} ({exc})", file=sys.stderr)
        con.execute(f"SET memory_limit = '{fallback}'")
        step()


class IndexWriter:
    """The one writer of a repository's code index."""

    def __init__(self, root: Path, config: ScanConfig | None = None, lock_timeout: float = 30.0) -> None:
        self.root = root.resolve()
        self.layout = IndexLayout(self.root)
        self.config = config or ScanConfig.load(self.root)
        self.lock_timeout = lock_timeout
        self._modules: tuple[frozenset[tuple[str, str]], ModuleIndex] | None = None
        self._last_generation: str | None = None  # what this writer last committed to both stores
        self._duck: Any = None  # the build store, kept open from the check to the update (one open, not two)

    # -- public ------------------------------------------------------------------------------------

    def build(self, full: bool = False, workers: int | None = None) -> BuildReport:
        """Full build when asked, when no usable index exists, or when the formats differ; else update."""
        with WriterLock(self.layout.lock_path, self.lock_timeout):
            try:
                reason = "requested" if full else self._needs_full_build()
                if full:
                    # A damaged or foreign file is moved aside (never deleted) before the new one is written.
                    moved = [health.move_aside(path) for path, _ in health.damaged(self.layout, deep=True)]
                    if moved:
                        reason += "; moved aside " + ", ".join(p.name for p in moved)
                if reason:
                    return self._full_build(reason, workers)
                return self._update(None, bound=None)
            finally:
                self._close_duck()

    def update(self, paths: Iterable[str] | None = None, bound: int | None = DEFAULT_UPDATE_BOUND) -> BuildReport:
        """Reindex what changed (`paths` as hints from a watcher, or found by the stat check)."""
        with WriterLock(self.layout.lock_path, self.lock_timeout):
            try:
                reason = self._needs_full_build()
                if reason:
                    return self._full_build(reason, None)
                return self._update(set(paths) if paths is not None else None, bound=bound)
            finally:
                self._close_duck()

    def _close_duck(self) -> None:
        if self._duck is not None:
            self._duck.close()
            self._duck = None

    def _module_index(self, files: list[tuple[str, str]]) -> ModuleIndex:
        """The module keys of the file set, cached while the set is unchanged (the watcher's case)."""
        key = frozenset(files)
        if self._modules is None or self._modules[0] != key:
            self._modules = (key, ModuleIndex(files, self.root))
        return self._modules[1]

    # -- full ----------------------------------------------------------------------------------------

    def _needs_full_build(self) -> str:
        # The build store's header is not checked here: this runs on every auto-update, beside a concurrent
        # build whose store is mid-write (a false "damaged" there failed readers with "disk I/O error"). A
        # store that no longer opens as DuckDB is still reported below; `cq index --full` and `ctx doctor`
        # check its header. A damaged lookup snapshot (ctxops's own, named by the pointer) is moved aside.
        found = [(path, why) for path, why in health.damaged(self.layout) if path != self.layout.duckdb_path]
        if found:
            moved = [health.move_aside(path).name for path, _ in found]
            return f"lookup snapshot damaged (moved aside {', '.join(moved)})"
        current = self.layout.current_lookup()
        if current is None or not current.exists() or not self.layout.duckdb_path.exists():
            return "no index yet"
        try:
            con = lookup_db.open_reader(self.layout)
            try:
                snap = lookup_db.meta(con)
            finally:
                con.close()
        except Exception as exc:  # a corrupt snapshot is rebuilt, never trusted
            return f"lookup snapshot unreadable ({exc})"
        if snap.get("format") != INDEX_FORMAT:
            return f"index format {snap.get('format')} differs from {INDEX_FORMAT}"
        if self._last_generation is not None and snap.get("generation") == self._last_generation:
            return ""  # this writer committed that generation to both stores itself
        # Another process holding the build store (DuckDB: one process per file) is busy, not broken:
        # `StoreBusy` propagates (the caller reports it or answers from the snapshot); only a store that
        # opens and cannot be read is rebuilt.
        try:
            duck = duck_store.connect(self.layout.duckdb_path, wait=self.lock_timeout)
        except duck_store.StoreBusy:
            raise
        except Exception as exc:  # opens as DuckDB no more: damaged inside (the header was fine)
            raise health.IndexDamaged([(self.layout.duckdb_path, f"unreadable ({exc})")]) from exc
        try:
            stored = duck_store.generation(duck)
        except Exception as exc:
            duck.close()
            if not health.is_ours(self.layout.duckdb_path):
                raise health.IndexDamaged(
                    [(self.layout.duckdb_path, "a DuckDB database that is not a ctxops code index (no meta table)")]
                ) from exc
            return f"build store unreadable ({exc})"
        if stored is None or stored != snap.get("generation"):
            duck.close()
            return "build store and snapshot disagree (an interrupted write)"
        self._duck = duck  # the update that follows writes through it (opening costs a fresh process ~0.1 s)
        return ""

    def _full_build(self, reason: str, workers: int | None) -> BuildReport:
        started = time.perf_counter()
        timings: dict[str, float] = {}
        cpu: dict[str, float] = {}
        mark, cpu_mark = started, _cpu_seconds()

        def phase(name: str) -> None:
            nonlocal mark, cpu_mark
            now, cpu_now = time.perf_counter(), _cpu_seconds()
            timings[name] = round(now - mark, 3)
            cpu[name] = round(cpu_now - cpu_mark, 3)
            mark, cpu_mark = now, cpu_now

        disc = discover(self.root, self.config)
        phase("discover")
        self.layout.ensure_index_dir()
        tmp = self.layout.duckdb_path.with_name("code-building.duckdb")
        compacted = self.layout.duckdb_path.with_name("code-compacted.duckdb")  # the store as published
        for stale in (tmp, tmp.with_name(tmp.name + ".wal")):
            stale.unlink(missing_ok=True)

        def open_store() -> Any:
            # Opened once the first chunk is back: the scan workers are forked by then (DuckDB's threads
            # must not be running when a process forks). One DuckDB thread while the workers have the cores.
            con = duck_store.connect(tmp, memory_limit=FULL_BUILD_MEMORY)
            duck_store.scratch_store(con)
            duck_store.create_tables(con)
            con.execute("SET threads TO 1")
            return con

        # Each chunk is loaded into DuckDB as it arrives, while the workers scan the next ones; the workers
        # also write the snapshot's `refs` and `symbols` rows, keyed as the snapshot keys its files.
        keys = bulk_load.SnapshotKeys.for_paths([c.path for c in disc.files], self.config.max_file_bytes)
        load = bulk_load.ChunkLoader(open_store, self.layout.index_dir / "code-building.load", keys)
        try:
            for chunk in scan_chunks(
                self.root, [(c.path, c.lang) for c in disc.files], load.writer(), self.config, workers
            ):
                load.add(chunk)
            load.close()
        except BaseException:
            load.abandon()
            raise
        con = load.connection()
        try:
            con.execute("RESET threads")
            phase("scan")
            skipped = load.skipped + [(s.path, s.reason, s.size) for s in disc.skipped]
            files = load.files
            modules = ModuleIndex(files, self.root)
            facts = git_facts(self.root)
            generation = 1
            meta = self._meta(generation, load.n_refs + 1, facts)
            duck_store.insert_rows(con, "skipped", skipped)
            duck_store.insert_rows(con, "dirs", sorted(disc.dirs.items()))
            # Their targets need every file's path: resolved now, read back from the store a batch at a time.
            for batch in load.imports():
                duck_store.insert_rows(con, "imports", _import_rows(batch, modules))
            load.drop_imports()
            phase("load")
            # The snapshot's tables that resolution does not change are copied while it runs.
            snap = lookup_db.GenerationWriter(
                self.layout, con, keys, load.shards, load.max_symbols, memory_fallback=FULL_BUILD_MEMORY_FALLBACK
            )
            try:
                snap.start()
                within_cap(con, lambda: duck_store.resolve(con, all_refs=True))
                duck_store.drop_scratch(con)  # resolution's temp tables: DuckDB's memory for the file graph
                con.execute(f"SET memory_limit = '{FULL_BUILD_MEMORY}'")  # (back to the cap after a fallback)
                phase("resolve")
                snap.copy_edges()  # while the files are ranked
                within_cap(con, lambda: duck_store.rebuild_file_edges(con))
                # Streamed: the file graph as arrays, not a list of every file edge (the rank phase grew with
                # the corpus). Same sums in the same order as `_ranks`: the same ranks.
                ranked = pagerank([f[0] for f in files], summed(duck_store.stream_file_edges(con)))
                ranks = sorted(ranked.items())
                del ranked
                duck_store.insert_rows(con, "ranks", ranks)
                duck_store.insert_rows(con, "meta", meta)
                self._modules = (frozenset(files), modules)
                phase("rank")
                snapshot = snap.finish()
            except BaseException:
                snap.abort()
                raise
            phase("snapshot")
            con.execute(f"SET memory_limit = '{FULL_BUILD_MEMORY}'")  # (back to the cap after a fallback)
            within_cap(con, lambda: duck_store.write_compacted(con, compacted))
        finally:
            con.close()
            load.remove()
        for scratch in (tmp, tmp.with_name(tmp.name + ".wal")):
            scratch.unlink(missing_ok=True)
        # Both stores of the new generation are complete: swap them in (a kill before this keeps the old).
        compacted.chmod(0o600)  # DuckDB creates its file with the umask's mode: the index is private
        compacted.replace(self.layout.duckdb_path)
        self.layout.duckdb_path.with_name("code.duckdb.wal").unlink(missing_ok=True)
        lookup_db.publish(self.layout, snapshot)
        self._last_generation = str(generation)
        phase("publish")
        return BuildReport(
            mode="full",
            timings=timings,
            cpu=cpu,
            elapsed_s=time.perf_counter() - started,
            scanned=len(files),
            changed=[f[0] for f in files],
            revision=facts.revision,
            reason=reason,
        )

    def _meta(self, generation: int, next_rid: int, facts: GitFacts) -> list[tuple[str, str]]:
        return [
            ("format", INDEX_FORMAT),
            ("generation", str(generation)),
            ("next_rid", str(next_rid)),
            ("head", facts.head or ""),
            ("dirty", "1" if facts.dirty else "0"),
            ("revision", facts.revision or ""),
            ("is_repo", "1" if facts.is_repo else "0"),
            ("updated_at", datetime.now(UTC).isoformat(timespec="seconds")),
        ]

    # -- incremental ---------------------------------------------------------------------------------

    def _update(self, hinted: set[str] | None, bound: int | None) -> BuildReport:
        started = time.perf_counter()
        reader = lookup_db.open_reader(self.layout)
        try:
            snap = lookup_db.meta(reader)
            indexed = lookup_db.indexed_files(reader)
            from ctxops_code_scan.gitinfo import read_head

            stale = check(self.root, reader, snap.get("head") or None, read_head(self.root))
            recorded: _Recorded | None = None
            if stale.dirs_changed:
                recorded = _Recorded(dirs=lookup_db.recorded_dirs(reader), skipped=lookup_db.recorded_skipped(reader))
        finally:
            reader.close()
        if hinted is not None:
            stale.modified = sorted(set(stale.modified) | {p for p in hinted if p in indexed})
            if any(p not in indexed for p in hinted):
                stale.dirs_changed = stale.dirs_changed or ["(watcher: new or removed paths)"]
        plan = self._plan(stale, indexed, recorded)
        if plan is None:
            return BuildReport(
                mode="noop", elapsed_s=time.perf_counter() - started, revision=snap.get("revision") or None
            )
        to_scan, deleted, disc = plan
        left: list[str] = []
        if bound is not None and len(to_scan) > bound:
            left = [p for p, _ in to_scan[bound:]]
            to_scan = to_scan[:bound]
            if disc is not None:
                # Files left for later must still look new next time: keep their directories marked changed.
                for path in left:
                    parent = path.rsplit("/", 1)[0] if "/" in path else ""
                    disc.dirs[parent] = -1
        report = self._apply(snap=snap, indexed=indexed, to_scan=to_scan, deleted=deleted, disc=disc, stale=stale)
        report.stale = left
        report.elapsed_s = time.perf_counter() - started
        return report

    def _plan(
        self, stale: Staleness, indexed: dict[str, tuple[int, int, str]], recorded: _Recorded | None = None
    ) -> tuple[list[tuple[str, str]], list[str], Discovery | None] | None:
        if stale.fresh:
            return None
        disc: Discovery | None = None
        langs: dict[str, str] = {}
        if stale.dirs_changed:
            partial = self._discover_changed(stale.dirs_changed, indexed, recorded)
            if partial is not None:
                disc, deleted = partial
                langs = {c.path: c.lang for c in disc.files}
            else:
                disc = discover(self.root, self.config)
                langs = {c.path: c.lang for c in disc.files}
                deleted = sorted(p for p in indexed if p not in langs)
            added = [p for p in langs if p not in indexed]
        else:
            added, deleted = [], []
        deleted = list(deleted)
        to_scan: list[tuple[str, str]] = []
        for path in sorted(set(stale.modified)):
            if path in deleted:
                continue
            if disc is None and not (self.root / path).exists():
                deleted.append(path)
                continue
            lang = langs.get(path) or self._lang_of(path)
            if lang is None:
                deleted.append(path)
                continue
            # (mtime, size) changed: confirm with the content hash before paying for extraction.
            try:
                digest = content_hash((self.root / path).read_bytes())
            except OSError:
                deleted.append(path)
                continue
            if digest != indexed[path][2]:
                to_scan.append((path, lang))
            else:
                to_scan.append((path, "=" + lang))  # same content: refresh its stat only
        to_scan.extend((p, langs[p]) for p in sorted(added))
        if not to_scan and not deleted and disc is None and not stale.head_changed:
            return None
        return to_scan, sorted(set(deleted)), disc

    def _discover_changed(
        self, changed: list[str], indexed: dict[str, tuple[int, int, str]], recorded: _Recorded | None
    ) -> tuple[Discovery, list[str]] | None:
        """List only the directories whose entries changed (an editor's save-by-rename touches one), not
        the whole tree. Returns the discovery merged into the recorded one (every directory's mtime and
        every skipped file, as a full walk would give them) and the indexed files that are gone; None
        when only a full walk will do: ignore rules changed (a `.gitignore`, `.meta/config.toml`) or a
        watcher's hint without directories."""
        if recorded is None or any(_is_rules_file(d) or d.startswith("(") for d in changed):
            return None
        gone = [d for d in changed if d and not (self.root / d).is_dir()]
        listed = [d for d in changed if d not in gone]
        gone_prefixes = tuple(f"{d}/" for d in gone)
        part = discover_dirs(self.root, listed, set(recorded.dirs) - set(gone), self.config)
        if any(_is_rules_file(d) and d not in recorded.dirs for d in part.dirs):
            return None  # a new .gitignore: the rules changed
        scope = set(listed) | {d for d in part.dirs if not _is_rules_file(d)}

        def in_scope(path: str) -> bool:
            parent = path.rsplit("/", 1)[0] if "/" in path else ""
            return parent in scope or path.startswith(gone_prefixes)

        found = {c.path for c in part.files}
        deleted = sorted(p for p in indexed if p not in found and in_scope(p))
        dirs = {d: m for d, m in recorded.dirs.items() if d not in gone and not d.startswith(gone_prefixes)}
        dirs.update(part.dirs)
        kept = [Skipped(path=p, reason=r, size=n) for p, r, n in recorded.skipped if not in_scope(p)]
        return Discovery(files=part.files, skipped=kept + part.skipped, dirs=dirs), deleted

    def _lang_of(self, path: str) -> str | None:
        from ctxops_code_scan.languages import language_for_path

        spec = language_for_path(path)
        return spec.name if spec else None

    def _apply(
        self,
        *,
        snap: dict[str, str],
        indexed: dict[str, tuple[int, int, str]],
        to_scan: list[tuple[str, str]],
        deleted: list[str],
        disc: Discovery | None,
        stale: Staleness,
    ) -> BuildReport:
        touch_only = [p for p, lang in to_scan if lang.startswith("=")]
        real = [(p, lang) for p, lang in to_scan if not lang.startswith("=")]
        next_rid = int(snap.get("next_rid", "1"))
        rows, next_rid = _collect(scan_files(self.root, real, self.config), next_rid)
        touched_stats = []
        for path in touch_only:
            try:
                st = (self.root / path).stat()
            except OSError:
                continue
            touched_stats.append((st.st_mtime_ns, st.st_size, path))
        newly_skipped = {s[0] for s in rows.skipped}
        changed_paths = sorted({p for p, _ in real} | set(deleted))
        facts = git_facts(self.root)
        generation = int(snap.get("generation", "0")) + 1
        meta = self._meta(generation, next_rid, facts)
        # The indexed file set changes when a file is added or removed, or an indexed one is now skipped; a
        # file skipped before and again (binary, generated: listed by every walk of its directory) does not
        # change it, and must not cost a re-resolution of every import and a new rank (an import's case).
        file_set_changed = bool(
            deleted
            or any(p in indexed for p in newly_skipped)
            or any(p not in indexed and p not in newly_skipped for p, _ in real)
        )

        con, self._duck = self._duck, None
        if con is None:
            con = duck_store.connect(self.layout.duckdb_path, wait=self.lock_timeout)
        con.execute("SET threads TO 1")  # a delta is small: one thread beats scheduling many on a busy machine
        try:
            old_syms = duck_store.symbols_of(con, changed_paths)
            con.execute("BEGIN TRANSACTION")
            duck_store.delete_paths(con, changed_paths)
            duck_store.touch_files(con, touched_stats)
            duck_store.insert_rows(con, "files", [f for f in rows.files if f[0] not in newly_skipped])
            duck_store.insert_rows(con, "skipped", rows.skipped)
            duck_store.insert_rows(con, "symbols", duck_store.without_snapshot_only("symbols", rows.symbols))
            duck_store.insert_rows(con, "refs", rows.refs)
            duck_store.insert_rows(con, "types", rows.types)
            if file_set_changed or self._modules is None:
                modules = self._module_index(duck_store.file_langs(con))
            else:
                modules = self._modules[1]  # same file set as this writer's last commit
            reresolve_paths = set(changed_paths)
            if file_set_changed:
                # New or removed files can change what any import points to: recompute them all.
                old_imports = duck_store.fetch(con, "imports")
                all_imports = [
                    Import(path=r[0], lang=r[1], module=r[2], name=r[3], alias=r[4], line=r[5])
                    for r in _distinct_imports(old_imports)
                ] + rows.imports
                import_rows = _import_rows(all_imports, modules)
                before = _targets_by_path(old_imports)
                after = _targets_by_path(import_rows)
                reresolve_paths |= {p for p in set(before) | set(after) if before.get(p) != after.get(p)}
                duck_store.replace_rows(con, "imports", import_rows)
                imports_replaced = True
            else:
                import_rows = _import_rows(rows.imports, modules)
                duck_store.insert_rows(con, "imports", import_rows)
                imports_replaced = False
            new_syms = {(r[0], r[1]) for r in rows.symbols}
            affected_names = sorted({name for _id, name in set(old_syms) ^ new_syms})
            duck_store.resolve(con, all_refs=False, paths=sorted(reresolve_paths), names=affected_names)
            todo_rids = duck_store.pending_rids(con)
            new_edges = duck_store.pending_edges(con)
            sources = sorted(duck_store.pending_paths(con) | reresolve_paths)
            old_out = duck_store.file_edges_of(con, sources)
            duck_store.rebuild_file_edges(con, sources, deleted)
            ranks: list[tuple[str, float]] | None = None
            file_edges: list[tuple[str, str, str, float]] = []
            if file_set_changed or duck_store.file_edges_of(con, sources) != old_out:
                file_edges = duck_store.all_file_edges(con)
                paths_now = [p for p, _ in duck_store.file_langs(con)]
                ranks = _ranks(paths_now, file_edges)
                duck_store.replace_rows(con, "ranks", ranks)
            if disc is not None:
                duck_store.replace_rows(con, "dirs", sorted(disc.dirs.items()))
                duck_store.replace_rows(
                    con, "skipped", [(s.path, s.reason, s.size) for s in disc.skipped] + rows.skipped
                )
            duck_store.replace_rows(con, "meta", meta)
            skipped_now = duck_store.fetch(con, "skipped") if disc is not None else None
            con.execute("COMMIT")
        finally:
            con.close()

        lookup_db.apply_delta(
            self.layout,
            lookup_db.Delta(
                meta=meta,
                scanned_paths=[p for p, _ in real],
                deleted_paths=deleted,
                files=[f for f in rows.files if f[0] not in newly_skipped],
                touched=touched_stats,
                symbols=rows.symbols,
                refs=rows.refs,
                imports=import_rows,
                imports_replace_all=imports_replaced,
                skipped=skipped_now,
                new_skipped=rows.skipped,
                dirs=sorted(disc.dirs.items()) if disc is not None else None,
                reresolved_rids=todo_rids,
                edges=new_edges,
                file_edges=file_edges if ranks is not None else None,
                ranks=ranks,
            ),
        )
        self._last_generation = str(generation)
        return BuildReport(
            mode="incremental",
            scanned=len(real),
            changed=sorted(p for p, _ in real),
            deleted=deleted,
            revision=facts.revision,
            reason="head moved" if stale.head_changed and not real and not deleted else "",
        )


@dataclass
class _Recorded:
    """What the snapshot recorded of the last walk: directory (and ignore file) mtimes, skipped files."""

    dirs: dict[str, int]
    skipped: list[tuple[str, str, int]]


def _is_rules_file(path: str) -> bool:
    return path in {".meta/config.toml", ".gitignore"} or path.endswith("/.gitignore")


def _cpu_seconds() -> float:
    """CPU time of this process (all its threads) and of its finished children (the scan workers)."""
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _distinct_imports(rows: Sequence[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    seen: set[tuple[Any, ...]] = set()
    out = []
    for row in rows:
        key = row[:6]
        if key not in seen:
            seen.add(key)
            out.append(key)
    return out


def _targets_by_path(rows: Sequence[tuple[Any, ...]]) -> dict[str, set[tuple[Any, ...]]]:
    out: dict[str, set[tuple[Any, ...]]] = {}
    for row in rows:
        out.setdefault(row[0], set()).add((row[2], row[3], row[6], row[7]))
    return out
