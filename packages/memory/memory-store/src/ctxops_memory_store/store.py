"""The memory store: Markdown files are the truth; writes dedupe, fold, supersede; nothing is deleted."""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
from ctxops_contracts import CodeTieSource, ContractError, MemoryEntry, UnsupportedSchemaVersion, convert, new_ulid
from ctxops_contracts.shared.confine import confined, ensure_dir
from ctxops_contracts.shared.files import atomic_write
from ctxops_contracts.shared.jsonlite import loads as jsonlite_loads
from ctxops_contracts.shared.layout import COMMITTED_FILE_MODE, ensure_meta
from ctxops_contracts.shared.locks import LockBusy
from ctxops_hooks_capture.redact import redact

from . import bm25, settle_rules, trust, write_turn
from .catalog import Catalog
from .config import MemoryConfig, load_config
from .conflicts import Features, features
from .entry_file import LoadResult, file_name, render_entry
from .frontmatter import FrontMatterError
from .index import Filters, MemoryIndex, scope_matches
from .layout import INDEX_DIR, MEMORY_DIR
from .redact_fields import redact_fields
from .similarity import content_hash, normalize, shingles
from .snapshot import BULK as SNAPSHOT_BULK
from .snapshot import SnapshotWriter, request_sync
from .snapshot import wanted as snapshot_wanted
from .terms import subject_of, tokens

log = logging.getLogger(__name__)

_UNSET = object()


class EntryNotFound(KeyError):
    """No entry has this id (or id prefix)."""

    def __str__(self) -> str:
        return str(self.args[0])


class InvalidTransition(ValueError):
    """An operation that does not apply to the entry's status (accepting an active entry, ...)."""


@dataclass
class AddResult:
    """What a write did: the entry written (or the existing duplicate) and what it changed around it."""

    entry: MemoryEntry
    action: str  # "added" | "duplicate" | "accepted" | "superseded" | "folded" (into a pinned entry) | "queued"
    folded: list[str] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    pinned_near_duplicates: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)  # likely conflicts found (superseded, or queued for review)
    review: list[str] = field(default_factory=list)  # possible conflicts: both stay active, queued for review


@dataclass
class SearchResult:
    """Entries ranked for a query, and which engine ranked them (``catalog``: BM25 over the read snapshot)."""

    hits: list[tuple[MemoryEntry, float]]
    engine: str
    note: str | None = None


def utcnow() -> datetime:
    return datetime.now(UTC)


QUICK_BUCKET = settle_rules.QUICK_BUCKET
QUICK_TOP = settle_rules.QUICK_TOP


def new_entry(
    *,
    kind: str,
    title: str,
    body: str = "",
    scope: Sequence[str] = (),
    files: Sequence[str] = (),
    tags: Sequence[str] = (),
    source: Sequence[str] = (),
    pinned: bool = False,
    status: str = "active",
    now: datetime | None = None,
) -> MemoryEntry:
    """A new entry with a fresh id and timestamps; validated like any record."""
    stamp = now or utcnow()
    # a bare key in a title too (it names the file), paths and references: each field redacted, and what one
    # hid hidden in all
    title, body, scope, files, tags, source = redact_fields(
        title.strip(), body.strip(), scope=scope, files=files, tags=tags, source=source
    )
    return msgspec.convert(
        {
            "id": new_ulid(),
            "kind": kind,
            "title": title,
            "body": body,
            "scope": scope,
            "files": files,
            "tags": tags,
            "source": source,
            "created_at": stamp,
            "pinned": pinned,
            "status": status,
        },
        MemoryEntry,
    )


def _with(entry: MemoryEntry, **changes: Any) -> MemoryEntry:
    return msgspec.structs.replace(entry, **changes)


# A write compares its title with every entry of its kind and scope: normalising each of them every time
# cost ~7 ms a write at 3,000 entries (cProfile), so normalised titles are remembered.
_normal_title = functools.lru_cache(maxsize=1 << 16)(normalize)


MAY_REPLACE = "may-replace:"  # a tag of an active entry: a possible replacement of that entry, queued for review


MAX_REVIEW = 3  # possible replacements a new entry names at most


def may_replace(entry: MemoryEntry) -> list[str]:
    """The ids an active entry may replace (queued for review: ``ctx mem review``)."""
    return [t[len(MAY_REPLACE) :] for t in entry.tags if t.startswith(MAY_REPLACE)]


def _hash(entry: MemoryEntry) -> str:
    return content_hash(entry.kind, entry.title, entry.body, entry.scope)


def _shown(entry: MemoryEntry) -> tuple[str, str, str, list[str]]:
    """What injection shows of an entry: a write that changes it writes new text (``trust``)."""
    return (entry.kind, entry.title, entry.body, list(entry.scope))


def trust_view(entry: MemoryEntry) -> dict[str, object]:
    """The fields ``trust.entry_hash`` covers, from an entry (a catalog record's ``entry`` has the same)."""
    return {"kind": entry.kind, "title": entry.title, "body": entry.body, "scope": list(entry.scope)}


def _redacted(entry: MemoryEntry) -> MemoryEntry:
    """Every write path redacts: an entry built elsewhere (MCP, harvest, a library caller) too."""
    title, body, scope, files, tags, source = redact_fields(
        entry.title, entry.body, scope=entry.scope, files=entry.files, tags=entry.tags, source=entry.source
    )
    if (title, body, tags, scope, files, source) == (
        entry.title,
        entry.body,
        entry.tags,
        entry.scope,
        entry.files,
        entry.source,
    ):
        return entry
    return _with(entry, title=title, body=body, tags=tags, scope=scope, files=files, source=source)


