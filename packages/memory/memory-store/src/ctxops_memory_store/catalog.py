# ruff: noqa: PTH112, PTH116, PTH118
# os.path on the hook path: the inject hook reads the catalog without importing pathlib.
"""A read snapshot of the memory files: every entry parsed, with its BM25 terms, in one JSON file.

Parsing ten thousand Markdown files takes seconds, and stat-ing them takes ~100 ms on a busy machine,
so readers (the inject hook, searches) use ``.meta/index/memory-catalog.msgpack`` instead. It is derived:
delete it and it is rebuilt from the files.

Freshness without touching every file: every write through the store replaces a file with a rename, and
a rename changes the directory's modification time. The catalog records that time and trusts it when it
was taken well after the directory last changed (otherwise two writes inside one clock tick could look
like one, the "racy git" problem), and re-stats every file when it is older than ``FULL_CHECK_AFTER``
(an editor that rewrites a file in place leaves the directory's time alone). Only files whose size or
modification time changed are parsed again.

Plain values (``tomllib`` to parse, msgpack through msgspec, which contracts imports anyway, to store): the
hook reads it without building msgspec structs and without DuckDB.
"""

from __future__ import annotations

import os
import time
from datetime import date
from datetime import time as dtime

from ctxops_contracts.shared.confine import checked_dir, read_regular
from ctxops_contracts.shared.lazylog import get_logger

from .frontmatter import FrontMatterError, split
from .terms import weighted_terms

log = get_logger(__name__)

CATALOG_NAME = "memory-catalog.msgpack"
FORMAT = 3  # 3: the stemmer drops a final "e" and more (session 5); machine tags are not indexed
RACY_NS = 2_000_000_000  # a directory time this close to the check may hide a second write in the same tick
FULL_CHECK_AFTER_NS = 600 * 1_000_000_000
MAX_FILE_BYTES = 1_000_000  # a memory is a paragraph or two; a bigger file (or a 200 MB trap) is not read
MAX_CATALOG_BYTES = 64_000_000  # the stored snapshot of 10,000 entries is a few MB
SMALL = 2000  # up to this many files a stat of each costs a few milliseconds: always check them all

Record = dict[str, object]


def _jsonable(value: object) -> object:
    if isinstance(value, (date, dtime)):  # datetime is a date
        return value.isoformat()
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    return value


def parse_file(path: str, name: str) -> Record:
    """One file as a catalog record: the entry's fields as JSON values plus its BM25 terms, or its error.

    Only a regular file is read (a symlink, a FIFO or a device a repository committed raises
    ``UnsafePath``, an ``OSError``), and one larger than ``MAX_FILE_BYTES`` is an error record, unread.
    """
    stat = os.lstat(path)
    record: Record = {"file": name, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "ino": stat.st_ino}
    if stat.st_size > MAX_FILE_BYTES:
        record["error"] = [1, f"larger than {MAX_FILE_BYTES // 1_000_000} MB: not read"]
        return record
    try:
        text = read_regular(path, MAX_FILE_BYTES).decode("utf-8")
        data, body, _ = split(text, path)
    except UnicodeDecodeError as exc:
        record["error"] = [1, f"not UTF-8 text ({exc.reason})"]
        return record
    except FrontMatterError as exc:
        record["error"] = [exc.line, exc.message]
        return record
    entry = {key: _jsonable(value) for key, value in data.items()}
    entry["body"] = body
    record["entry"] = entry
    record["terms"], record["length"] = index_terms(entry)
    return record


def index_terms(entry: dict[str, object]) -> tuple[dict[str, float], float]:
    def strings(key: str) -> list[str]:
        value = entry.get(key)
        return [str(v) for v in value] if isinstance(value, list) else []

    return weighted_terms(str(entry.get("title", "")), str(entry.get("body", "")), strings("tags"), strings("scope"))


