# ruff: noqa: PTH110, PTH116, PTH118, PTH120
# os.path on the hook path: the inject hook reads the snapshot without importing pathlib.
"""The inject hook's read snapshot: SQLite (stdlib) with the active memories and their BM25 postings.

``.meta/index/memory-inject.sqlite`` holds, indexed, what an injection needs: the postings of every term,
the constants and the digests. Decoding the whole catalog costs ~0.3 s at 10,000 entries, building this
file from it 2-3 s: neither may happen on the hook path. So the store's writer keeps it in step at write
time, under the write lock: one file's rows per written file (put, supersede, fold, archive), in the
same moment as the catalog learns of it (``MemoryStore._save``). Changes made outside the store (a
``git pull``, a hand edit) are synced by a detached process, ``python -m ctxops_memory_store.snapshot
ROOT``, which the hook starts and never waits for; until it has run, the hook reads the catalog.

When the hook may trust it (``open_for_read``):
- the memory directory's time is the one the snapshot recorded, and was recorded well after that time
  (two changes inside one clock tick look like one: the catalog's "racy" rule); or
- otherwise, the directory's listing (names and inodes, no stat) is exactly the snapshot's files: every
  store write replaces a file (a new inode), so a file written, superseded or archived since shows here;
- or the listing differs by at most ``OVERLAY_MAX`` files (a `git pull` that brought a few memories): those
  are parsed on top of the snapshot and their old rows set aside, so the hook after a pull costs a few
  file reads, not the whole catalog (issue 23); the detached sync then brings the rows in step.
Stores of up to ``SMALL`` files are trusted only when a stat of every file (edits in place included) finds
the rows' inodes and times, as the catalog checks them; the few files that differ are parsed on top.
Derived data: delete it and the next write or sync rebuilds it.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import time
from collections.abc import Iterable, Sequence

from ctxops_contracts.shared import jsonlite
from ctxops_contracts.shared.confine import open_regular, refuse_symlink
from ctxops_contracts.shared.lazylog import get_logger

from .catalog import FULL_CHECK_AFTER_NS, RACY_NS, SMALL, Catalog

log = get_logger(__name__)

NAME = "memory-inject.sqlite"
WRITE_LOCK = "memory-write.lock"  # the store's write lock (``store.WRITE_LOCK``), in the index directory
SYNC_STARTED = "memory-inject.sync-started"
CLOCK_PROBE = "memory-clock.probe"  # stamped after a write: has the file system's clock moved past it?
SYNC_EVERY_S = 30.0  # at most one detached sync started per this many seconds
BULK = 500  # a writer catches up this many files itself; more are the detached sync's, in steps of this size
FORMAT = "6"  # 4: the session-5 stemmer changed every term; 5: the paths memories are tied to (``tied``);
# 6: what a write looks up instead of loading every entry (issue 23): ``hashes`` of every file's text, each
# document's ``bucket`` (kind and scope: what folds and supersedes together) and normalised title
CONSTANT_KINDS = ("decision", "constraint", "convention")
MIN_FILES = 200  # the writer keeps a snapshot for stores larger than this (``wanted``)
OVERLAY_MAX = 200  # files changed outside the store a reader parses itself on top of the snapshot
RECENT_CONSTANTS = 60  # non-pinned constants read besides the ones the prompt matches (newest first)

Record = dict[str, object]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS files (file TEXT PRIMARY KEY, ino INTEGER, mtime_ns INTEGER);
CREATE TABLE IF NOT EXISTS docs (
    doc INTEGER PRIMARY KEY, file TEXT UNIQUE, kind TEXT, pinned INTEGER, born REAL, length REAL, entry TEXT,
    bucket TEXT, title_norm TEXT);
CREATE TABLE IF NOT EXISTS postings (
    term TEXT, doc INTEGER, tf REAL, length REAL, PRIMARY KEY (term, doc)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS postings_doc ON postings (doc);
CREATE INDEX IF NOT EXISTS docs_kind ON docs (kind, born);
CREATE INDEX IF NOT EXISTS docs_pinned ON docs (pinned) WHERE pinned = 1;
CREATE TABLE IF NOT EXISTS tied (path TEXT, doc INTEGER, PRIMARY KEY (path, doc)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tied_doc ON tied (doc);
CREATE INDEX IF NOT EXISTS docs_bucket ON docs (bucket, title_norm);
CREATE TABLE IF NOT EXISTS hashes (hash TEXT, file TEXT, PRIMARY KEY (hash, file)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS hashes_file ON hashes (file);
"""


def bucket_of(kind: object, scope: object) -> str:
    """What folds and supersedes together: one kind, one scope (``MemoryStore._buckets``'s key)."""
    paths = sorted(str(s) for s in scope) if isinstance(scope, list) else []
    return "\x1f".join([str(kind), *paths])


def text_hashes(entry: Record) -> list[str]:
    """The hashes a write finds an entry's exact duplicates by: the stored one and the text's own
    (``MemoryStore._hashes``)."""
    from .similarity import content_hash

    found = []
    stored = entry.get("content_hash")
    if isinstance(stored, str) and stored:
        found.append(stored)
    kind, title, body, scope = entry.get("kind"), entry.get("title"), entry.get("body", ""), entry.get("scope", [])
    if isinstance(kind, str) and isinstance(title, str) and isinstance(body, str) and isinstance(scope, list):
        found.append(content_hash(kind, title, body, [str(s) for s in scope]))
    return found


