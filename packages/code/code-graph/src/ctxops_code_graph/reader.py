"""The lean read path: find the current lookup snapshot, open it and check it is fresh, with `os` and
`sqlite3` only.

`CodeIndex` is built on these functions; a fresh `cq def` process calls them directly so that a lookup
imports neither the contracts (msgspec), pathlib nor dataclasses. Paths are plain strings here.
"""

# os.path on purpose: pathlib costs a fresh process several milliseconds to import.

from __future__ import annotations

import os
import sqlite3
import stat

TYPE_CHECKING = False  # not `from typing import ...`: typing costs a fresh process milliseconds

if TYPE_CHECKING:
    from .freshness import Staleness

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
INDEX_DIR = ".meta/index"
POINTER = "code-lookup.current"
_TYPE_KINDS = "'class', 'struct', 'interface', 'trait', 'enum', 'type'"


def escaped_path_sql(path: str) -> str:
    """SQL of a path as an id spells it (`symbol_ids.escape_path`: backticked when it holds a space or a
    backtick, a backtick doubled)."""
    return (
        f"CASE WHEN instr({path}, ' ') > 0 OR instr({path}, '`') > 0"
        f" THEN '`' || replace({path}, '`', '``') || '`' ELSE {path} END"
    )


# A symbol's kind and language are one of a few: `symbol_rows` keeps a small integer (one byte, or none for
# 0 and 1) for these, the text itself for any other; and its qualified name as 0 where it is its name (a
# top-level symbol's). The columns the queries read are generated from them (the stdlib's snapshot: -1.3 MB).
SYMBOL_KINDS = (
    "function", "method", "field", "variable", "constant", "class", "type", "interface", "struct", "enum",
    "module", "macro", "trait",
)  # fmt: skip
SYMBOL_LANGS = (
    "python", "typescript", "go", "javascript", "c", "cpp", "rust", "java", "ruby", "php", "kotlin", "swift",
    "shell",
)  # fmt: skip


def coded_sql(text: str, values: tuple[str, ...]) -> str:
    """SQL of what `symbol_rows` stores of ``text`` (SQL of a kind or language): its key in ``values``."""
    whens = " ".join(f"WHEN '{v}' THEN {i}" for i, v in enumerate(values))
    return f"CASE {text} {whens} ELSE {text} END"


def decoded_sql(column: str, values: tuple[str, ...]) -> str:
    # (A key is an integer, a text stored as is is a text: `CASE` compares them without conversion, the
    # stored columns having no type, so no affinity.)
    whens = " ".join(f"WHEN {i} THEN '{v}'" for i, v in enumerate(values))
    return f"CASE {column} {whens} ELSE {column} END"


def _suffix_sql(kind: str) -> str:
    return (
        f"CASE WHEN {kind} IN ('function', 'method') THEN '().' WHEN {kind} IN ({_TYPE_KINDS}) THEN '#'"
        f" WHEN {kind} = 'module' THEN '/' WHEN {kind} = 'macro' THEN '!' ELSE '.' END"
    )


def _suffix_of(kind: str) -> str:
    """`symbol_ids.suffix_for`, here for the kinds `symbol_rows` keys."""
    if kind in ("function", "method"):
        return "()."
    if f"'{kind}'" in _TYPE_KINDS:
        return "#"
    return {"module": "/", "macro": "!"}.get(kind, ".")


def default_id_sql(symbol: str, escaped_path: str, keyed: bool = False) -> str:
    """SQL (SQLite and DuckDB alike) of the id `code-scan` gives a symbol that is the first of its name in its
    file (`symbol_ids.symbol_id`), from the columns of ``symbol`` (lang, qualname, kind) and its file's
    ``escaped_path`` (`escaped_path_sql`). ``keyed``: ``symbol`` is a `symbol_rows` row, whose suffix is read
    from its kind's key (decoding the kind for each test cost a query of 20k symbols ~8% more CPU)."""
    suffix = _suffix_sql(f"{symbol}.kind")
    if keyed:
        whens = " ".join(f"WHEN {i} THEN '{_suffix_of(k)}'" for i, k in enumerate(SYMBOL_KINDS))
        suffix = f"CASE {symbol}.kind_key {whens} ELSE {_suffix_sql(f'{symbol}.kind_key')} END"
    return f"{symbol}.lang || ' ' || {escaped_path} || ' ' || {symbol}.qualname || {suffix}"


