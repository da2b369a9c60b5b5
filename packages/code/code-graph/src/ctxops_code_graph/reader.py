"""The lean read path: find the current lookup snapshot, open it and check it is fresh, with `os` and
`sqlite3` only.

`CodeIndex` is built on these functions; a fresh `cq def` process calls them directly so that a lookup
imports neither the contracts (msgspec), pathlib nor dataclasses. Paths are plain strings here.
"""

# os.path on purpose: pathlib costs a fresh process several milliseconds to import.

from __future__ import annotations

import sqlite3

TYPE_CHECKING = False  # not `from typing import ...`: typing costs a fresh process milliseconds

if TYPE_CHECKING:
    from .freshness import Staleness

INDEX_DIR = ".meta/index"
POINTER = "code-lookup.current"
SYMBOL_SELECT = (
    "SELECT s.id, s.name, s.qualname, s.kind, s.lang, f.path, s.line, s.end_line, s.signature, s.doc, p.id,"
    " s.exported FROM symbols s JOIN files f ON f.fk = s.fk LEFT JOIN symbols p ON p.sk = s.parent_sk"
)


def current_snapshot(root: str) -> str | None:
    """The path of the current lookup snapshot of the repository at ``root``; None when not built."""
    index_dir = f"{root}/{INDEX_DIR}"
    try:
        with open(f"{index_dir}/{POINTER}", encoding="utf-8") as fh:
            name = fh.read().strip()
    except OSError:
        return None
    return f"{index_dir}/{name}" if name else None


def connect(path: str) -> sqlite3.Connection:
    """A read-only connection on a snapshot (raises `sqlite3.OperationalError` if it cannot be opened)."""
    con = sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=5.0, check_same_thread=False)
    con.execute("PRAGMA query_only=1")
    return con


def meta(con: sqlite3.Connection) -> dict[str, str]:
    return dict(con.execute("SELECT key, value FROM meta").fetchall())


def staleness(root: str, con: sqlite3.Connection, snapshot_meta: dict[str, str]) -> Staleness:
    """The stat-based check (`freshness.check`) against the repository's current git HEAD."""
    from ctxops_code_scan.gitinfo import read_head

    from .freshness import check

    return check(root, con, snapshot_meta.get("head") or None, read_head(root))


def definition_rows(con: sqlite3.Connection, name: str, limit: int = 200) -> list[tuple[object, ...]]:
    """Rows (`SYMBOL_SELECT` columns) of the definitions of a plain name, a qualified name
    (`Class.method`, `pkg::f`), `path:NAME`, or a symbol id, best first."""
    name = name.strip()
    if not name:
        return []
    if " " in name:  # a symbol id
        return con.execute(f"{SYMBOL_SELECT} WHERE s.id = ?", (name,)).fetchall()
    path_part, sep, rest = name.rpartition(":")
    if sep and path_part and ("/" in path_part or "." in path_part) and not path_part.endswith(":"):
        rest = rest.replace("::", ".")
        return con.execute(
            f"{SYMBOL_SELECT} WHERE f.path = ? AND (s.name = ? OR s.qualname = ?) ORDER BY s.line LIMIT ?",
            (norm_path(path_part), rest, rest, limit),
        ).fetchall()
    query = name.replace("::", ".").replace("#", ".").strip(".")
    last = query.rsplit(".", 1)[-1]
    if "." in query:
        suffix = "." + query
        return con.execute(
            f"{SYMBOL_SELECT} WHERE s.name = ? AND (s.qualname = ? OR substr(s.qualname, -?) = ?)"
            " ORDER BY s.qualname = ? DESC, f.rank DESC, f.path, s.line LIMIT ?",
            (last, query, len(suffix), suffix, query, limit),
        ).fetchall()
    return con.execute(
        f"{SYMBOL_SELECT} WHERE s.name = ? ORDER BY s.parent_sk IS NULL DESC, f.rank DESC, f.path, s.line LIMIT ?",
        (query, limit),
    ).fetchall()


def names_near(con: sqlite3.Connection, query: str, limit: int = 5000) -> list[str]:
    """Candidate names for suggestions about ``query``, from one query on the name index (two range scans):
    the names that start with its first letter in either case and have a similar length. A close match
    (difflib ratio >= 0.7) has a length within about half of the query's, so the length bound loses none
    of those; a typo in the first letter is the one thing it does not forgive."""
    q = query.strip()
    if not q:
        return []
    n = len(q)
    upper, lower = q[0].upper(), q[0].lower()
    rows = con.execute(
        "SELECT DISTINCT name FROM symbols WHERE ((name >= ?1 AND name < ?2) OR (name >= ?3 AND name < ?4))"
        " AND length(name) BETWEEN ?5 AND ?6 LIMIT ?7",
        (upper, chr(ord(upper) + 1), lower, chr(ord(lower) + 1), max(1, int(n * 0.53)), int(n / 0.53) + 1, limit),
    )
    return [r[0] for r in rows]


def norm_path(path: str) -> str:
    return path.replace("\\", "/").removeprefix("./").strip("/")