_DROP = (
    "DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS docs; DROP TABLE IF EXISTS postings; "
    "DROP TABLE IF EXISTS meta; DROP TABLE IF EXISTS tied; DROP TABLE IF EXISTS hashes;"
)
MAX_TIED_LOOKUP = 200  # paths (files in play and their directories) one read looks up in ``tied``


RACY_FINE_NS = 50_000_000  # the racy window where the file system keeps sub-millisecond times (ext4, XFS, ...)


def _racy(mtime_ns: int) -> int:
    """How long after the directory's time a check must be to see every change since (the "racy git" rule).

    A file system with sub-millisecond times stamps with the kernel's coarse clock (a tick of 1-10 ms): a
    check 50 ms after the time saw everything before it. A time without sub-millisecond digits may come
    from a coarse file system (FAT: 2 s): the catalog's 2 s. So a reader after a write lists the directory
    once, not for the next 2 s (issue 23: at 50,000 files a listing costs tens of milliseconds)."""
    return min(RACY_NS, RACY_FINE_NS) if mtime_ns % 1_000_000 else RACY_NS


def _with_parents(path: str) -> list[str]:
    """``a/b/c.py`` -> ``a/b/c.py``, ``a/b``, ``a``: a memory tied to a directory is tied to what is in it."""
    pieces = path.strip("/").split("/")
    return ["/".join(pieces[:n]) for n in range(len(pieces), 0, -1)]


def path_for(index_dir: str) -> str:
    return os.path.join(index_dir, NAME)


def born(entry: Record) -> float:
    """When the entry became valid (``valid_from``, else ``created_at``) as a UNIX time; 0.0 when unknown."""
    from datetime import datetime  # the writer's need only: not imported on the hook's path

    for key in ("valid_from", "created_at"):
        value = entry.get(key)
        if isinstance(value, str) and value:
            try:
                return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
            except ValueError:
                continue
    return 0.0


# -- reading (the hook) ------------------------------------------------------------------------------