class Catalog:
    """The parsed memory directory of one repository, refreshed incrementally."""

    def __init__(self, memory_dir: str, index_dir: str) -> None:
        self.memory_dir = memory_dir
        self.path = os.path.join(index_dir, CATALOG_NAME)
        self.records: dict[str, Record] = {}  # by file name
        self.dir_mtime_ns = -1
        self.checked_ns = 0  # wall clock of the last listing
        self.full_check_ns = 0  # wall clock of the last stat of every file
        self.dirty = False

    # -- persistence -----------------------------------------------------------------------------

    def read(self) -> Catalog:
        """Load the stored snapshot (an unreadable or foreign one is ignored: it is derived)."""
        import msgspec

        try:
            data = msgspec.msgpack.decode(read_regular(self.path, MAX_CATALOG_BYTES))
            if data.get("format") != FORMAT or data.get("memory_dir") != self.memory_dir:
                return self
            self.records = {r["file"]: r for r in data["records"]}
            self.dir_mtime_ns = int(data["dir_mtime_ns"])
            self.checked_ns = int(data["checked_ns"])
            self.full_check_ns = int(data["full_check_ns"])
        except (OSError, ValueError, KeyError, TypeError, msgspec.DecodeError):
            self.records = {}
        return self

    def save(self) -> None:
        """Write the snapshot when it changed (best effort: a reader that cannot write still answers)."""
        if not self.dirty:
            return
        import msgspec
        from ctxops_contracts.shared.files import atomic_write

        data = {
            "format": FORMAT,
            "memory_dir": self.memory_dir,
            "dir_mtime_ns": self.dir_mtime_ns,
            "checked_ns": self.checked_ns,
            "full_check_ns": self.full_check_ns,
            "records": list(self.records.values()),
        }
        try:
            atomic_write(self.path, msgspec.msgpack.encode(data), fsync=False)
            self.dirty = False
        except OSError as exc:
            log.warning("could not write the memory catalog %s: %s", self.path, exc)

    # -- freshness -------------------------------------------------------------------------------

    def _dir_mtime(self) -> int:
        try:
            return os.stat(self.memory_dir).st_mtime_ns
        except OSError:
            return -2  # no directory: nothing to list

    def trusted(self, *, now_ns: int | None = None) -> bool:
        """Whether the snapshot still describes the directory without listing it."""
        now = now_ns or time.time_ns()
        if self.dir_mtime_ns != self._dir_mtime():
            return False
        if self.checked_ns - self.dir_mtime_ns < RACY_NS:
            return False
        return len(self.records) > SMALL and now - self.full_check_ns < FULL_CHECK_AFTER_NS

    def refresh(self, *, full: bool = False) -> bool:
        """Bring the snapshot up to date; returns whether anything changed."""
        if not full and self.trusted():
            return False
        started = time.time_ns()
        mtime = self._dir_mtime()
        stat_all = full or started - self.full_check_ns >= FULL_CHECK_AFTER_NS
        changed = False
        seen: set[str] = set()
        # A symlinked .meta/memory is refused (UnsafePath) rather than listed; a missing one lists nothing.
        exists = checked_dir(self.memory_dir)
        try:
            listing = [
                e
                for e in (os.scandir(self.memory_dir) if exists else ())
                if e.name.endswith(".md") and not e.name.startswith(".") and e.is_file(follow_symlinks=False)
            ]
        except OSError:
            listing = []
        for item in listing:
            name = item.name
            seen.add(name)
            old = self.records.get(name)
            # Every store write replaces the file (a new inode, known from the listing without a stat);
            # only the periodic full check stats files whose inode did not change (edited in place).
            if old is not None and old.get("ino") == item.inode() and not stat_all:
                continue
            try:
                stat = item.stat(follow_symlinks=False)
            except OSError:
                continue
            if (
                old is not None
                and old.get("ino") == stat.st_ino
                and old.get("size") == stat.st_size
                and old.get("mtime_ns") == stat.st_mtime_ns
            ):
                continue
            try:
                self.records[name] = parse_file(item.path, name)
            except OSError:
                continue
            changed = True
        for name in list(self.records):
            if name not in seen:
                del self.records[name]
                changed = True
        # Persist only news: changed files, or a directory time the snapshot has not recorded yet (so the
        # next reader can trust it once it is old enough). A full check that found nothing is not written.
        self.dirty = self.dirty or changed or mtime != self.dir_mtime_ns or self.checked_ns - mtime < RACY_NS
        self.dir_mtime_ns = mtime
        self.checked_ns = started
        if stat_all:
            self.full_check_ns = started
        return changed

    def note_written(self, name: str) -> None:
        """Record a file this process just wrote (under the store's write lock), without re-listing."""
        path = os.path.join(self.memory_dir, name)
        self.records[name] = parse_file(path, name)
        self.dir_mtime_ns = self._dir_mtime()
        self.checked_ns = time.time_ns()
        self.dirty = True

    def readable(self) -> list[Record]:
        """The records of readable files (``entry``, ``terms``, ``length``, ``file``)."""
        return [r for r in self.records.values() if isinstance(r.get("entry"), dict)]

    def errors(self) -> list[FrontMatterError]:
        out: list[FrontMatterError] = []
        for name, record in sorted(self.records.items()):
            error = record.get("error")
            if isinstance(error, list):
                out.append(FrontMatterError(os.path.join(self.memory_dir, name), int(error[0]), str(error[1])))
        return out


def load_catalog(memory_dir: str, index_dir: str, *, save: bool = True) -> Catalog:
    """The catalog of ``memory_dir``, read from its snapshot and refreshed (and saved when it changed)."""
    catalog = Catalog(memory_dir, index_dir).read()
    catalog.refresh(full=len(catalog.records) <= SMALL)  # small: stat every file, hand edits in place included
    if save and catalog.dirty and os.path.isdir(index_dir):
        catalog.save()
    return catalog
