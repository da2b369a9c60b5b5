"""The memory store: Markdown files are the truth; writes dedupe, fold, supersede; nothing is deleted."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
from ctxops_contracts import MemoryEntry, new_ulid
from ctxops_contracts.shared.locks import file_lock as lock_file

from . import bm25
from .config import MemoryConfig, load_config
from .entry_file import LoadResult, file_name, load_directory, render_entry, write_atomic
from .frontmatter import FrontMatterError
from .index import Filters, MemoryIndex, scope_matches
from .layout import INDEX_DIR, MEMORY_DIR
from .similarity import content_hash, jaccard, normalize, shingles
from .terms import tokens, weighted_terms

WRITE_LOCK = "memory-write.lock"


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
    action: str  # "added" | "duplicate" | "accepted" | "superseded"
    folded: list[str] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    pinned_near_duplicates: list[str] = field(default_factory=list)


@dataclass
class SearchResult:
    """Entries ranked for a query, and which engine ranked them (``duckdb``, or ``scan`` as the fallback)."""

    hits: list[tuple[MemoryEntry, float]]
    engine: str
    note: str | None = None


def utcnow() -> datetime:
    return datetime.now(UTC)


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
    return msgspec.convert(
        {
            "id": new_ulid(),
            "kind": kind,
            "title": title.strip(),
            "body": body.strip(),
            "scope": list(scope),
            "files": list(files),
            "tags": list(tags),
            "source": list(source),
            "created_at": stamp,
            "pinned": pinned,
            "status": status,
        },
        MemoryEntry,
    )


def _with(entry: MemoryEntry, **changes: Any) -> MemoryEntry:
    return msgspec.structs.replace(entry, **changes)


def _hash(entry: MemoryEntry) -> str:
    return content_hash(entry.kind, entry.title, entry.body, entry.scope)


class MemoryStore:
    """Memories of one repository: ``.meta/memory/*.md`` plus the derived index in ``.meta/index/``."""

    def __init__(self, root: Path, config: MemoryConfig | None = None) -> None:
        self.root = Path(root)
        self.memory_dir = self.root / MEMORY_DIR
        self.index_dir = self.root / INDEX_DIR
        self.config = config if config is not None else load_config(self.root)
        self.index = MemoryIndex(self.index_dir, self.memory_dir)
        self._loaded: LoadResult | None = None

    # -- reading ---------------------------------------------------------------------------------------

    def load(self, *, refresh: bool = False) -> LoadResult:
        if self._loaded is None or refresh:
            self._loaded = load_directory(self.memory_dir)
        return self._loaded

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
        ]
        return sorted(found, key=lambda e: (not e.pinned, -e.created_at.timestamp(), e.id))

    def find(self, query: str, filters: Filters | None = None, *, limit: int = 10) -> SearchResult:
        """BM25 ranking from the DuckDB index; a scan of the files when the index cannot answer."""
        filters = filters or Filters()
        table = self.load().entries
        note = None
        if not self.index.is_fresh() and not self.rebuild_index(lock_timeout=0.5):
            note = "index busy (another process is rebuilding it): ranked by scanning the memory files"
        ranked = self.index.search(query, filters, limit) if note is None else None
        if ranked is not None:
            hits = [(table[i][0], s) for i, s in ranked if i in table]
            return SearchResult(hits, "duckdb")
        return SearchResult(self._scan(query, filters, limit), "scan", note or "index unreadable: ranked by scanning")

    def search(self, query: str, *, limit: int = 10) -> list[MemoryEntry]:
        """``MemoryRepository.search``: active entries for ``query``, best first."""
        return [entry for entry, _ in self.find(query, limit=limit).hits]

    def _scan(self, query: str, filters: Filters, limit: int) -> list[tuple[MemoryEntry, float]]:
        entries = self.entries()
        documents = {e.id: weighted_terms(e.title, e.body, e.tags, e.scope) for e in entries}
        by_id = {e.id: e for e in entries}
        hits = []
        for entry_id, score in bm25.rank(documents, tokens(query)):
            entry = by_id[entry_id]
            if filters.kinds and entry.kind not in filters.kinds:
                continue
            if filters.statuses and entry.status not in filters.statuses:
                continue
            if filters.since and entry.created_at < filters.since:
                continue
            if filters.until and entry.created_at >= filters.until:
                continue
            if filters.scope_path and not scope_matches(entry.scope, filters.scope_path):
                continue
            hits.append((entry, score))
        return hits[:limit]

    def rebuild_index(self, *, lock_timeout: float = 2.0) -> bool:
        """Rebuild the DuckDB index (and the vector table when vectors are on) from the files."""
        loaded = self.load(refresh=True)
        paths = {i: str(p.relative_to(self.root)) for i, (_, p) in loaded.entries.items()}
        done = self.index.rebuild([e for e, _ in loaded.entries.values()], paths, lock_timeout=lock_timeout)
        if done and self.config.vector_enabled:
            from .vector import VectorTable

            VectorTable.for_store(self).sync(self.entries())
        return done

    # -- writing ---------------------------------------------------------------------------------------

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """One writer of the memory files at a time (two `ctx mem` commands, or the watcher and a command)."""
        self.index_dir.mkdir(parents=True, exist_ok=True)
        with lock_file(str(self.index_dir / WRITE_LOCK), timeout=10.0):
            self.load(refresh=True)
            yield

    def _save(self, entry: MemoryEntry) -> Path:
        path = self.path_of(entry.id) or self.memory_dir / file_name(entry)
        write_atomic(path, render_entry(entry))
        assert self._loaded is not None
        self._loaded.entries[entry.id] = (entry, path)
        return path

    def add(self, entry: MemoryEntry) -> MemoryEntry:
        """``MemoryRepository.add``: store ``entry`` (deduped, folded, superseding as it applies)."""
        return self.put(entry).entry

    def put(self, entry: MemoryEntry, *, now: datetime | None = None) -> AddResult:
        """Write a new entry: exact duplicates return the existing entry; active entries settle (fold/supersede)."""
        stamp = now or utcnow()
        entry = _with(entry, content_hash=_hash(entry))
        if entry.status == "pending" and self.config.auto_accept:
            entry = _with(entry, status="active")
        with self._writing():
            for existing in self.entries():
                if existing.content_hash == entry.content_hash or _hash(existing) == entry.content_hash:
                    return AddResult(existing, "duplicate")
            result = AddResult(entry, "added")
            if entry.status == "active":
                result = self._settle(entry, stamp, result)
            self._save(result.entry)
        return result

    def _settle(self, new: MemoryEntry, now: datetime, result: AddResult) -> AddResult:
        """Fold near-duplicates into ``new`` and supersede older entries on the same subject and scope."""
        new_shingles = shingles(f"{new.title} {new.body}")
        subject = (new.kind, normalize(new.title), tuple(sorted(new.scope)))
        history = list(new.history)
        pinned = new.pinned
        similar = self._vector_similarity(new)
        for old in self.entries():
            if old.id == new.id or old.status != "active" or old.kind != new.kind:
                continue
            if tuple(sorted(old.scope)) != subject[2]:
                continue  # entries about different parts of the code are never folded or superseded together
            near = jaccard(new_shingles, shingles(f"{old.title} {old.body}")) >= self.config.fold_threshold
            near = near or similar.get(old.id, 0.0) >= self.config.vector_fold_threshold
            if near:
                if old.pinned:
                    result.pinned_near_duplicates.append(old.id)  # pinned entries are never folded
                    continue
                self._save(_with(old, status="folded", folded_into=new.id, valid_until=now))
                history += [old.id, *old.history]
                result.folded.append(old.id)
            elif (old.kind, normalize(old.title), tuple(sorted(old.scope))) == subject:
                self._save(_with(old, status="superseded", superseded_by=new.id, valid_until=now))
                pinned = pinned or old.pinned  # a pin belongs to the subject, so the newer entry keeps it
                result.superseded.append(old.id)
        result.entry = _with(new, history=list(dict.fromkeys(history)), pinned=pinned, valid_from=new.valid_from or now)
        return result

    def _vector_similarity(self, new: MemoryEntry) -> dict[str, float]:
        if not self.config.vector_enabled:
            return {}
        from .vector import cosine_to_all, embedder_from_name

        embedder = embedder_from_name(self.config.embedder)
        active = [e for e in self.entries() if e.status == "active" and e.kind == new.kind and e.id != new.id]
        return cosine_to_all(embedder, new, active)

    def _update(self, id_or_prefix: str, **changes: Any) -> MemoryEntry:
        with self._writing():
            entry = _with(self.resolve(id_or_prefix), **changes)
            self._save(entry)
        return entry

    def pin(self, id_or_prefix: str) -> MemoryEntry:
        return self._update(id_or_prefix, pinned=True)

    def unpin(self, id_or_prefix: str) -> MemoryEntry:
        return self._update(id_or_prefix, pinned=False)

    def forget(self, id_or_prefix: str, reason: str, *, now: datetime | None = None) -> MemoryEntry:
        """Archive an entry with a reason; the file stays (git keeps the audit trail)."""
        if not reason.strip():
            raise InvalidTransition("forget needs a reason (it is kept in the entry for the audit trail)")
        return self._update(
            id_or_prefix, status="archived", archive_reason=reason.strip(), valid_until=now or utcnow(), pinned=False
        )

    def supersede(self, old_id: str, replacement: MemoryEntry | str, *, now: datetime | None = None) -> AddResult:
        """Mark ``old_id`` superseded by ``replacement`` (an existing entry's id, or a new entry to add)."""
        stamp = now or utcnow()
        old = self.resolve(old_id)
        if isinstance(replacement, str):
            new = self.resolve(replacement)
        else:
            added = self.put(replacement, now=stamp)
            new = added.entry
        if new.id == old.id:
            raise InvalidTransition("an entry cannot supersede itself")
        with self._writing():
            self._save(_with(old, status="superseded", superseded_by=new.id, valid_until=stamp))
            if old.pinned and not new.pinned:
                new = _with(new, pinned=True)
                self._save(new)
        return AddResult(new, "superseded", superseded=[old.id])

    def accept(self, id_or_prefix: str, *, now: datetime | None = None) -> AddResult:
        """Turn a pending candidate into an active entry (folding and superseding as a new entry would)."""
        stamp = now or utcnow()
        with self._writing():
            entry = self.resolve(id_or_prefix)
            if entry.status != "pending":
                raise InvalidTransition(f"{entry.id} is {entry.status}, not pending: only candidates are reviewed")
            result = self._settle(_with(entry, status="active"), stamp, AddResult(entry, "accepted"))
            result.action = "accepted"
            self._save(result.entry)
        return result

    def reject(self, id_or_prefix: str, reason: str = "rejected in review") -> MemoryEntry:
        entry = self.resolve(id_or_prefix)
        if entry.status != "pending":
            raise InvalidTransition(f"{entry.id} is {entry.status}, not pending: only candidates are reviewed")
        return self._update(entry.id, status="rejected", archive_reason=reason)