class Snapshot:
    """An open snapshot (read side). ``full_check_due``: in-place edits have not been looked for in
    ``FULL_CHECK_AFTER`` (the reader still answers; the caller starts a detached sync)."""

    def __init__(
        self,
        con: sqlite3.Connection,
        meta: dict[str, str],
        *,
        full_check_due: bool = False,
        overlay: dict[str, Record] | None = None,
        stale: set[str] | None = None,
    ) -> None:
        self.con = con
        self.n = int(meta.get("n", "0"))
        self.total = float(meta.get("total", "0"))
        self.full_check_due = full_check_due
        # Files changed outside the store since the snapshot was written (a `git pull`, a hand edit), when they
        # are few: parsed now (``overlay``, by name) and their rows set aside (``stale``: changed or removed).
        self.overlay = overlay or {}
        self.stale = stale or set()
        self.behind = bool(self.overlay or self.stale)  # a detached sync should bring the rows in step

    def close(self) -> None:
        self.con.close()

    def corpus(self) -> tuple[int, float]:
        return self.n, (self.total / self.n if self.n else 1.0)

    def records(
        self, terms: Sequence[str], top: int = 120, paths: Sequence[str] = ()
    ) -> tuple[list[Record], dict[str, int]]:
        """Catalog-like records and the query terms' document frequencies: the ``top`` documents by BM25
        (scored in SQL, postings of the query's terms only), the pinned and the newest constants, the
        newest digests, and the entries tied to ``paths`` (files in play) or to a directory above one.
        Ranking multiplies BM25 by at most ~2, so the final few are among the top 200."""
        from .bm25 import K1, B, idf

        unique = sorted(set(terms))
        doc_freq: dict[str, int] = {}
        wanted: set[int] = set()
        by_doc: dict[int, dict[str, float]] = {}
        if unique and self.n:
            marks = ",".join("?" * len(unique))
            doc_freq = {
                str(t): int(c)
                for t, c in self.con.execute(
                    f"SELECT term, count(*) FROM postings WHERE term IN ({marks}) GROUP BY term", unique
                )
            }
            weights = [(t, idf(self.n, c)) for t, c in doc_freq.items()]
            if weights:
                values = ",".join("(?, ?)" for _ in weights)
                avgdl = self.corpus()[1]
                # Postings are clustered by term and carry their document's length: a query reads the
                # contiguous postings of its terms and nothing else (digests have none: they are not ranked).
                # The term frequencies are gathered for the ``top`` documents only, by their (term, doc) keys:
                # for every matching document it was ~40% of a common query's CPU at 50,000 memories.
                sql = (
                    f"WITH q(term, w) AS (VALUES {values}), s AS ("
                    "SELECT p.doc AS doc, sum(q.w * p.tf * ? / (p.tf + ? * (1 - ? + ? * p.length / ?))) AS score "
                    "FROM q JOIN postings p ON p.term = q.term GROUP BY p.doc ORDER BY score DESC LIMIT ?) "
                    "SELECT s.doc, s.score, (SELECT json_group_object(p.term, p.tf) FROM postings p "
                    "WHERE p.doc = s.doc AND p.term IN (SELECT term FROM q)) FROM s"
                )
                params = [x for pair in weights for x in pair] + [K1 + 1, K1, B, B, avgdl, top]
                for doc, _, tfs in self.con.execute(sql, params):
                    wanted.add(int(doc))
                    by_doc[int(doc)] = {str(t): float(f) for t, f in jsonlite.loads(tfs).items()}
        rows = self.con.execute(
            "SELECT doc FROM docs WHERE pinned = 1 UNION "
            "SELECT doc FROM (SELECT doc FROM docs WHERE kind IN (?, ?, ?) ORDER BY born DESC LIMIT ?) UNION "
            "SELECT doc FROM (SELECT doc FROM docs WHERE kind = 'summary' ORDER BY born DESC LIMIT 20) UNION "
            # lessons from corrections are constants too (the caller keeps those tagged so): the newest ones
            "SELECT doc FROM (SELECT doc FROM docs WHERE kind = 'lesson' ORDER BY born DESC LIMIT 20)",
            (*CONSTANT_KINDS, RECENT_CONSTANTS),
        ).fetchall()
        wanted |= {int(r[0]) for r in rows}
        if paths:
            lookup = sorted({a for p in paths for a in _with_parents(p)})[:MAX_TIED_LOOKUP]
            marks = ",".join("?" * len(lookup))
            wanted |= {int(r[0]) for r in self.con.execute(f"SELECT doc FROM tied WHERE path IN ({marks})", lookup)}
        out: list[Record] = []
        ids = sorted(wanted)
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for doc, length, entry, name in self.con.execute(
                f"SELECT doc, length, entry, file FROM docs WHERE doc IN ({marks})", chunk
            ):
                if name in self.stale:
                    continue
                out.append({"entry": jsonlite.loads(entry), "terms": by_doc.get(int(doc), {}), "length": float(length)})
        for record in self._fresh():
            out.append(record)
            for term in _terms(record):
                if term in doc_freq:
                    doc_freq[term] += 1
        return out, doc_freq

    def _fresh(self) -> list[Record]:
        """The overlay's active entries (files changed outside the store since the rows were written)."""
        out = []
        for record in self.overlay.values():
            entry = record.get("entry")
            if isinstance(entry, dict) and entry.get("status") == "active":
                out.append(record)
        return out

    def search(self, terms: Sequence[str], top: int) -> list[tuple[Record, float]]:
        """The ``top`` active entries by BM25 for ``terms`` (scored in SQL over the query's postings; files
        changed outside the store scored here), best first: what ``ctx mem search`` reads at any store size."""
        from .bm25 import K1, B, idf

        unique = sorted(set(terms))
        if not unique or not (self.n or self.overlay):
            return []
        marks = ",".join("?" * len(unique))
        doc_freq = {
            str(t): int(c)
            for t, c in self.con.execute(
                f"SELECT term, count(*) FROM postings WHERE term IN ({marks}) GROUP BY term", unique
            )
        }
        fresh = self._fresh()
        for record in fresh:
            for term in set(unique) & set(_terms(record)):
                doc_freq[term] = doc_freq.get(term, 0) + 1
        n = self.n + len(fresh)
        weights = [(t, idf(n, c)) for t, c in doc_freq.items()]
        if not weights:
            return []
        avgdl = self.corpus()[1]
        values = ",".join("(?, ?)" for _ in weights)
        sql = (
            f"WITH q(term, w) AS (VALUES {values}), s AS ("
            "SELECT p.doc AS doc, sum(q.w * p.tf * ? / (p.tf + ? * (1 - ? + ? * p.length / ?))) AS score "
            "FROM q JOIN postings p ON p.term = q.term GROUP BY p.doc ORDER BY score DESC LIMIT ?) "
            "SELECT d.entry, s.score, d.file FROM s JOIN docs d ON d.doc = s.doc ORDER BY s.score DESC"
        )
        params = [x for pair in weights for x in pair] + [K1 + 1, K1, B, B, avgdl, top + len(self.stale)]
        found: list[tuple[Record, float]] = [
            (jsonlite.loads(entry), float(score))
            for entry, score, name in self.con.execute(sql, params)
            if name not in self.stale
        ]
        weight = dict(weights)
        for record in fresh:
            tfs = _terms(record)
            size = record.get("length")
            length = float(size) if isinstance(size, (int, float)) else 0.0
            score = sum(
                weight[t] * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / avgdl))
                for t, tf in tfs.items()
                if t in weight
            )
            entry = record.get("entry")
            if score > 0 and isinstance(entry, dict):
                found.append((entry, score))
        found.sort(key=lambda pair: -pair[1])
        return found[:top]


def _terms(record: Record) -> dict[str, float]:
    terms = record.get("terms")
    return {str(t): float(f) for t, f in terms.items()} if isinstance(terms, dict) else {}


def _listing(memory_dir: str) -> dict[str, int] | None:
    """Name -> inode of the memory files, as the catalog lists them (no stat: the inode is in the listing)."""
    try:
        with os.scandir(memory_dir) as it:
            return {e.name: e.inode() for e in it if e.name.endswith(".md") and not e.name.startswith(".")}
    except OSError:
        return None


def _listing_differences(
    con: sqlite3.Connection, memory_dir: str, *, by_time: bool
) -> tuple[list[str], set[str], int] | None:
    """The files new or replaced since the rows, the rows changed or gone, the number of files; None when the
    directory cannot be read.

    By inode alone (the listing, no stat: every store write replaces a file) unless ``by_time``: a checkout
    the rows never saw (``HEAD`` moved, or never recorded, so git cannot name its files) may write a file on
    the inode it just freed (ext4 and tmpfs reuse it at once), which only its time shows; then every file is
    stat'ed and compared by (inode, time), once, after which the rows' ``git_head`` lets git name the files."""
    if by_time:
        return _file_differences(con, memory_dir)
    listing = _listing(memory_dir)
    if listing is None:
        return None
    known = {str(f): int(i) for f, i in con.execute("SELECT file, ino FROM files")}
    changed = [n for n, ino in listing.items() if known.get(n) != ino]
    return changed, {n for n in known if listing.get(n) != known[n]}, len(listing)


