"""Is the index under `.meta/index/` ctxops's own and readable? (issue 22, item 5)

A damaged file (a crash mid-write on a broken disk, `head -c 4096 /dev/urandom > code.duckdb`) or a
foreign one (another tool's database at our path) used to surface as a raw `_duckdb.IOException` from
`cq index` while `ctx doctor` said "no problems found". Here:

* :func:`damaged` finds such files: the build store's header without importing DuckDB (its magic bytes),
  the snapshot opened through SQLite, and with ``deep`` an open of the build store that looks for its
  ``meta`` table;
* :class:`IndexDamaged` is what an update raises on one: one line, naming the file and the fix;
* :func:`move_aside` renames a damaged file to ``<name>.damaged-<UTC time>`` before a full build writes a
  new one: nothing a user may want to look at is deleted silently.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from ctxops_contracts.shared.confine import read_regular

from .layout import IndexLayout

DUCKDB_MAGIC = b"DUCK"  # bytes 8-11 of every DuckDB database file
FIX = "cq index --full (moves the damaged file aside, then rebuilds the index)"


class IndexDamaged(Exception):
    """An index file is damaged or not ctxops's; the message names it, ``fix`` the way out."""

    def __init__(self, found: list[tuple[Path, str]]) -> None:
        self.found = found
        self.fix = FIX
        path, why = found[0]
        self.message = f"the code index file {path} is {why}"
        super().__init__(self.message)


def _header(path: Path, size: int) -> bytes | None:
    try:
        return read_regular(str(path), size)[:size]
    except FileNotFoundError:
        return None


def damaged(layout: IndexLayout, *, deep: bool = False) -> list[tuple[Path, str]]:
    """The index files that are damaged or foreign, with why: ``[]`` when every present file is ours.

    Missing files are not damage (no index yet). ``deep`` also opens the build store (DuckDB) and checks
    that it holds ctxops's ``meta`` table; a store another process holds is taken as healthy.
    """
    found: list[tuple[Path, str]] = []
    store = layout.duckdb_path
    # A file shorter than its header is being written (a build creating it), not damaged: readers and an
    # auto-updating query must never move a live file aside.
    head = _header(store, 12)
    if head is not None and len(head) == 12 and head[8:12] != DUCKDB_MAGIC:
        found.append((store, "damaged or not a DuckDB database (no DuckDB header)"))
    elif head is not None and deep and not is_ours(store):
        found.append((store, "a DuckDB database that is not a ctxops code index (no meta table)"))
    snapshot = layout.current_lookup()
    if snapshot is not None:
        why = _snapshot_damage(snapshot)
        if why:
            found.append((snapshot, why))
    return found


def _snapshot_damage(path: Path) -> str | None:
    """Why the lookup snapshot is not a readable SQLite database, or None (also when absent or busy).

    Read through SQLite, never a raw descriptor: POSIX locks belong to the process, so closing a second
    descriptor on a database file drops the WAL read locks this process's own open connection holds, and
    a writer elsewhere then checkpoints and resets the WAL under it ("disk I/O error" on every later read
    of that process). SQLite shares one descriptor among its connections to a file.
    """
    import sqlite3

    if not path.exists():
        return None
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5.0)
    except sqlite3.Error:
        return None  # gone between the check and the open (a newer generation pruned it)
    try:
        con.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.OperationalError:
        return None  # busy or gone: not damage
    except sqlite3.DatabaseError as exc:  # "file is not a database", "database disk image is malformed"
        return f"damaged or not an SQLite database ({exc})"
    finally:
        con.close()
    return None


def is_ours(store: Path) -> bool:
    from . import duck_store

    try:
        con = duck_store.connect(store, wait=0.0)
    except duck_store.StoreBusy:
        return True  # held by a live writer: busy, not broken
    except Exception:
        return False
    try:
        tables = {row[0] for row in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
        return "meta" in tables
    except Exception:
        return False
    finally:
        con.close()


def move_aside(path: Path) -> Path:
    """Rename ``path`` (and its DuckDB ``.wal``) to ``<name>.damaged-<UTC time>``; return the new path."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    target = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while os.path.lexists(target):
        n += 1
        target = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    path.replace(target)
    wal = path.with_name(path.name + ".wal")
    if os.path.lexists(wal):
        wal.replace(target.with_name(target.name + ".wal"))
    return target