class MemoryStore:
    """Memories of one repository: ``.meta/memory/*.md`` plus the derived index in ``.meta/index/``."""

    def __init__(self, root: Path, config: MemoryConfig | None = None) -> None:
        self.root = Path(root)
        self.memory_dir = self.root / MEMORY_DIR
        self.index_dir = self.root / INDEX_DIR
        self.config = config if config is not None else load_config(self.root)
        self.index = MemoryIndex(self.index_dir, self.memory_dir)
        self.catalog = Catalog(str(self.memory_dir), str(self.index_dir))
        self._catalog_read = False
        self._loaded: LoadResult | None = None
        self._converted: dict[tuple[str, object, object], tuple[MemoryEntry, str]] = {}  # + the text's hash
        self._hashes: dict[str, str] = {}  # content hash (stored and recomputed) -> entry id
        self._text_hash: dict[str, str] = {}  # entry id -> its text's hash, as loaded or last written
        self._postings: bm25.Postings | None = None  # built on the first search, then kept in step
        self._shingles: dict[str, set[str]] = {}
        self._features: dict[str, Features] = {}
        self._titles: dict[str, tuple[tuple[str, ...], frozenset[str]]] = {}  # title -> (subject, title terms)
        self._buckets: dict[tuple[str, tuple[str, ...]], set[str]] = {}  # (kind, scope) -> active entry ids
        self._known_generation: str | None = None
        self._dirty_generation = False
        self._snapshot_writer: SnapshotWriter | None = None  # the hook's read snapshot, kept open
        self._snapshot: SnapshotWriter | None = None  # the same, while a write is in progress
        self._snapshot_stale = False  # the catalog learned of changes the snapshot may not have
        self._sync_steps = False  # syncing in steps (the detached sync), not writing
        self._sync_more = False  # a step left files for the next one
        self._swept = False  # temporary files of killed writers removed (once a process, under the lock)
        self._code_source: object = _UNSET  # ties to symbols: ``code_source``
        self._partial = False  # a quick write: the entries loaded are only those it compares with
        self._embedder: Any = None  # ``embedder``: loaded on the first vector use
        self._embed_cache: Any = None
        self._vector_search: Any = None
        self._vector_items: tuple[tuple[int, int, int], list[tuple[str, str]]] | None = None
        self._writes = 0

    # -- reading ---------------------------------------------------------------------------------------

    def load(self, *, refresh: bool = False) -> LoadResult:
        """Entries by id (with their files) and unreadable files, from the catalog (see ``catalog.py``)."""
        full = False
        if not self._catalog_read:
            self.catalog.read()
            self._catalog_read = True
            refresh = full = True  # a new process checks every file once (hand edits in place included)
        if refresh or self._loaded is None:
            changed = self.catalog.refresh(full=full)
            if changed or self._loaded is None:
                self._loaded = self._from_catalog()
                self._postings = None
            # Files the catalog found changed (an edit in place keeps the directory's time) may be missing
            # from the read snapshot, and so may what a stored catalog learned in another process: the
            # next write compares the snapshot's files with the catalog (~10 ms at 10,000 files).
            self._snapshot_stale = self._snapshot_stale or changed or full
        return self._loaded

    def _from_catalog(self) -> LoadResult:
        entries: dict[str, tuple[MemoryEntry, Path]] = {}
        errors = self.catalog.errors()
        converted: dict[tuple[str, object, object], tuple[MemoryEntry, str]] = {}
        hashes: dict[str, str] = {}
        text_hash: dict[str, str] = {}
        for name in sorted(self.catalog.records):
            record = self.catalog.records[name]
            data = record.get("entry")
            if not isinstance(data, dict):
                continue
            path = self.memory_dir / name
            key = (name, record.get("ino"), record.get("mtime_ns"))
            known = self._converted.get(key)
            if known is None:
                try:
                    entry = convert(MemoryEntry, data, where=str(path))
                except (ContractError, UnsupportedSchemaVersion) as exc:
                    errors.append(FrontMatterError(str(path), 2, str(exc).split(": ", 1)[-1]))
                    continue
                known = (entry, _hash(entry))
            entry = known[0]
            converted[key] = known
            text_hash[entry.id] = known[1]
            hashes.setdefault(known[1], entry.id)
            if entry.content_hash:
                hashes.setdefault(entry.content_hash, entry.id)
            if entry.id in entries:
                other = entries[entry.id][1]
                errors.append(FrontMatterError(str(path), 2, f"duplicate id {entry.id} (also in {other})"))
                continue
            entries[entry.id] = (entry, path)
        self._converted = converted
        self._hashes = hashes
        self._text_hash = text_hash
        self._buckets = {}
        for entry, _ in entries.values():
            if entry.status == "active":
                self._buckets.setdefault((entry.kind, tuple(sorted(entry.scope))), set()).add(entry.id)
        return LoadResult(entries, errors)

    def _full_check(self) -> None:
        """Re-check every file (a stat of each: edits in place too)."""
        if not self._catalog_read:
            self.load()  # a new process's first load checks every file
            return
        if self.catalog.refresh(full=True):
            self._snapshot_stale = True
        self._loaded = self._from_catalog()
        self._postings = None

    def save_catalog(self) -> None:
        """Persist the read snapshot for the next process (commands call it once before they exit)."""
        if self._partial:
            return  # a quick write's catalog holds only the files it read: never the whole store's
        if self.index_dir.is_dir() or self.memory_dir.is_dir():
            self.catalog.save()

    @property
    def errors(self) -> list[FrontMatterError]:
        """Files that could not be read (path and line in each), from the last load."""
        return self.load().errors

    def entries(self) -> list[MemoryEntry]:
        return [entry for entry, _ in self.load().entries.values()]

    def path_of(self, entry_id: str) -> Path | None:
        found = self.load().entries.get(entry_id)
        return found[1] if found else None

    def resolve(self, id_or_prefix: str) -> MemoryEntry:
        """The entry whose id is, or (case-insensitively) starts or ends with, ``id_or_prefix``."""
        wanted = id_or_prefix.strip().upper()
        table = self.load().entries
        if wanted in table:
            return table[wanted][0]
        matches = [e for e, _ in table.values() if wanted and (e.id.startswith(wanted) or e.id.endswith(wanted))]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise EntryNotFound(f"no memory entry with id {id_or_prefix!r}; `list --all` shows every id")
        raise EntryNotFound(f"id {id_or_prefix!r} is ambiguous: {', '.join(m.id for m in matches[:5])}")

    def get(self, entry_id: str) -> MemoryEntry | None:
        try:
            return self.resolve(entry_id)
        except EntryNotFound:
            return None

    def list_entries(
        self,
        *,
        kinds: Iterable[str] | None = None,
        statuses: Iterable[str] | None = ("active", "pending"),
        scope_path: str | None = None,
        since: datetime | None = None,
    ) -> list[MemoryEntry]:
        """Entries matching the filters: pinned first, then newest first."""
        kind_set = set(kinds) if kinds else None
        status_set = set(statuses) if statuses else None
        found = [
            e
            for e in self.entries()
            if (kind_set is None or e.kind in kind_set)
            and (status_set is None or e.status in status_set)
            and (scope_path is None or scope_matches(e.scope, scope_path))
            and (since is None or e.created_at >= since)
        ]
        return sorted(found, key=lambda e: (not e.pinned, -e.created_at.timestamp(), e.id))

    def find(self, query: str, filters: Filters | None = None, *, limit: int = 10) -> SearchResult:
        """BM25 over the read snapshot (no database on this path), statistics over every entry like the SQL;
        fused with the vectors of a model embedder when vectors are on (``hybrid``)."""
        filters = filters or Filters()
        table = self.load().entries
        if self.hybrid_on():
            return self._hybrid_find(query, filters, limit)
        terms = tokens(query)
        top: int | None = max(limit * 4, 40)  # most entries pass the filters; a full sort only when too few do
        while True:
            ranked = self._index().rank(terms, top)
            hits: list[tuple[MemoryEntry, float]] = []
            for entry_id, score in ranked:
                found = table.get(entry_id)
                if found is not None and _passes(found[0], filters):
                    hits.append((found[0], score))
                    if len(hits) >= limit:
                        break
            if len(hits) >= limit or top is None or len(ranked) < top:
                return SearchResult(hits, "catalog")
            top = None

    # -- vectors (issue 23, item 3) ---------------------------------------------------------------------

    @property
    def embedder(self) -> Any:
        """The configured embedder (``vector.embedder_from_name``), loaded once; tests may set their own."""
        if self._embedder is None:
            from .vector import embedder_from_name

            self._embedder = embedder_from_name(self.config.embedder)
        return self._embedder

    @embedder.setter
    def embedder(self, embedder: Any) -> None:
        self._embedder, self._embed_cache, self._vector_search = embedder, None, None

    @property
    def embed_cache(self) -> Any:
        """Vectors by content hash under ``.meta/.state/embeddings`` (``embed_cache``)."""
        if self._embed_cache is None:
            from .embed_cache import EmbeddingCache
            from .layout import STATE_DIR

            self._embed_cache = EmbeddingCache(self.root / STATE_DIR, self.embedder)
        return self._embed_cache

    def hybrid_on(self) -> bool:
        """Whether search fuses vectors with BM25: vectors on and the embedder a model (a lexical embedder's
        cosine to a few words of query repeats BM25 with less precision: ``is_lexical``)."""
        if not self.config.vector_enabled:
            return False
        from .vector import VectorUnavailable, is_lexical

        try:
            return not is_lexical(self.embedder)
        except VectorUnavailable as exc:
            log.warning("vectors unavailable, searching by BM25 alone: %s", exc)
            return False

    def vector_items(self, entries: Iterable[MemoryEntry] | None = None) -> list[tuple[str, str]]:
        """(id, embedded text) of ``entries`` (default: the active ones)."""
        from .vector import entry_text

        chosen = [e for e in self.entries() if e.status == "active"] if entries is None else list(entries)
        return [(e.id, entry_text(e)) for e in chosen]

    def vector_search(self, query: str, *, limit: int = 100) -> list[tuple[str, float]]:
        """(id, cosine) of the active entries nearest to ``query``, from the embedding cache."""
        if self._vector_search is None:
            from .hybrid import VectorSearch

            self._vector_search = VectorSearch(self.embed_cache)
        loaded = self.load()
        stamp = (id(loaded), len(loaded.entries), self._writes)
        if self._vector_items is None or self._vector_items[0] != stamp:  # texts of 10,000 entries: once
            self._vector_items = (stamp, self.vector_items())
        result: list[tuple[str, float]] = self._vector_search.search(query, self._vector_items[1], limit)
        return result

    def _hybrid_find(self, query: str, filters: Filters, limit: int) -> SearchResult:
        from .hybrid import DEPTH, hybrid_rank

        table = self.load().entries
        wanted = set(filters.statuses or ()) if filters.statuses else None
        if wanted is not None and not wanted <= {"active"}:
            lexical = self._index().rank(tokens(query), None)  # other statuses: vectors cover active ones only
        else:
            lexical = self._index().rank(tokens(query), max(DEPTH, limit * 4))
        semantic = self.vector_search(query, limit=max(DEPTH, limit * 4))

        def keep(entry_id: str) -> bool:
            found = table.get(entry_id)
            return found is not None and _passes(found[0], filters)

        fused = hybrid_rank(lexical, semantic, keep=keep)
        return SearchResult([(table[i][0], s) for i, s in fused[:limit]], "hybrid")

    def quick_find(self, query: str, filters: Filters | None = None, *, limit: int = 10) -> SearchResult | None:
        """``find`` over the hook's read snapshot when the store has one that describes its files (a large
        store): only the query's postings and the top entries are read, never every entry (issue 23: a fresh
        ``ctx mem search`` at 50,000 memories costs what it costs at 50). None: ask ``find``."""
        filters = filters or Filters()
        if self._loaded is not None or tuple(filters.statuses or ()) != ("active",) or self.hybrid_on():
            return None
        from . import snapshot

        snap = snapshot.open_for_read(str(self.index_dir), str(self.memory_dir))
        if snap is None:
            return None
        try:
            top = max(limit * 4, 40)
            while True:
                found = snap.search(tokens(query), top)
                hits: list[tuple[MemoryEntry, float]] = []
                seen: set[str] = set()
                for data, score in found:
                    try:
                        entry = convert(MemoryEntry, data, where="the read snapshot")
                    except (ContractError, UnsupportedSchemaVersion):
                        continue
                    if entry.id in seen or not _passes(entry, filters):
                        continue  # a copied file (the same id twice) is one hit
                    seen.add(entry.id)
                    hits.append((entry, score))
                    if len(hits) >= limit:
                        break
                if len(hits) >= limit or len(found) < top:
                    return SearchResult(hits, "snapshot")
                top *= 4
        finally:
            snap.close()

    def quick_resolve(self, id_or_suffix: str) -> tuple[MemoryEntry, Path] | None:
        """The entry whose id ends with ``id_or_suffix`` (6 characters or more: the file name carries the id's
        last 6), read from its file alone, without loading the store; None when that cannot decide."""
        wanted = id_or_suffix.strip().upper()
        if len(wanted) < 6 or self._loaded is not None:
            return None
        tail = f"-{wanted[-6:].lower()}.md"
        try:
            names = [e.name for e in os.scandir(self.memory_dir) if e.name.endswith(tail)]
        except OSError:
            return None
        from .catalog import parse_file

        matches: list[tuple[MemoryEntry, Path]] = []
        for name in names:
            path = self.memory_dir / name
            try:
                data = parse_file(str(path), name).get("entry")
                entry = convert(MemoryEntry, data, where=str(path)) if isinstance(data, dict) else None
            except (OSError, ContractError, UnsupportedSchemaVersion):
                return None  # an unreadable candidate: the full path reports it
            if entry is not None and entry.id.endswith(wanted):
                matches.append((entry, path))
        ids = {e.id for e, _ in matches}
        return matches[0] if len(ids) == 1 else None

    def _index(self) -> bm25.Postings:
        if self._postings is None:
            postings = bm25.Postings()
            table = self.load().entries
            for record in self.catalog.records.values():
                entry, terms, length = record.get("entry"), record.get("terms"), record.get("length")
                if isinstance(entry, dict) and isinstance(terms, dict) and isinstance(length, (int, float)):
                    entry_id = str(entry.get("id"))
                    if entry_id in table:
                        postings.add(entry_id, terms, float(length))
            self._postings = postings
        return self._postings

    def search(self, query: str, *, limit: int = 10) -> list[MemoryEntry]:
        """``MemoryRepository.search``: active entries for ``query``, best first."""
        return [entry for entry, _ in self.find(query, limit=limit).hits]

    def rebuild_index(self, *, lock_timeout: float = 2.0) -> bool:
        """Re-read every file, then rebuild the DuckDB index (and the vector table when vectors are on)."""
        try:
            self.sync_snapshot()  # every file re-read; the hook's read snapshot in step too
        except LockBusy:  # a long write holds the lock: index what the files say now
            ensure_meta(str(self.root))
            self._full_check()
            self.catalog.save()
        loaded = self.load()
        paths = {i: str(p.relative_to(self.root)) for i, (_, p) in loaded.entries.items()}
        done = self.index.rebuild([e for e, _ in loaded.entries.values()], paths, lock_timeout=lock_timeout)
        if done and self.config.vector_enabled:
            self.warm_vectors()
        return done

    def warm_vectors(self, *, lance: bool = True) -> int:
        """Embed what the cache lacks of the active entries (only new texts are computed), drop dead vectors
        when they are most of the file, and rewrite LanceDB's table when the ``vector`` extra is installed (for
        ``ctx mem search --vector``); returns the number of texts embedded now."""
        import importlib.util

        items = self.vector_items()
        cache = self.embed_cache
        before = cache.computed
        cache.raw([t for _, t in items])
        cache.compact([t for _, t in items])
        if lance and importlib.util.find_spec("lancedb") is not None:
            from .vector import VectorTable

            VectorTable(self.index_dir / "memory.lance", self.embedder, cache).sync(self.entries())
        return int(cache.computed - before)

    # -- writing ---------------------------------------------------------------------------------------

    @contextmanager
    def _writing(self, *, full_check: bool = False) -> Iterator[None]:
        """One writer of the memory files at a time; everything read inside is read under the lock."""
        ensure_meta(str(self.root))
        ensure_dir(self.index_dir)  # 0700; a symlinked .meta/index is refused (UnsafePath)
        # Writers queue: a put waits its turn for up to WRITE_WAIT_S (8 writers x 200 puts all land); only a
        # holder that never lets go turns a writer away (LockBusy; the CLI says so in one line, exit 4).
        with write_turn.locked(str(self.index_dir)) as unfinished:
            if full_check or not self._swept or unfinished:
                self._sweep_temp()  # under the lock: no live writer of this store is between write and rename
            generation = self._generation()
            # Every store write bumps the generation under this lock: when it is the one this process left,
            # no other writer came in between and the catalog in memory is current, unless the directory
            # changed outside the store (a new directory time; edits in place are what the periodic full
            # check of the catalog is for).
            if full_check:
                self._full_check()
            elif (
                self._loaded is None
                or generation != self._known_generation
                or self.catalog.dir_mtime_ns != _mtime_ns(self.memory_dir)
            ):
                self.load(refresh=True)
            self._known_generation = generation
            self._open_snapshot(generation)
            try:
                yield
            finally:
                if self._dirty_generation:
                    self._known_generation = self._bump_generation()
                    self._dirty_generation = False
                self._close_snapshot()

    def _sweep_temp(self, *, memory: bool = True) -> None:
        """Remove the temporary files a killed writer left (``write_turn.sweep_temp``): in the memory directory
        and in the index directory (readers save the catalog there without this lock). Once a process, and on
        every full check (``ctx mem rebuild``). ``memory=False``: the index directory only (``write_marker``)."""
        self._swept = True
        dirs = [str(self.memory_dir), str(self.index_dir)] if memory else [str(self.index_dir)]
        write_turn.sweep_temp(dirs)

    def _open_snapshot(self, generation: str) -> None:
        """Start this write's transaction on the hook's read snapshot, brought in step first if it is not.

        The connection stays open between writes: closing the last one checkpoints the WAL (~1 ms)."""
        writer = self._snapshot_writer
        if writer is not None and not writer.current():
            writer.close()
            writer = self._snapshot_writer = None
        if writer is None:
            if not snapshot_wanted(str(self.index_dir), self.catalog):
                return
            try:
                writer = SnapshotWriter(str(self.index_dir), str(self.memory_dir))
            except (sqlite3.Error, OSError) as exc:
                log.warning("memory snapshot not opened (the hook reads the catalog meanwhile): %s", exc)
                return
            self._snapshot_writer = writer
        try:
            writer.begin()
            if self._snapshot_stale or not writer.in_step(generation, self.catalog):
                # A few files behind: caught up here. Far behind (a first build, a pull, a new format): the
                # detached sync catches up in steps, never holding the write lock for seconds; this write
                # leaves the snapshot alone, and the hook reads the catalog until it is in step.
                limit = SNAPSHOT_BULK if self._sync_steps else None
                if not self._sync_steps:
                    changed, removed = writer.behind(self.catalog)
                    if len(changed) + len(removed) > SNAPSHOT_BULK:
                        request_sync(str(self.root), str(self.index_dir))
                        return
                if not writer.sync(self.catalog, generation, limit=limit):
                    self._sync_more = True
                    return  # rows of one step committed; the recorded state still says "behind"
            self._snapshot_stale = False
        except sqlite3.Error as exc:
            log.warning("memory snapshot not synced (the hook reads the catalog meanwhile): %s", exc)
            self._drop_snapshot_writer()
            return
        self._snapshot = writer

    def _note_snapshot(self, name: str) -> None:
        if self._snapshot is None:
            return
        try:
            self._snapshot.note(self.catalog, name)
        except sqlite3.Error as exc:
            # Nothing of this write is committed, so the snapshot's directory time stays the old one and no
            # reader trusts it without listing; the next write syncs it.
            log.warning("memory snapshot not updated for %s: %s", name, exc)
            self._drop_snapshot_writer()

    def _close_snapshot(self) -> None:
        writer, self._snapshot = self._snapshot, None
        if writer is None:
            return
        try:
            writer.mark(self.catalog, self._known_generation or "")
        except sqlite3.Error as exc:
            log.warning("memory snapshot not committed (the next write syncs it): %s", exc)
            self._drop_snapshot_writer()

    def _drop_snapshot_writer(self) -> None:
        writer, self._snapshot, self._snapshot_writer = self._snapshot_writer, None, None
        if writer is not None:
            with contextlib.suppress(sqlite3.Error):
                writer.abort()
            writer.close()

    def sync_snapshot(self) -> None:
        """Re-check every file (edits in place too) and bring the hook's read snapshot and the catalog in step.

        What the inject hook starts, detached, when it finds the snapshot behind the files."""
        self._sync_steps = True
        try:
            full_check = True
            while True:
                self._sync_more = False
                with self._writing(full_check=full_check):  # the write lock for one step at a time
                    pass
                full_check = False
                if not self._sync_more:
                    break
        finally:
            self._sync_steps = False
        self.save_catalog()

    def _generation(self) -> str:
        return write_turn.generation(str(self.index_dir))

    def _bump_generation(self) -> str:
        return write_turn.bump_generation(str(self.index_dir))

    def _save(self, entry: MemoryEntry, *, vouch: bool | None = None) -> Path:
        """Write one entry's file. Text this process writes (a new entry, or new text for an existing one) is
        vouched for on this machine (``trust``); a change of status alone (superseded, folded, pinned,
        archived) is not, so an entry that came through git stays held back. ``vouch=True``: a review
        accepted the entry as it is."""
        self._writes += 1  # what vector_search keeps of the entries' texts is stale now
        # A name derived from the entry (title, id) stays a file directly under .meta/memory/ (confined).
        path = self.path_of(entry.id) or Path(confined(str(self.memory_dir), file_name(entry)))
        # Durability: exactly one fsync, of the file's data before its rename. Without it, a power loss
        # can leave a renamed file empty or torn (delayed allocation on ext4 and XFS; ext4's rename-over
        # heuristic does not cover a new name), i.e. not atomic. The directory is not fsynced: that
        # would only make the newest name itself survive a power loss; losing the very last write is
        # accepted (git's default too), a torn one never is. Everything derived (catalog, read snapshot,
        # generation) is written without fsync: it is rebuilt from these files.
        atomic_write(path, render_entry(entry), mode=COMMITTED_FILE_MODE)  # committed: 0644, as git checks it out
        self.catalog.note_written(path.name)
        self._note_snapshot(path.name)
        assert self._loaded is not None
        previous = self._loaded.entries.get(entry.id)
        if vouch is None:
            vouch = previous is None or _shown(previous[0]) != _shown(entry)
        if vouch:
            self._vouch([self.catalog.records[path.name].get("entry")])
        if previous is not None:
            self._buckets.get((previous[0].kind, tuple(sorted(previous[0].scope))), set()).discard(entry.id)
        if entry.status == "active":
            self._buckets.setdefault((entry.kind, tuple(sorted(entry.scope))), set()).add(entry.id)
        self._loaded.entries[entry.id] = (entry, path)
        self._dirty_generation = True
        record = self.catalog.records[path.name]
        text_hash = _hash(entry)
        self._converted[(path.name, record.get("ino"), record.get("mtime_ns"))] = (entry, text_hash)
        self._hashes[text_hash] = entry.id
        self._text_hash[entry.id] = text_hash
        if entry.content_hash:
            self._hashes[entry.content_hash] = entry.id
        terms, length = record.get("terms"), record.get("length")
        if self._postings is not None and isinstance(terms, dict) and isinstance(length, (int, float)):
            self._postings.add(entry.id, terms, float(length))
        return path

    def _vouch(self, entries: Iterable[object]) -> None:
        """Record these entries (catalog ``entry`` mappings) as written or accepted on this machine."""
        hashes = [trust.entry_hash(e) for e in entries if isinstance(e, dict)]
        try:
            # A quick write knows only some entries: the trust file is compacted by a full write.
            trust.record_hashes(self.root, hashes, live=None if self._partial else self._live_hashes)
        except (OSError, LockBusy) as exc:  # the memory is written; only its injection waits for a review
            log.warning("could not record the memory as written here (%s): `ctx mem review` accepts it", exc)

    def _live_hashes(self) -> list[str]:
        entries = (r.get("entry") for r in self.catalog.records.values())
        return [trust.entry_hash(e) for e in entries if isinstance(e, dict)]

    def trusted(self, entry: MemoryEntry, verdict: trust.Verdict | None = None) -> bool:
        """Whether injection may show this entry (written or accepted here, or the repository trusted)."""
        return (verdict or trust.Verdict(self.root)).entry_trusted(trust_view(entry))

    def held_back(self) -> list[MemoryEntry]:
        """Active entries that came through git and are not injected until reviewed or the repository trusted."""
        verdict = trust.Verdict(self.root)
        if verdict.repository_trusted:
            return []
        return [e for e in self.list_entries(statuses=["active"]) if not self.trusted(e, verdict)]

    def vouch(self, id_or_prefix: str) -> MemoryEntry:
        """Accept an entry that came through git, as it is now: injection shows it from now on (until its text
        changes). Nothing in the repository changes."""
        entry = self.resolve(id_or_prefix)
        self._vouch([trust_view(entry)])
        return entry

    def _key(self, entry: MemoryEntry) -> str:
        """The cache key of an entry's text: its stored hash, else the one computed when it was loaded
        (entries written by hand or by older versions have none; hashing them again on every write cost
        ~4 ms a put at 10,000 memories)."""
        if entry.content_hash:
            return entry.content_hash
        known = self._text_hash.get(entry.id)
        loaded = self._loaded.entries.get(entry.id) if self._loaded is not None else None
        if known is not None and loaded is not None and loaded[0] is entry:
            return known
        return _hash(entry)

    def _shingles_of(self, entry: MemoryEntry) -> set[str]:
        key = self._key(entry)
        found = self._shingles.get(key)
        if found is None:
            found = self._shingles[key] = shingles(f"{entry.title} {entry.body}")
        return found

    def _features_of(self, entry: MemoryEntry) -> Features:
        key = self._key(entry)
        found = self._features.get(key)
        if found is None:
            found = self._features[key] = features(entry.title, entry.body)
        return found

    def _title_key(self, title: str) -> tuple[tuple[str, ...], frozenset[str]]:
        found = self._titles.get(title)
        if found is None:
            if len(self._titles) >= 1 << 16:
                self._titles.clear()
            found = self._titles[title] = (subject_of(title), frozenset(tokens(title)))
        return found

    def add(self, entry: MemoryEntry) -> MemoryEntry:
        """``MemoryRepository.add``: store ``entry`` (deduped, folded, superseding as it applies)."""
        return self.put(entry).entry

    def _prepared(self, entry: MemoryEntry) -> MemoryEntry:
        entry = _redacted(entry)
        entry = _with(entry, content_hash=_hash(entry))
        if not entry.ties:
            entry = self._tied(entry)
        if entry.status == "pending" and self.config.auto_accept:
            entry = _with(entry, status="active")
        return entry

    def put(self, entry: MemoryEntry, *, now: datetime | None = None) -> AddResult:
        """Write a new entry: exact duplicates return the existing entry; active entries settle (fold/supersede)."""
        stamp = now or utcnow()
        entry = self._prepared(entry)
        with self._writing():
            duplicate = self._hashes.get(entry.content_hash)
            if duplicate is not None and duplicate in self.load().entries:
                existing = self.load().entries[duplicate][0]
                if _shown(existing) == _shown(entry):  # the very text written here: it is this machine's too
                    self._vouch([trust_view(existing)])
                return AddResult(existing, "duplicate")
            result = AddResult(entry, "added")
            replaced: list[MemoryEntry] = []
            if entry.status == "active":
                result, replaced = self._settle(entry, stamp, result, on_conflict=self.config.on_conflict)
            self._save_all(result.entry, replaced)
        return result

    def quick_put(self, entry: MemoryEntry, *, now: datetime | None = None) -> AddResult | None:
        """``put`` in a process that has not loaded the store, reading only what the write compares with from
        the read snapshot (issue 23: a fresh ``ctx mem add`` at 50,000 memories costs what it costs at 50).

        Exact duplicates are found by their text's hash (``hashes``); the entries a new one may fold into,
        supersede or conflict with are the active ones of its kind and scope (``bucket``), all of them when
        they are at most ``QUICK_BUCKET``, else those with its normalised title and the ``QUICK_TOP`` that
        share its rarest terms best (BM25). Only those are converted; the files are written, the snapshot's
        rows updated in the same transaction, the generation bumped; the catalog learns of the files from
        the directory's new time. None (nothing written): the snapshot cannot vouch for the store (none, not
        in step with the generation, files changed that it cannot fold, vectors on): ask ``put``."""
        if self._loaded is not None or self.config.vector_enabled:
            return None
        from . import snapshot

        index_dir, memory_dir = str(self.index_dir), str(self.memory_dir)
        if not (self.index_dir / snapshot.NAME).exists():
            return None
        stamp = now or utcnow()
        entry = self._prepared(entry)
        ensure_meta(str(self.root))
        ensure_dir(self.index_dir)
        result = self._quick_locked(entry, stamp)
        if result is not None and result.action != "duplicate":
            snapshot.settle_racy(index_dir, memory_dir)
        return result

    def _quick_locked(self, entry: MemoryEntry, stamp: datetime) -> AddResult | None:
        from . import snapshot

        index_dir, memory_dir = str(self.index_dir), str(self.memory_dir)
        with write_turn.locked(index_dir) as unfinished:
            if not self._swept or unfinished:
                # The memory directory is listed (50,000 names: ~0.1 s) only when the last writer died mid-write.
                self._sweep_temp(memory=unfinished)
            generation = self._generation()
            try:
                writer = SnapshotWriter(index_dir, memory_dir)
            except (sqlite3.Error, OSError):
                return None
            try:
                writer.begin()
                if not snapshot.writable_in_step(writer, generation):
                    return None
                return self._quick_settle(writer, entry, stamp, generation)
            except sqlite3.Error as exc:
                log.warning("quick write fell back to the full one: %s", exc)
                with contextlib.suppress(sqlite3.Error):
                    writer.abort()
                return None
            finally:
                writer.close()
                self._partial = False
                self._loaded = None
                self._catalog_read = False
                self._snapshot = None
                self.catalog = Catalog(memory_dir, index_dir)
                self._buckets = {}
                self._converted, self._hashes, self._text_hash = {}, {}, {}
                self._dirty_generation = False

    def _quick_settle(self, writer: SnapshotWriter, entry: MemoryEntry, stamp: datetime, generation: str) -> AddResult:
        from . import snapshot

        con = writer.con
        by_hash = con.execute("SELECT min(file) FROM hashes WHERE hash = ?", (entry.content_hash,)).fetchone()
        if by_hash is not None and by_hash[0] is not None:
            existing = self._quick_entry(str(by_hash[0]))
            if existing is not None:
                if _shown(existing) == _shown(entry):
                    self._vouch([trust_view(existing)])
                if writer.con.in_transaction:  # files a `git pull` brought were folded in: keep them
                    snapshot.mark_quick(writer, generation)
                return AddResult(existing, "duplicate")
        table: dict[str, tuple[MemoryEntry, Path]] = {}
        bucket = snapshot.bucket_of(entry.kind, list(entry.scope))
        from .catalog import index_terms

        terms, _ = index_terms(msgspec.to_builtins(entry))
        for name, data in snapshot.candidates(writer, bucket, entry.title, terms, most=QUICK_BUCKET, top=QUICK_TOP):
            try:
                old = convert(MemoryEntry, jsonlite_loads(data), where=name)
            except (ContractError, UnsupportedSchemaVersion, ValueError):
                continue
            if old.id not in table:  # a copied file (the same id twice): the first by name, as ``load``
                table[old.id] = (old, self.memory_dir / name)
        self._partial = True
        self._catalog_read = True
        self._loaded = LoadResult(table, [])
        self._buckets = {}
        for old, _ in table.values():
            if old.status == "active":
                self._buckets.setdefault((old.kind, tuple(sorted(old.scope))), set()).add(old.id)
        self._snapshot = writer
        result = AddResult(entry, "added")
        replaced: list[MemoryEntry] = []
        if entry.status == "active":
            result, replaced = self._settle(entry, stamp, result, on_conflict=self.config.on_conflict)
        for old in [*replaced, *([] if result.entry.id == entry.id else [result.entry])]:
            found = table.get(old.id)
            if found is not None and not snapshot.file_unchanged(writer, found[1].name):
                raise sqlite3.OperationalError(f"{found[1].name} changed in place since the snapshot: a full write")
        self._save_all(result.entry, replaced)
        if self._snapshot is None:  # a row could not be written: nothing committed, the next write syncs
            self._bump_generation()
            return result
        generation = self._bump_generation()
        snapshot.mark_quick(writer, generation)
        return result

    def _quick_entry(self, name: str) -> MemoryEntry | None:
        from .catalog import parse_file

        try:
            data = parse_file(str(self.memory_dir / name), name).get("entry")
            return convert(MemoryEntry, data, where=name) if isinstance(data, dict) else None
        except (OSError, ContractError, UnsupportedSchemaVersion):
            return None

    def _save_all(self, new: MemoryEntry, replaced: list[MemoryEntry], *, vouch: bool | None = None) -> None:
        """The new entry first, then the older ones it folds or supersedes: a crash in between leaves both
        active (the next write settles them), never an older entry pointing at a file that was not written."""
        self._save(new, vouch=vouch)
        for old in replaced:
            self._save(old)

    def _settle(
        self, new: MemoryEntry, now: datetime, result: AddResult, *, on_conflict: str
    ) -> tuple[AddResult, list[MemoryEntry]]:
        """Fold near-duplicates into ``new``, supersede older entries on the same subject and scope; returns
        the result and the older entries to save (after ``new``: ``_save_all``).

        An unpinned near-duplicate of a pinned entry folds into the pinned one (pins are never folded away);
        a likely conflict with a different title supersedes the older entry, or queues ``new`` for review.
        """
        scope = tuple(sorted(new.scope))
        history = list(new.history)
        pinned = new.pinned
        similar = self._vector_similarity(new)
        rules = settle_rules.Rules(
            new,
            fold_threshold=self.config.fold_threshold,
            shingles_of=self._shingles_of,
            features_of=self._features_of,
            title_key=self._title_key,
            normal_title=_normal_title,
            vector_near=(lambda old: similar.get(old.id, 0.0) >= self.vector_fold_threshold()) if similar else None,
        )
        replaced: list[MemoryEntry] = []
        table = self.load().entries
        for old_id in sorted(self._buckets.get((new.kind, scope), ())):
            old = table[old_id][0]
            if not settle_rules.comparable(new, old):
                continue
            how = rules.relation(old)
            if how == settle_rules.NEAR:
                if old.pinned and not new.pinned:
                    kept = _with(old, history=list(dict.fromkeys([*old.history, new.id])))
                    result.entry = _with(new, status="folded", folded_into=old.id, valid_until=now)
                    result.action = "folded"
                    result.folded = []
                    result.superseded = []
                    result.pinned_near_duplicates = [old.id]
                    return result, [kept]
                if old.pinned:
                    result.pinned_near_duplicates.append(old.id)  # two pinned entries: both stay
                    continue
                replaced.append(_with(old, status="folded", folded_into=new.id, valid_until=now))
                history += [old.id, *old.history]
                result.folded.append(old.id)
            elif how == settle_rules.SAME_SUBJECT:
                replaced.append(_with(old, status="superseded", superseded_by=new.id, valid_until=now))
                pinned = pinned or old.pinned  # a pin belongs to the subject, so the newer entry keeps it
                result.superseded.append(old.id)
            elif how == settle_rules.CONFLICT:
                result.conflicts.append(old.id)
                if on_conflict == "supersede":
                    replaced.append(_with(old, status="superseded", superseded_by=new.id, valid_until=now))
                    pinned = pinned or old.pinned
                    result.superseded.append(old.id)
            elif how == settle_rules.POSSIBLE:
                result.review.append(old.id)  # both stay; the newer one names it, for review and for ranking
        if result.conflicts and on_conflict == "review":
            tags = list(dict.fromkeys([*new.tags, *(f"conflicts-with:{i}" for i in result.conflicts)]))
            result.entry = _with(new, status="pending", tags=tags)
            result.action = "queued"
            result.folded, result.superseded, result.pinned_near_duplicates, result.review = [], [], [], []
            return result, []
        tags = new.tags
        if result.review:
            result.review = self._closest(rules.new_features, result.review)
            tags = list(dict.fromkeys([*new.tags, *(f"{MAY_REPLACE}{i}" for i in result.review)]))
        result.entry = _with(
            new, history=list(dict.fromkeys(history)), pinned=pinned, valid_from=new.valid_from or now, tags=tags
        )
        return result, replaced

    def _closest(self, new: Features, ids: list[str]) -> list[str]:
        """The ``MAX_REVIEW`` possible replacements whose titles share most with the new one (then the newest):
        a review item naming dozens of entries (titles that all open "__init__: Initialize") says nothing."""
        if len(ids) <= MAX_REVIEW:
            return ids
        table = self.load().entries

        def closeness(entry_id: str) -> tuple[float, float, str]:
            old = table[entry_id][0]
            terms = self._features_of(old).title_terms
            shared = len(terms & new.title_terms) / (len(terms | new.title_terms) or 1)
            return (-shared, -old.created_at.timestamp(), entry_id)

        return sorted(ids, key=closeness)[:MAX_REVIEW]

    def _vector_similarity(self, new: MemoryEntry) -> dict[str, float]:
        """Cosine of ``new`` to the active entries of its kind: only ``new`` is embedded, the rest come from the
        embedding cache (issue 23: a put re-embedded every active entry, 120-163 s at 200 memories)."""
        if not self.config.vector_enabled:
            return {}
        from .vector import VectorUnavailable, cosine, entry_text

        active = [e for e in self.entries() if e.status == "active" and e.kind == new.kind and e.id != new.id]
        texts = [entry_text(new)] + [entry_text(o) for o in active]
        try:
            if not active:
                self.embed_cache.raw(texts)  # cached now: the next put, search or rebuild finds it
                return {}
            try:
                matrix = self.embed_cache.matrix(texts)  # numpy: one product, not len(active) Python loops
            except ImportError:
                vectors = self.embed_cache.vectors(texts)
                return {o.id: cosine(vectors[0], v) for o, v in zip(active, vectors[1:], strict=True)}
        except VectorUnavailable as exc:
            log.warning("vectors unavailable, folding by shingles alone: %s", exc)
            return {}
        import numpy as np

        sims = np.einsum("ij,j->i", matrix[1:], matrix[0]).tolist()  # not BLAS: see hybrid.VectorSearch.search
        return {o.id: float(v) for o, v in zip(active, sims, strict=True)}

    def vector_fold_threshold(self) -> float:
        """The configured threshold, else the one calibrated for the embedder (``similarity.fold_threshold``)."""
        if self.config.vector_fold_threshold is not None:
            return self.config.vector_fold_threshold
        from .similarity import fold_threshold

        return fold_threshold(self.embedder.name)

    def _update(self, id_or_prefix: str, **changes: Any) -> MemoryEntry:
        with self._writing():
            entry = _with(self.resolve(id_or_prefix), **changes)
            self._save(entry)
        return entry

    def revise(self, id_or_prefix: str, *, title: str, body: str, tags: Sequence[str] | None = None) -> MemoryEntry:
        """Rewrite an entry's text in place (same id and file): for entries a tool keeps current, like digests."""
        with self._writing():
            entry = self.resolve(id_or_prefix)
            changed = _redacted(_with(entry, title=title.strip(), body=body.strip(), tags=list(tags or entry.tags)))
            changed = _with(changed, content_hash=_hash(changed))
            if _shown(changed) != _shown(entry):
                changed = self._tied(_with(changed, ties=[]))
            if changed != entry:
                self._save(changed)
        return changed

    # -- ties to the code (``ties``) ------------------------------------------------------------------

    @property
    def code_source(self) -> CodeTieSource | None:
        """What ties memories to symbols: set by the caller, else the code map's source core registered."""
        if self._code_source is _UNSET:
            from .ties import default_source

            self._code_source = default_source(str(self.root))
        return self._code_source  # type: ignore[return-value]

    @code_source.setter
    def code_source(self, source: CodeTieSource | None) -> None:
        self._code_source = source

    def _tied(self, entry: MemoryEntry) -> MemoryEntry:
        """``entry`` with the ties of the files (and symbols) it names, as they are now (best effort)."""
        from .ties import tie

        try:
            found = tie(str(self.root), entry, self.code_source)
        except (OSError, ValueError) as exc:
            log.warning("could not tie %s to the code: %s", entry.id, exc)
            return entry
        return _with(entry, ties=found) if found else entry

    def retie(self, id_or_prefix: str) -> MemoryEntry:
        """Tie an entry again to the files and symbols it names, as they are now (after a review)."""
        from .ties import full_check

        with self._writing():
            entry = self.resolve(id_or_prefix)
            # A tied file that moved (``git mv``) stays tied at its new place, whatever the text still says.
            moved = [p.to for p in full_check(str(self.root), entry, self.code_source) if p.to]
            changed = self._tied(_with(entry, ties=[], files=list(dict.fromkeys([*entry.files, *moved]))))
            if changed != entry:
                self._save(changed, vouch=False)
        return changed

    def review_ties(self, entries: Iterable[MemoryEntry] | None = None) -> dict[str, list[Any]]:
        """Entries (active and pending by default) whose ties no longer hold, and how (``ties.full_check``)."""
        from .ties import check, full_check, repository_files

        todo = [e for e in (entries if entries is not None else self.list_entries()) if e.ties]
        files: list[str] | None = None
        out: dict[str, list[Any]] = {}
        cache: dict[str, tuple[str, int] | None] = {}  # one read of a file many memories are tied to
        for entry in todo:
            if not check(str(self.root), entry.ties, cache):
                continue
            if files is None:
                files = repository_files(str(self.root))
            problems = full_check(str(self.root), entry, self.code_source, files=files)
            if problems:
                out[entry.id] = problems
        return out

    def pin(self, id_or_prefix: str) -> MemoryEntry:
        return self._update(id_or_prefix, pinned=True)

    def unpin(self, id_or_prefix: str) -> MemoryEntry:
        return self._update(id_or_prefix, pinned=False)

    def forget(self, id_or_prefix: str, reason: str, *, now: datetime | None = None) -> MemoryEntry:
        """Archive an entry with a reason; the file stays (git keeps the audit trail)."""
        if not reason.strip():
            raise InvalidTransition("forget needs a reason (it is kept in the entry for the audit trail)")
        return self._update(
            id_or_prefix,
            status="archived",
            archive_reason=redact(reason.strip()),
            valid_until=now or utcnow(),
            pinned=False,
        )

    def supersede(self, old_id: str, replacement: MemoryEntry | str, *, now: datetime | None = None) -> AddResult:
        """Mark ``old_id`` superseded by ``replacement`` (an existing entry's id, or a new entry to add).

        Everything is read and written under the write lock, so a concurrent ``pin`` is never lost.
        """
        stamp = now or utcnow()
        with self._writing():
            old = self.resolve(old_id)
            if isinstance(replacement, str):
                new = self.resolve(replacement)
                if new.id == old.id:
                    raise InvalidTransition("an entry cannot supersede itself")
            else:
                new = _redacted(replacement)
                new = _with(new, content_hash=_hash(new), valid_from=new.valid_from or stamp)
                if new.id == old.id:
                    raise InvalidTransition("an entry cannot supersede itself")
                duplicate_id = self._hashes.get(new.content_hash)
                if duplicate_id is not None and duplicate_id in self.load().entries:
                    new = self.load().entries[duplicate_id][0]
            old = self.resolve(old.id)  # re-read under the lock: a pin set meanwhile is seen here
            if old.pinned and not new.pinned:
                new = _with(new, pinned=True)
            self._save_all(new, [_with(old, status="superseded", superseded_by=new.id, valid_until=stamp)])
        return AddResult(new, "superseded", superseded=[old.id])

    def accept(self, id_or_prefix: str, *, now: datetime | None = None) -> AddResult:
        """Turn a pending candidate into an active entry (folding and superseding as a new entry would).

        An active entry queued for review as a possible replacement (``may-replace:ID`` tags) supersedes the
        entries it names that are still active, and leaves the queue."""
        stamp = now or utcnow()
        with self._writing():
            entry = self.resolve(id_or_prefix)
            if entry.status == "active" and may_replace(entry):
                return self._accept_replacement(entry, stamp)
            if entry.status != "pending":
                raise InvalidTransition(f"{entry.id} is {entry.status}, not pending: only candidates are reviewed")
            tags = [t for t in entry.tags if not t.startswith("conflicts-with:")]
            candidate = _with(entry, status="active", tags=tags)
            result, replaced = self._settle(candidate, stamp, AddResult(entry, "accepted"), on_conflict="supersede")
            if result.action != "folded":
                result.action = "accepted"
            self._save_all(result.entry, replaced, vouch=True)
        return result

    def _accept_replacement(self, entry: MemoryEntry, now: datetime) -> AddResult:
        olds = [self.resolve(i) for i in may_replace(entry) if i in self.load().entries]
        olds = [o for o in olds if o.status == "active"]
        pinned = entry.pinned or any(o.pinned for o in olds)
        kept = _with(entry, tags=[t for t in entry.tags if not t.startswith(MAY_REPLACE)], pinned=pinned)
        replaced = [_with(o, status="superseded", superseded_by=entry.id, valid_until=now) for o in olds]
        self._save_all(kept, replaced, vouch=True)  # reviewed: the replacement as it stands
        return AddResult(kept, "accepted", superseded=[o.id for o in olds])

    def reject(self, id_or_prefix: str, reason: str = "rejected in review") -> MemoryEntry:
        """Reject a pending candidate; for an active entry queued as a possible replacement, keep both
        entries and take it off the queue (the reason is not kept: nothing was rejected)."""
        with self._writing():  # read and written under the lock, as ``supersede``
            entry = self.resolve(id_or_prefix)
            if entry.status == "active" and may_replace(entry):
                kept = _with(entry, tags=[t for t in entry.tags if not t.startswith(MAY_REPLACE)])
                self._save(kept)
                return kept
        if entry.status != "pending":
            raise InvalidTransition(f"{entry.id} is {entry.status}, not pending: only candidates are reviewed")
        return self._update(entry.id, status="rejected", archive_reason=redact(reason.strip()))

    def record_use(self, entry_ids: Iterable[str]) -> None:
        """Count uses (injected, recalled) in ``.meta/.state/memory-usage.json`` (not in the committed files)."""
        from .usage import record_use

        record_use(self.root, entry_ids)


def _mtime_ns(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return -2  # as the catalog records a missing directory


def _passes(entry: MemoryEntry, filters: Filters) -> bool:
    if filters.kinds and entry.kind not in filters.kinds:
        return False
    if filters.statuses and entry.status not in filters.statuses:
        return False
    if filters.since and entry.created_at < filters.since:
        return False
    if filters.until and entry.created_at >= filters.until:
        return False
    return not (filters.scope_path and not scope_matches(entry.scope, filters.scope_path))