def open_for_read(index_dir: str, memory_dir: str, *, fold: bool = True, small_ok: bool = False) -> Snapshot | None:
    """The snapshot when it describes the memory directory (see the module docstring), else None.

    Files changed outside the store (a `git pull`) are read on top of it and, with ``fold``, written into it
    at once when no writer holds the store (``_fold``: their rows only, a cost independent of the store's
    size), so the next reader trusts it again without a detached sync. When ``HEAD`` moved since the rows
    last matched the directory, the files are the ones git says the commits changed (``_git_named``): no
    listing (anything else changed by hand meanwhile waits for the periodic full check, as edits in place do)."""
    path = path_for(index_dir)
    if not os.path.exists(path):
        return None
    from . import git_changes

    # HEAD before the directory is looked at: a pull after this shows as a new HEAD to the next reader.
    head = git_changes.head(os.path.dirname(os.path.dirname(memory_dir)))  # ROOT/.meta/memory
    try:
        dir_mtime = os.stat(memory_dir).st_mtime_ns
        con = sqlite3.connect(f"file:{refuse_symlink(path)}?mode=ro", uri=True)  # SQLite follows links
    except (OSError, sqlite3.Error):
        return None
    try:
        meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
        if meta.get("format") != FORMAT or meta.get("memory_dir") != memory_dir:
            con.close()
            return None
        now = time.time_ns()
        if int(meta.get("files", "0")) <= SMALL:
            # A small store: every file is stat'ed (edits in place too), as the catalog does; ``small_ok``
            # (the hook, the CLI's fast path) reads the rows when every file's inode and time are its rows,
            # and parses on top of them the few files that are not (a `git pull`).
            found = _file_differences(con, memory_dir) if small_ok else None
            if found is None or len(found[0]) + len(found[1]) > OVERLAY_MAX:
                con.close()
                return None
            edited, gone, count = found
            if not edited and not gone:
                return Snapshot(con, meta)
            fresh = _parsed(memory_dir, edited)
            if fold and _fold(index_dir, memory_dir, meta, fresh, gone, state=(dir_mtime, now, count), head=head):
                con.close()
                return open_for_read(index_dir, memory_dir, fold=False, small_ok=True)
            return Snapshot(con, meta, overlay=fresh, stale=gone)
        built_mtime, checked = int(meta["dir_mtime_ns"]), int(meta["checked_ns"])
        overlay: dict[str, Record] = {}
        stale: set[str] = set()
        if built_mtime != dir_mtime or not _settled(meta, built_mtime, checked):
            named = _git_named(memory_dir, meta.get("git_head"), head)
            pulled = named if named and len(named) <= OVERLAY_MAX else None
            if pulled is not None:
                marks = ",".join("?" * len(pulled))
                known = dict(con.execute(f"SELECT file, ino FROM files WHERE file IN ({marks})", pulled).fetchall())
                changed = pulled
                stale = set(known)
                files = int(meta["files"])
            else:
                found = _listing_differences(con, memory_dir, by_time=named is None and _checkout_unseen(meta, head))
                if found is None:
                    con.close()
                    return None
                changed, stale, files = found
                if not changed and not stale:
                    if now - dir_mtime >= _racy(dir_mtime):
                        _note_checked(path, built_mtime, dir_mtime, now, head=head)
                    return Snapshot(con, meta, full_check_due=_due(meta, now))
                # A few files added, replaced or removed outside the store (a `git pull`): read just those, so
                # the hook never waits for the whole catalog; more than OVERLAY_MAX: the catalog path.
            if len(changed) + len(stale) > OVERLAY_MAX:
                con.close()
                return None
            overlay = _parsed(memory_dir, changed)
            if pulled is not None:
                files += len(overlay.keys() - known.keys()) - len(known.keys() - overlay.keys())
            state = (dir_mtime, now, files)
            if fold and _fold(index_dir, memory_dir, meta, overlay, stale, state=state, head=head):
                con.close()
                return open_for_read(index_dir, memory_dir, fold=False)
        elif head is not None and head != meta.get("git_head"):
            # The rows are the directory (its time is theirs) as HEAD is now: the base of the next pull's diff.
            _note_checked(path, built_mtime, dir_mtime, checked, head=head)
        return Snapshot(con, meta, full_check_due=_due(meta, now), overlay=overlay, stale=stale)
    except (sqlite3.Error, KeyError, ValueError):
        con.close()
        return None


def _parsed(memory_dir: str, names: Iterable[str]) -> dict[str, Record]:
    """The catalog records of these files; one gone (a pull removed it) or unreadable is left out (its rows
    are set aside as stale)."""
    from .catalog import parse_file

    out: dict[str, Record] = {}
    for name in names:
        try:
            out[name] = parse_file(os.path.join(memory_dir, name), name)
        except OSError:
            continue
    return out


def _checkout_unseen(meta: dict[str, str], head: str | None) -> bool:
    """Whether git may have written files the rows never saw: ``HEAD`` is not the commit they last matched,
    or none was recorded."""
    return head is not None and head != meta.get("git_head")


def _due(meta: dict[str, str], now: int) -> bool:
    return now - int(meta["full_check_ns"]) >= FULL_CHECK_AFTER_NS