def id_of(symbol: str, path: str = "f.path") -> str:
    """SQL of the id of ``symbol`` (an alias of `symbol_rows`) whose file's path is ``path``, NULL when
    there is no such row (the `symbols` view's `id`, without looking the path up again)."""
    built = default_id_sql(symbol, escaped_path_sql(path), keyed=True)
    return f"CASE WHEN {symbol}.sk IS NULL THEN NULL ELSE coalesce({symbol}.id_full, {built}) END"


# A symbol's rows from `symbol_rows` itself (the view would look its file up once more for every id); a
# parent is in its child's file.
SYMBOL_SELECT = (
    f"SELECT {id_of('s')}, s.name, s.qualname, s.kind, s.lang, f.path, s.line, s.end_line, s.signature, s.doc,"
    f" {id_of('p')}, s.exported FROM symbol_rows s JOIN files f ON f.fk = s.fk"
    " LEFT JOIN symbol_rows p ON p.sk = s.parent_sk"
)


# A symbol by id (`s`: an alias of `symbol_rows`): ids are not indexed, but an id names its file, whose
# symbols are one range of an index, and its qualified name, which narrows the range before any id is built.
ID_WHERE = (
    "s.fk = (SELECT fk FROM files WHERE path = ?1) AND (s.qualname IN (?2, ?3, ?4, ?5) OR s.qualname IS NULL)"
    f" AND coalesce(s.id_full, {default_id_sql('s', escaped_path_sql('?1'), keyed=True)}) = ?6"
)
_SUFFIXES = ("().", "#", "/", "!", ".")


def id_params(symbol_id: str) -> tuple[str | None, ...]:
    """The parameters of `ID_WHERE` for ``symbol_id``."""
    parts = _split_id(symbol_id)
    names: list[str | None] = []
    if parts is not None:  # every way the id's tail can be `<qualname>[(+N)]<suffix>`
        for suffix in _SUFFIXES:
            if parts[1].endswith(suffix):
                name = parts[1][: -len(suffix)]
                head, sep, marker = name.rpartition("(+")
                names += [name, head] if sep and marker[:-1].isdigit() and marker.endswith(")") else [name]
    names = (names + [None] * 4)[:4]
    return (None if parts is None else parts[0], *names, symbol_id)


def id_path(symbol_id: str) -> str | None:
    """The file a symbol id names: its second part (`<lang> <path> <name>`; backticked when it holds a
    space or a backtick, a backtick doubled inside); None when it has no such part."""
    parts = _split_id(symbol_id)
    return None if parts is None else parts[0]


def _split_id(symbol_id: str) -> tuple[str, str] | None:
    """(path, the rest) of a symbol id."""
    _lang, sep, rest = symbol_id.partition(" ")
    if not sep:
        return None
    if not rest.startswith("`"):
        path, sep, tail = rest.partition(" ")
        return (path, tail) if sep else None
    parts, start = [], 1
    while (end := rest.find("`", start)) >= 0:
        if rest.startswith("``", end):
            parts.append(rest[start : end + 1])
            start = end + 2
            continue
        if rest[end + 1 : end + 2] != " ":
            return None
        return "".join(parts) + rest[start:end], rest[end + 2 :]
    return None


