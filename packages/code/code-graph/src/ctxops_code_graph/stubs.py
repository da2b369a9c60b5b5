"""A Python stub's definition and the implementation it describes (PEP 484 `.pyi` beside a module).

A type checker reads `attr/__init__.pyi` in place of `attr/__init__.py`, and jedi (like an editor's "find
references") maps a stub's `def asdict(...)` to the function the module really runs: the module's own
definition of the same qualified name, else the definition the module imports under that name (`from
._funcs import asdict`, followed through re-exports). The calls of that implementation are the stub's
calls: nothing in a repository calls a stub, every caller of `asdict` is written against the module.
"""

from __future__ import annotations

import sqlite3

from .reader import ID_WHERE, id_params

MAX_HOPS = 4  # re-exports followed from the stub's module (`attrs` -> `attr` -> `attr._funcs`)


def implementations(con: sqlite3.Connection, symbol_id: str) -> list[int]:
    """Symbol keys of the implementation a `.pyi` stub's definition describes; [] for anything else."""
    row = con.execute(
        f"SELECT s.qualname, f.path FROM symbol_rows s JOIN files f ON f.fk = s.fk"
        f" WHERE {ID_WHERE} AND s.lang = 'python'",
        id_params(symbol_id),
    ).fetchone()
    if row is None or not str(row[1]).endswith(".pyi") or not row[0]:
        return []
    qualname, path = str(row[0]), str(row[1])[:-1]
    got = con.execute("SELECT fk FROM files WHERE path = ?", (path,)).fetchone()
    fk = None if got is None else int(got[0])
    seen: set[tuple[int, str]] = set()
    for _ in range(MAX_HOPS):
        if fk is None or (fk, qualname) in seen:
            return []
        seen.add((fk, qualname))
        found = [int(r[0]) for r in con.execute("SELECT sk FROM symbols WHERE fk = ? AND qualname = ?", (fk, qualname))]
        if found:
            return found
        head, dot, rest = qualname.partition(".")
        # `from m import name [as head]` in the module: the name in the module it comes from
        imp = con.execute(
            "SELECT name, target_fk FROM imports WHERE fk = ? AND alias = ? AND name <> '*' AND target_fk IS NOT NULL"
            " ORDER BY line LIMIT 1",
            (fk, head),
        ).fetchone()
        if imp is None:  # `from m import *`: the first module imported so that defines it
            imp = con.execute(
                "SELECT ?, i.target_fk FROM imports i WHERE i.fk = ? AND i.name = '*' AND i.target_fk IS NOT NULL"
                " AND EXISTS (SELECT 1 FROM symbols s WHERE s.fk = i.target_fk AND s.qualname = ?)"
                " ORDER BY i.line LIMIT 1",
                (head, fk, qualname),
            ).fetchone()
        if imp is None or not imp[0]:
            return []
        fk, qualname = int(imp[1]), str(imp[0]) + dot + rest
    return []