def _git_named(memory_dir: str, recorded: str | None, head: str | None) -> list[str] | None:
    """The memory files a move of HEAD from ``recorded`` (the commit the rows last matched) changed, as git
    names them (none: the commits changed no memory, so something else changed the directory); None when git
    cannot say (no git, HEAD did not move or was never recorded, a commit unknown here): list the directory."""
    if not recorded or head is None or head == recorded:
        return None
    from . import git_changes

    return git_changes.changed(memory_dir, recorded, head)


def _file_differences(con: sqlite3.Connection, memory_dir: str) -> tuple[list[str], set[str], int] | None:
    """Of a (small) memory directory, by a stat of each file (at most ``SMALL``, a few milliseconds): the
    files new or changed (inode or time) since the rows, the rows changed or gone, the number of files;
    None when the directory cannot be read."""
    found: dict[str, tuple[int, int]] = {}
    try:
        with os.scandir(memory_dir) as it:
            for item in it:
                if item.name.endswith(".md") and not item.name.startswith("."):
                    stat = item.stat(follow_symlinks=False)
                    found[item.name] = (stat.st_ino, stat.st_mtime_ns)
    except OSError:
        return None
    known = {str(f): (int(i), int(m)) for f, i, m in con.execute("SELECT file, ino, mtime_ns FROM files")}
    changed = [n for n, v in found.items() if known.get(n) != v]
    return changed, {n for n in known if found.get(n) != known[n]}, len(found)


def _every_file_known(con: sqlite3.Connection, memory_dir: str) -> bool:
    """Whether the files of the (small) memory directory are exactly the rows' files, by inode and time."""
    differences = _file_differences(con, memory_dir)
    return differences is not None and not differences[0] and not differences[1]


def _fold(
    index_dir: str,
    memory_dir: str,
    seen: dict[str, str],
    overlay: dict[str, Record],
    stale: set[str],
    *,
    state: tuple[int, int, int],
    head: str | None = None,
) -> bool:
    """Write the rows of files changed outside the store (``overlay``; ``stale``: rows changed or gone) into
    the snapshot under the store's write lock, only if no writer holds it now and none wrote since ``seen``
    was read; record the directory as listed at ``state`` (its time, when listed, its file count). The
    generation stays: a writer's catalog learns of the files from the directory's new time (issue 23)."""
    from ctxops_contracts.shared.locks import LockBusy, file_lock

    dir_mtime, listed_ns, files = state
    try:
        with file_lock(os.path.join(index_dir, WRITE_LOCK), timeout=0, write_pid=True):
            writer = SnapshotWriter(index_dir, memory_dir)
            try:
                writer.begin()
                meta = writer.meta
                if any(meta.get(k) != seen.get(k) for k in ("format", "generation", "dir_mtime_ns", "memory_dir")):
                    return False  # a writer came in between: the rows are not the ones the listing was compared with
                with writer.con:
                    for name in sorted(stale - overlay.keys()):
                        writer._drop(name)
                    for name in sorted(overlay):
                        writer._put(name, overlay[name], replace=True)
                    meta.update({"dir_mtime_ns": str(dir_mtime), "checked_ns": str(listed_ns), "files": str(files)})
                    if head is not None:  # HEAD as it was before the files were looked at
                        meta["git_head"] = head
                    writer.con.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", list(meta.items()))
            finally:
                writer.close()
    except (LockBusy, OSError, sqlite3.Error, ValueError) as exc:
        log.debug("pulled memories not folded into the snapshot: %s", exc)
        return False
    return True


def settle_racy(index_dir: str, memory_dir: str) -> None:
    """After a write (the lock released): once the racy window has passed, record that the directory still
    has the time the write left, so the next reader trusts the rows without listing (O(files): ~0.1 s at
    50,000 on a busy machine). The window has passed when the file system's clock has moved past that time
    (``_clock_past``: a probe, usually at once); where that cannot be shown, after ``RACY_FINE_NS`` (only on a
    file system with fine times)."""
    path = path_for(index_dir)
    try:
        con = sqlite3.connect(f"file:{refuse_symlink(path)}?mode=ro", uri=True)
        try:
            row = con.execute("SELECT value FROM meta WHERE key = 'dir_mtime_ns'").fetchone()
        finally:
            con.close()
        recorded = int(row[0]) if row else -1
        window = _racy(recorded)
        if recorded < 0 or window > RACY_FINE_NS:
            return
        if _clock_past(index_dir, memory_dir, recorded):
            if os.stat(memory_dir).st_mtime_ns == recorded:  # nothing changed in the write's clock tick since
                _note_checked(path, recorded, recorded, time.time_ns(), settled=True)
            return
        wait = recorded + window - time.time_ns()
        if wait > 0:
            time.sleep(wait / 1e9)
        now = time.time_ns()
        if os.stat(memory_dir).st_mtime_ns == recorded:  # nothing changed in the write's clock tick since
            _note_checked(path, recorded, recorded, now)
    except (OSError, sqlite3.Error, ValueError) as exc:
        log.debug("racy window not settled: %s", exc)


def _clock_past(index_dir: str, memory_dir: str, mtime_ns: int) -> bool:
    """Whether the file system's clock has moved past ``mtime_ns`` (the directory's time a write left): a probe
    file in the index directory, on the same file system, stamped now, has a later time. A change to the
    memory directory after this gets a later time too, which is all the racy window waits for; the wait is
    one tick of the clock (1-10 ms), not ``RACY_FINE_NS``. Tries for at most ``RACY_FINE_NS``."""
    try:
        if os.stat(index_dir).st_dev != os.stat(memory_dir).st_dev:
            return False
        probe = os.path.join(index_dir, CLOCK_PROBE)
        deadline = time.monotonic_ns() + RACY_FINE_NS
        while True:
            fd = open_regular(probe, os.O_WRONLY | os.O_CREAT, 0o600)  # never through a planted symlink
            try:
                os.utime(fd)  # now, by the file system's clock (the one directory times come from)
                stamped = os.fstat(fd).st_mtime_ns
            finally:
                os.close(fd)
            if stamped > mtime_ns:
                return True
            if time.monotonic_ns() >= deadline:
                return False
            time.sleep(0.001)
    except OSError:
        return False