def file_refs_sql(ref: str = "r") -> str:
    """SQL: the references (``ref``: the alias of `refs` or `ref_rows`; "" for none) of the file keyed ?1.
    They are a range of the references' own key (`ref_spans`): no index on their file."""
    col = f"{ref}." if ref else ""
    span = "(SELECT {} FROM ref_spans WHERE fk = ?1)"
    return f"{col}rid BETWEEN {span.format('lo')} AND {span.format('hi')} AND {col}fk = ?1"


def current_snapshot(root: str) -> str | None:
    """The path of the current lookup snapshot of the repository at ``root``; None when not built."""
    index_dir = f"{root}/{INDEX_DIR}"
    try:  # the pointer is a file a repository could have committed: a regular file, never blocking, capped
        fd = os.open(f"{index_dir}/{POINTER}", os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            name = os.read(fd, 4096).decode("utf-8").strip()
        finally:
            os.close(fd)
    except (OSError, UnicodeDecodeError):
        return None
    # Only the names the builder writes (``code-lookup.<n>.sqlite``): never ``..``, an absolute path or a link.
    number = name[len("code-lookup.") : -len(".sqlite")]
    if not (name.startswith("code-lookup.") and name.endswith(".sqlite") and number.isascii() and number.isdigit()):
        return None
    path = f"{index_dir}/{name}"
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
    except OSError:
        return None
    return path


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
        return con.execute(f"{SYMBOL_SELECT} WHERE {ID_WHERE}", id_params(name)).fetchall()
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
        rows = con.execute(
            f"{SYMBOL_SELECT} WHERE s.name = ? AND (s.qualname = ? OR substr(s.qualname, -?) = ?)"
            " ORDER BY s.qualname = ? DESC, f.rank DESC, f.path, s.line LIMIT ?",
            (last, query, len(suffix), suffix, query, limit),
        ).fetchall()
        return rows or module_qualified_rows(con, query, limit)
    return con.execute(
        f"{SYMBOL_SELECT} WHERE s.name = ? ORDER BY s.parent_sk IS NULL DESC, f.rank DESC, f.path, s.line LIMIT ?",
        (query, limit),
    ).fetchall()


_MODULE_FILES = ("__init__", "index", "mod")  # a file that stands for its directory's module
_REEXPORT_HOPS = 3


def module_key(path: str) -> list[str]:
    """The module a file is, as parts: `pkg/sub/mod.py` -> pkg, sub, mod; `pkg/__init__.py` -> pkg;
    a Go file is its directory's package (`net/http/client.go` -> net, http)."""
    stem, dot, ext = path.rpartition(".")
    if not dot or "/" in ext:
        stem = path
    parts = stem.split("/")
    if ext == "go" or parts[-1] in _MODULE_FILES:
        parts = parts[:-1]
    return parts


def _module_files(con: sqlite3.Connection, module: list[str]) -> list[tuple[int, str]]:
    """Files (fk, path) whose module is `module` (its dotted parts end the file's module path)."""
    tail = "/".join(module)
    rows = con.execute(
        "SELECT fk, path FROM files WHERE path LIKE ? OR path LIKE ?", (f"%{tail}.%", f"%{tail}/%")
    ).fetchall()
    return [(fk, path) for fk, path in rows if module_key(path)[-len(module) :] == module]


def module_qualified_rows(con: sqlite3.Connection, query: str, limit: int = 200) -> list[tuple[object, ...]]:
    """Definitions named through their module: `json.loads` (json/__init__.py), `pkg.mod.Class.method`,
    `http.Get` (Go's net/http), and through what a module binds: `os.path.join` (os.py's
    `import posixpath as path`), `requests.request` (requests/__init__.py's `from .api import request`)."""
    parts = query.split(".")
    last = parts[-1]
    rests = [".".join(parts[k:]) for k in range(1, len(parts))]
    marks = ", ".join("?" for _ in rests)
    found = []
    for row in con.execute(
        f"{SYMBOL_SELECT} WHERE s.name = ? AND s.qualname IN ({marks}) ORDER BY f.rank DESC, f.path, s.line",
        (last, *rests),
    ):
        qual_parts = str(row[2]).split(".")
        module = parts[: len(parts) - len(qual_parts)]
        if module and module_key(str(row[5]))[-len(module) :] == module:
            found.append(row)
    if found:
        return found[:limit]
    # Through the names a module binds: follow its imports, a few hops at most.
    out: list[tuple[object, ...]] = []
    seen: set[str] = set()
    for k in range(len(parts) - 1, 0, -1):
        for fk, _path in _module_files(con, parts[:k]):
            out.extend(_through_imports(con, fk, parts[k:], _REEXPORT_HOPS, seen))
        if out:
            break
    return out[:limit]


def _through_imports(
    con: sqlite3.Connection, fk: int, rest: list[str], hops: int, seen: set[str]
) -> list[tuple[object, ...]]:
    """`rest` (a name, maybe dotted) as bound in file `fk`: defined there, or imported into it."""
    qual = ".".join(rest)
    rows = con.execute(
        f"{SYMBOL_SELECT} WHERE s.fk = ? AND s.name = ? AND s.qualname = ?", (fk, rest[-1], qual)
    ).fetchall()
    rows = [r for r in rows if str(r[0]) not in seen]
    seen.update(str(r[0]) for r in rows)
    if rows or hops <= 0:
        return rows
    out: list[tuple[object, ...]] = []
    for name, target, target_path in con.execute(
        "SELECT i.name, i.target_fk, t.path FROM imports i JOIN files t ON t.fk = i.target_fk"
        " WHERE i.fk = ? AND i.alias = ? AND i.target_fk <> ?",
        (fk, rest[0], fk),
    ).fetchall():
        # `import x as path` or `from pkg import mod`: the rest is looked up in that module;
        # `from m import f as g`: f (and the rest) in m.
        binds_module = name is None or module_key(str(target_path))[-1:] == [name]
        nxt = rest[1:] if binds_module else [name, *rest[1:]]
        if nxt:
            out.extend(_through_imports(con, target, nxt, hops - 1, seen))
    if not out:  # `from ._models import *`
        for (target,) in con.execute(
            "SELECT target_fk FROM imports WHERE fk = ? AND name = '*' AND target_fk IS NOT NULL AND target_fk <> ?",
            (fk, fk),
        ).fetchall():
            out.extend(_through_imports(con, target, rest, hops - 1, seen))
    return out


def names_near(con: sqlite3.Connection, query: str, limit: int = 5000) -> list[str]:
    """Candidate names for suggestions about ``query``, from one query on the name index (two range scans):
    the names that start with its first letter in either case and have a similar length. A close match
    (difflib ratio >= 0.7) has a length within about half of the query's, so the length bound loses none
    of those; a typo in the first letter is the one thing it does not forgive."""
    q = query.strip()
    if not q:
        return []
    upper, lower, shortest, longest = _near_bounds(q)
    rows = con.execute(
        "SELECT DISTINCT name FROM symbols WHERE ((name >= ?1 AND name < ?2) OR (name >= ?3 AND name < ?4))"
        " AND length(name) BETWEEN ?5 AND ?6 LIMIT ?7",
        (upper, chr(ord(upper) + 1), lower, chr(ord(lower) + 1), shortest, longest, limit),
    )
    return [r[0] for r in rows]


def is_near(query: str, name: str) -> bool:
    """True when `names_near` would offer ``name`` for ``query`` (for names not in the index yet)."""
    q = query.strip()
    if not q or not name:
        return False
    upper, lower, shortest, longest = _near_bounds(q)
    return name[0] in (upper, lower) and shortest <= len(name) <= longest


def _near_bounds(q: str) -> tuple[str, str, int, int]:
    n = len(q)
    return q[0].upper(), q[0].lower(), max(1, int(n * 0.53)), int(n / 0.53) + 1


def norm_path(path: str) -> str:
    return path.replace("\\", "/").removeprefix("./").strip("/")