def _settled(meta: dict[str, str], mtime: int, checked: int) -> bool:
    """Whether the check that recorded the directory's time ``mtime`` came after the clock moved past it:
    ``checked`` late enough (the racy window), or a probe showed it (``settle_racy`` records ``settled``)."""
    return checked - mtime >= _racy(mtime) or meta.get("settled") == str(mtime)


def _note_checked(
    path: str, seen_mtime: str | int, dir_mtime: int, now: int, *, head: str | None = None, settled: bool = False
) -> None:
    """Record that the listing matched the snapshot at ``now`` (well after the directory's time), so the
    next reader trusts it without listing, with ``head``: the commit HEAD named before the files were looked
    at. Only if no writer changed it meanwhile; never waits for a lock."""
    try:
        con = sqlite3.connect(refuse_symlink(path), timeout=0)
        try:
            with con:
                row = con.execute("SELECT value FROM meta WHERE key = 'dir_mtime_ns'").fetchone()
                if row is None or int(row[0]) != int(seen_mtime):
                    return
                values = [("dir_mtime_ns", str(dir_mtime)), ("checked_ns", str(now))]
                if settled:  # the clock was shown past the directory's time (``_clock_past``)
                    values.append(("settled", str(dir_mtime)))
                if head is not None:
                    values.append(("git_head", head))
                con.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", values)
        finally:
            con.close()
    except (sqlite3.Error, ValueError, OSError) as exc:
        log.debug("snapshot check not recorded: %s", exc)


# -- writing (the store, under its write lock) -------------------------------------------------------


class SnapshotWriter:
    """The writer's side, used under the store's write lock. One store write (a put with its folds and
    supersedes, a pin, an archive) is one transaction: a reader sees all of it or none of it."""

    def __init__(self, index_dir: str, memory_dir: str) -> None:
        self.path = path_for(index_dir)
        self.memory_dir = memory_dir
        # A symlink a repository planted at the snapshot's name is refused (SQLite would write through it).
        con = sqlite3.connect(refuse_symlink(self.path), timeout=5.0)
        try:
            con.execute("PRAGMA journal_mode=WAL")
            # Derived data: a crash that damages it costs a rebuild from the files, never a memory; so
            # no fsync here (the memory file written before it is the durable part).
            con.execute("PRAGMA synchronous=OFF")
            try:
                row = con.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
            except sqlite3.OperationalError:  # a new file
                row = None
            if row is not None and row[0] != FORMAT:
                # Another format's tables may have other columns (CREATE TABLE IF NOT EXISTS keeps them, and
                # an index on a column they lack fails): start again from this format's schema.
                con.executescript(_DROP)
            con.executescript(_SCHEMA)
            self.ino = os.stat(self.path).st_ino
        except (sqlite3.Error, OSError):
            con.close()
            raise
        self.con = con
        self.meta: dict[str, str] = {}

    def current(self) -> bool:
        """Whether the file this connection writes is still the snapshot (not deleted or replaced)."""
        try:
            return os.stat(self.path).st_ino == self.ino
        except OSError:
            return False

    def begin(self) -> None:
        """Start one store write: read what the last writer (maybe another process) recorded."""
        self.meta = dict(self.con.execute("SELECT key, value FROM meta").fetchall())

    def abort(self) -> None:
        self.con.rollback()

    def close(self) -> None:
        self.con.close()

    def in_step(self, generation: str, catalog: Catalog) -> bool:
        """Whether the rows are those the last store write left, for the directory the catalog describes."""
        meta = self.meta
        return (
            meta.get("format") == FORMAT
            and meta.get("memory_dir") == self.memory_dir
            and meta.get("generation") == generation
            and meta.get("dir_mtime_ns") == str(catalog.dir_mtime_ns)
        )

    def behind(self, catalog: Catalog) -> tuple[list[str], list[str]]:
        """The files whose rows differ from ``catalog`` (changed or new) and the ones gone from it."""
        meta = self.meta
        if meta.get("format", FORMAT) != FORMAT or meta.get("memory_dir", self.memory_dir) != self.memory_dir:
            # Another format's tables may have other columns (CREATE TABLE IF NOT EXISTS keeps them): start
            # again from this format's schema. (No recorded format: a new file, or a build still in steps.)
            self.con.executescript(_DROP + _SCHEMA)
            self.meta = {}
        known = {str(f): (int(i), int(m)) for f, i, m in self.con.execute("SELECT file, ino, mtime_ns FROM files")}
        current = catalog.records
        changed = [n for n, r in current.items() if known.get(n) != (r.get("ino"), r.get("mtime_ns"))]
        return changed, [n for n in known if n not in current]

    def sync(self, catalog: Catalog, generation: str, *, limit: int | None = None) -> bool:
        """Bring the rows in step with ``catalog``, at most ``limit`` files at a time; True when in step
        (then committed with the directory's state), False when files remain (rows committed, the recorded
        state left as it was, so no reader trusts the snapshot yet)."""
        changed, removed = self.behind(catalog)
        todo = [(n, False) for n in removed] + [(n, True) for n in changed]
        done = limit is None or len(todo) <= limit
        with self.con:
            for name, present in todo if done else todo[:limit]:
                if present:
                    self._put(name, catalog.records[name], replace=True)
                else:
                    self._drop(name)
            if done:
                self._write_meta(catalog, generation, recount=True)
        return done

    def note(self, catalog: Catalog, name: str) -> None:
        """The one file ``name`` the store just wrote (already in ``catalog``); committed by ``mark``."""
        self._put(name, catalog.records[name], replace=True)

    def mark(self, catalog: Catalog, generation: str) -> None:
        """The store's write ended with ``generation``: commit it with the directory's state, so readers
        trust it and the next writer knows the rows current."""
        with self.con:
            self._write_meta(catalog, generation)

    def _drop(self, name: str) -> None:
        con = self.con
        row = con.execute("SELECT doc, kind, length FROM docs WHERE file = ?", (name,)).fetchone()
        if row is not None:
            con.execute("DELETE FROM postings WHERE doc = ?", (row[0],))
            con.execute("DELETE FROM tied WHERE doc = ?", (row[0],))
            con.execute("DELETE FROM docs WHERE doc = ?", (row[0],))
            if row[1] != "summary":
                self._count(-1, -float(row[2]))
        con.execute("DELETE FROM files WHERE file = ?", (name,))
        con.execute("DELETE FROM hashes WHERE file = ?", (name,))

    def _put(self, name: str, record: Record, *, replace: bool) -> None:
        from .similarity import normalize

        if replace:
            self._drop(name)
        con = self.con
        con.execute("INSERT INTO files VALUES (?, ?, ?)", (name, record.get("ino"), record.get("mtime_ns")))
        entry, terms, length = record.get("entry"), record.get("terms"), record.get("length")
        if isinstance(entry, dict):
            con.executemany("INSERT OR IGNORE INTO hashes VALUES (?, ?)", ((h, name) for h in text_hashes(entry)))
        if not isinstance(entry, dict) or entry.get("status") != "active":
            return  # superseded, folded, archived, pending, unreadable: a file, never a document
        if not isinstance(terms, dict) or not isinstance(length, (int, float)):
            return
        cursor = con.execute(
            "INSERT INTO docs (file, kind, pinned, born, length, entry, bucket, title_norm)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                name,
                entry.get("kind"),
                1 if entry.get("pinned") else 0,
                born(entry),
                float(length),
                jsonlite.dumps(entry, ensure_ascii=False),
                bucket_of(entry.get("kind"), entry.get("scope")),
                normalize(str(entry.get("title", ""))),
            ),
        )
        if entry.get("kind") == "summary":
            return  # digests are read newest first, never ranked by BM25 (as in the catalog path)
        doc, size = cursor.lastrowid, float(length)
        paths = {str(t.get("path")) for t in entry.get("ties") or [] if isinstance(t, dict) and t.get("path")}
        paths |= {str(f) for f in entry.get("files") or [] if isinstance(f, str) and f}
        con.executemany("INSERT OR IGNORE INTO tied VALUES (?, ?)", ((p, doc) for p in sorted(paths)))
        rows: Iterable[tuple[str, int | None, float, float]] = ((str(t), doc, float(f), size) for t, f in terms.items())
        con.executemany("INSERT INTO postings VALUES (?, ?, ?, ?)", rows)
        self._count(1, size)

    def _count(self, docs: int, length: float) -> None:
        self.meta["n"] = str(int(self.meta.get("n", "0")) + docs)
        self.meta["total"] = str(float(self.meta.get("total", "0")) + length)

    def _write_meta(self, catalog: Catalog, generation: str, *, recount: bool = False) -> None:
        con = self.con
        if recount:
            n, total = con.execute(
                "SELECT count(*), coalesce(sum(length), 0) FROM docs WHERE kind != 'summary'"
            ).fetchone()
            self.meta["n"], self.meta["total"] = str(n), str(float(total))
        self.meta.update(
            {
                "format": FORMAT,
                "memory_dir": self.memory_dir,
                "generation": generation,
                "dir_mtime_ns": str(catalog.dir_mtime_ns),
                "checked_ns": str(catalog.checked_ns),
                "full_check_ns": str(catalog.full_check_ns),
                "files": str(len(catalog.records)),
            }
        )
        con.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", list(self.meta.items()))


# -- a write without the whole store (``MemoryStore.quick_put``, under the write lock) ------------------


def writable_in_step(writer: SnapshotWriter, generation: str) -> bool:
    """Whether a quick write may take the snapshot's rows for the store: the last store write left them
    (``generation``) and the directory still holds exactly their files (in a store of at most ``SMALL``
    files, by inode and time of each, as the catalog checks them there); in a larger one, files changed
    outside the store (a `git pull`, at most ``OVERLAY_MAX``) are folded in first, in this transaction."""
    meta = writer.meta
    if meta.get("format") != FORMAT or meta.get("memory_dir") != writer.memory_dir:
        return False
    if meta.get("generation") != generation:
        return False
    if int(meta.get("files", "0")) <= SMALL:  # a small store: every file must be its rows (a stat of each)
        return _every_file_known(writer.con, writer.memory_dir)
    dir_mtime = os.stat(writer.memory_dir).st_mtime_ns
    if str(dir_mtime) == meta.get("dir_mtime_ns") and _settled(meta, dir_mtime, int(meta["checked_ns"])):
        return True
    from . import git_changes

    head = git_changes.head(os.path.dirname(os.path.dirname(writer.memory_dir)))  # ROOT/.meta/memory
    found = _listing_differences(writer.con, writer.memory_dir, by_time=_checkout_unseen(meta, head))
    if found is None:
        return False
    changed, stale, _ = found
    if not changed and not stale:
        return True
    if len(changed) + len(stale) > OVERLAY_MAX:
        return False
    from .catalog import parse_file

    for name in sorted(stale - set(changed)):
        writer._drop(name)
    for name in sorted(changed):
        writer._put(name, parse_file(os.path.join(writer.memory_dir, name), name), replace=True)
    return True


def candidates(
    writer: SnapshotWriter, bucket: str, title: str, terms: dict[str, float], *, most: int, top: int
) -> list[tuple[str, str]]:
    """(file, entry JSON) of the active entries a new one of ``bucket`` is compared with, by file name: all of
    them up to ``most``; past that, those with its normalised ``title`` and the ``top`` best by BM25 over its
    16 rarest ``terms`` (a near-duplicate shares them; a bucket of thousands is never read whole)."""
    from .similarity import normalize

    con = writer.con
    (count,) = con.execute("SELECT count(*) FROM docs WHERE bucket = ?", (bucket,)).fetchone()
    if count <= most:
        return [(str(f), str(e)) for f, e in con.execute("SELECT file, entry FROM docs WHERE bucket = ?", (bucket,))]
    rows = {
        str(f): str(e)
        for f, e in con.execute(
            "SELECT file, entry FROM docs WHERE bucket = ? AND title_norm = ?", (bucket, normalize(title))
        )
    }
    unique = sorted(terms)
    if unique:
        from .bm25 import K1, B, idf

        marks = ",".join("?" * len(unique))
        freq = dict(con.execute(f"SELECT term, count(*) FROM postings WHERE term IN ({marks}) GROUP BY term", unique))
        rare = sorted(freq, key=lambda t: (freq[t], t))[:16]
        n = max(int(writer.meta.get("n", "1")), 1)
        avgdl = float(writer.meta.get("total", "1")) / n
        weights = [(t, idf(n, int(freq[t]))) for t in rare]
        if weights:
            values = ",".join("(?, ?)" for _ in weights)
            sql = (
                f"WITH q(term, w) AS (VALUES {values}) "
                "SELECT d.file, d.entry, sum(q.w * p.tf * ? / (p.tf + ? * (1 - ? + ? * p.length / ?))) AS score "
                "FROM q JOIN postings p ON p.term = q.term JOIN docs d ON d.doc = p.doc WHERE d.bucket = ? "
                "GROUP BY p.doc ORDER BY score DESC LIMIT ?"
            )
            params = [x for pair in weights for x in pair] + [K1 + 1, K1, B, B, avgdl, bucket, top]
            rows.update({str(f): str(e) for f, e, _ in con.execute(sql, params)})
    return sorted(rows.items())


def file_unchanged(writer: SnapshotWriter, name: str) -> bool:
    """Whether the file is the one whose rows the snapshot holds (an edit in place since shows here)."""
    row = writer.con.execute("SELECT ino, mtime_ns FROM files WHERE file = ?", (name,)).fetchone()
    try:
        stat = os.lstat(os.path.join(writer.memory_dir, name))
    except OSError:
        return False
    return row is not None and (stat.st_ino, stat.st_mtime_ns) == (row[0], row[1])


def mark_quick(writer: SnapshotWriter, generation: str) -> None:
    """Commit a quick write's rows with the store's new generation and the directory as it is now."""
    meta = writer.meta
    (files,) = writer.con.execute("SELECT count(*) FROM files").fetchone()
    listed = time.time_ns()
    meta.update(
        {
            "generation": generation,
            "dir_mtime_ns": str(os.stat(writer.memory_dir).st_mtime_ns),
            "checked_ns": str(listed),
            "files": str(files),
        }
    )
    with writer.con:
        writer.con.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", list(meta.items()))


def wanted(index_dir: str, catalog: Catalog) -> bool:
    """Whether the writer keeps a snapshot for this store: one of more than ``MIN_FILES`` files (the CLI's
    fast path reads it past that; the hook past ``SMALL``), or one that already has it."""
    return len(catalog.records) > min(MIN_FILES, SMALL) or os.path.exists(path_for(index_dir))


# -- the detached sync -------------------------------------------------------------------------------


def request_sync(root: str, index_dir: str) -> bool:
    """Start one detached ``python -m ctxops_memory_store.snapshot ROOT`` unless one started lately.

    The caller (the hook) never waits for it: it answers from the catalog meanwhile."""
    from ctxops_contracts.shared.detach import start_module_at_most_every

    try:
        return start_module_at_most_every(
            os.path.join(index_dir, SYNC_STARTED), SYNC_EVERY_S, "ctxops_memory_store.snapshot", root
        )
    except OSError as exc:
        log.warning("snapshot sync not started: %s", exc)
        return False


def main(argv: list[str]) -> int:
    """Sync the snapshot of the repository at ``argv[0]`` under the store's write lock (quietly)."""
    from pathlib import Path

    from ctxops_contracts.shared.locks import LockBusy

    from .store import MemoryStore

    if len(argv) != 1:
        print("usage: python -m ctxops_memory_store.snapshot ROOT", file=sys.stderr)
        return 2
    try:
        MemoryStore(Path(argv[0])).sync_snapshot()
    except (OSError, sqlite3.Error, LockBusy) as exc:
        log.warning("snapshot sync failed: %s", exc)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
