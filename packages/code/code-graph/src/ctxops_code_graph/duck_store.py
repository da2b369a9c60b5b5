"""The DuckDB build store: bulk loads, name resolution in SQL, the file graph.

Only the writer opens it (under the index lock); readers use the SQLite lookup snapshot instead.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from ctxops_contracts.shared.confine import refuse_symlink

from . import rid_slices, type_eval
from .lock import IndexBusy
from .schema import STORE_VIEWS, TABLES, columns

NAME_ONLY_CAP = 4  # a bare name defined in more places than this gives no edge: a guess, not an answer
NAME_ONLY_FILE_WEIGHT = 0.25  # name-only edges count for less in the file graph's ranking
INSERT_SLICE = 20_000
FILE_EDGE_ROWS = 250_000  # references per slice of a full build's file graph (`_rebuild_all_file_edges`)
INHERIT_DEPTH = 6  # how far up a class hierarchy `self.x()` is looked for
REEXPORT_DEPTH = 4  # re-export hops followed from an imported module to the definition
# The published store's block size: DuckDB's default 256 KiB leaves most of a block empty at the end of each
# column's segments (the stdlib's store: 21.0 MB in 256 KiB blocks, 17.6 in 64 KiB, 23.1 in 32 KiB, whose
# block headers and metadata cost more). The build's own scratch store keeps the default.
PUBLISHED_BLOCK_SIZE = 65536

_TYPE_KINDS = "('class','struct','interface','trait','enum','type')"
_CALLABLE_KINDS = "('function','method','class','struct','macro')"


# Priorities: 10 same scope or file (11.. inherited, nearest base first), 20 imports, 23.. typed receivers
# (nearest base first), 30 bare names.
#
# Resolution is a sequence of statements, each adding the candidates of one way to resolve into the temp
# table `everything(rid, dst, prio, conf, res)`; `cand` then keeps, per reference, the candidates of its best
# priority. One statement per branch (instead of one statement of many CTEs) lets each be planned on its
# own: in one statement DuckDB joined every pending reference to every symbol of the same name before the
# few typed receivers (12M rows; 10 s of a 14 s resolve on the stdlib). The joins that must start from a
# small table (typed receivers, module imports) start from one materialized first.
# Each step: (group, SQL); a step whose group the pending references cannot use is left out (`_needed`).
# How sure and how direct each label is, surest first: the order ties at one priority are broken in.
_CONF_ORDER = ("exact", "import-resolved", "name-only")
_RES_ORDER = (
    "local", "self", "import", "module-qualified", "typed-receiver", "module-instance", "return-type",
    "fixture", "callback-parameter", "inheritance", "constructor", "alias", "name-only",
)  # fmt: skip


def _rank(column: str, order: tuple[str, ...]) -> str:
    whens = " ".join(f"WHEN '{label}' THEN {i}" for i, label in enumerate(order))
    return f"CASE {column} {whens} ELSE {len(order)} END"


_TIE = f"(prio, {_rank('conf', _CONF_ORDER)}, {_rank('res', _RES_ORDER)}, res)"

_RESOLVE_STEPS: list[tuple[str | None, str]] = [
    (
        None,
        "CREATE OR REPLACE TEMP TABLE everything (rid BIGINT, dst VARCHAR, prio INTEGER, conf VARCHAR, res VARCHAR)",
    ),
    # References whose receiver's class is known: a name-only guess for them would be another class's method.
    (None, "CREATE OR REPLACE TEMP TABLE known_recv AS SELECT rid FROM typed_cls"),
    (
        "typed",
        f"""
CREATE OR REPLACE TEMP TABLE typed_wanted AS
WITH RECURSIVE
typed_bases(rid, cls, depth, conf, via) AS (
  -- typed_cls: the receiver classes type_eval.py found
  SELECT rid, cls, 0, 'import-resolved', via FROM typed_cls
  UNION ALL
  SELECT b.rid, e.dst, b.depth + 1,
         CASE WHEN b.conf = 'name-only' OR e.confidence = 'name-only' THEN 'name-only' ELSE 'import-resolved' END,
         b.via
  FROM typed_bases b JOIN inh e ON e.src = b.cls
  WHERE b.depth < {INHERIT_DEPTH}
)
SELECT b.rid, r.symbol_name, b.cls, b.depth, b.conf, b.via FROM typed_bases b JOIN pending r ON r.rid = b.rid
""",
    ),
    (
        "typed",
        """
INSERT INTO everything
SELECT t.rid, s.id, 23 + t.depth, t.conf, t.via FROM typed_wanted t
JOIN symbols s ON s.parent = t.cls AND s.name = t.symbol_name
""",
    ),
    (
        "typed",
        """
-- Go: the type's methods in the other files of its package (a method has a parent only in its type's file)
INSERT INTO everything
SELECT g.rid, s.id, 23 + g.depth, g.conf, g.via FROM (
  SELECT t.rid, t.symbol_name, k.name || '.' || t.symbol_name AS qn, k.path AS kpath,
         regexp_extract(k.path, '^(.*)/', 1) AS kdir, t.depth, t.conf, t.via
  FROM typed_wanted t JOIN symbols k ON k.id = t.cls AND k.fam = 'go'
) g
JOIN symbols s ON s.name = g.symbol_name AND s.qualname = g.qn AND s.fam = 'go' AND s.path <> g.kpath
 AND regexp_extract(s.path, '^(.*)/', 1) = g.kdir
""",
    ),
    (
        "self",
        """
-- The class `self` means: the enclosing method's, also from a function nested in a method.
CREATE OR REPLACE TEMP TABLE self_cls AS
SELECT r.rid, r.symbol_name, r.qualifier,
       CASE WHEN p.kind IN ('method', 'function') THEN p.parent ELSE e.parent END AS cls
FROM pending r JOIN syms e ON e.id = r.enclosing LEFT JOIN symbols p ON p.id = e.parent
WHERE r.qualifier IN ('self', 'cls', 'this', 'Self', 'super') AND e.parent IS NOT NULL
""",
    ),
    (
        "self",
        f"""
INSERT INTO everything
WITH RECURSIVE
bases(cls, base, depth, conf) AS (
  SELECT src, dst, 1, confidence FROM inh
  WHERE src IN (SELECT cls FROM self_cls_slice)
  UNION ALL
  SELECT b.cls, e.dst, b.depth + 1,
         CASE WHEN b.conf = 'name-only' OR e.confidence = 'name-only' THEN 'name-only'
              WHEN b.conf = 'import-resolved' OR e.confidence = 'import-resolved' THEN 'import-resolved'
              ELSE 'exact' END
  FROM bases b JOIN inh e ON e.src = b.base
  WHERE b.depth < {INHERIT_DEPTH}
)
SELECT c.rid, s.id, 10 + b.depth, b.conf, 'inheritance' FROM self_cls_slice c
JOIN bases b ON b.cls = c.cls
JOIN syms s ON s.parent = b.base AND s.name = c.symbol_name
-- (TypeScript `super.m()` is the base class's m: an interface the class implements has no body to call, and
-- one reached where the base class is outside the repository, `extends EventTarget implements T`, is not it)
WHERE NOT (c.qualifier = 'super' AND s.fam = 'js'
           AND EXISTS (SELECT 1 FROM syms k WHERE k.id = b.base AND k.kind = 'interface'))
""",
    ),
    (
        "self",
        """
INSERT INTO everything
SELECT c.rid, s.id, 10, 'exact', 'self' FROM self_cls c
JOIN syms s ON s.parent = c.cls AND s.name = c.symbol_name
WHERE c.qualifier IN ('self', 'cls', 'this', 'Self')
""",
    ),
    (
        None,
        """
-- Python imports written inside a function (the innermost def, method or class around the import: one in a
-- class body or a nested def binds there only), of the files being resolved: they bind the name in that
-- function only, for its whole body
CREATE OR REPLACE TEMP TABLE fn_imports AS
SELECT i.path, i.line, i.alias, f.id AS fid, f.kind AS fkind, f.line AS fline, f.end_line AS fend
FROM imports i JOIN symbols f ON f.path = i.path AND f.fam = 'python'
 AND f.kind IN ('function', 'method', 'class') AND i.line > f.line AND i.line <= f.end_line
WHERE i.path IN (SELECT DISTINCT path FROM pending WHERE fam = 'python') AND i.alias IS NOT NULL
QUALIFY row_number() OVER (PARTITION BY i.path, i.line, i.alias ORDER BY f.line DESC, f.end_line) = 1
""",
    ),
    (
        None,
        """
-- (a definition inside the enclosing one is nearer than a top-level one of the same name; an import in the
-- enclosing function keeps the file's top-level definition of that name from being the answer, whether or
-- not the import's module is in the repository: bottle's `def run(self, handler): from bjoern import run;
-- run(...)`)
INSERT INTO everything
SELECT r.rid, s.id, CASE WHEN s.parent IS NULL THEN 10 ELSE 8 END, 'exact', 'local' FROM pending r
JOIN syms s ON s.path = r.path AND s.name = r.symbol_name
WHERE r.qualifier IS NULL AND r.role <> 'import' AND (s.parent IS NULL OR s.parent = r.enclosing)
 AND NOT (s.parent IS NULL AND r.fam = 'python' AND EXISTS (
   SELECT 1 FROM fn_imports fi WHERE fi.fid = r.enclosing AND fi.alias = r.symbol_name
    AND fi.fkind IN ('function', 'method')))
""",
    ),
    # A function nested in a function (a closure) is seen, by its bare name, from every function nested in
    # that one and from itself, also through a class defined in the function (its methods see the
    # function's names; a class's own members are never reached by a bare name). Lexical scope: the nearest
    # definition wins over a top-level one. A closure is only seen from its own file, so only the references
    # naming a closure of their file are walked, and only up their file's scopes: walking every reference
    # whose name any file's closure has, on every symbol, built hash tables of the symbols at each step of
    # the walk and did not fit a 256 MB cap on a 10.7M-line corpus.
    (
        None,
        """
CREATE OR REPLACE TEMP TABLE closure_defs AS
SELECT s.path, s.name, s.parent AS anc, s.id FROM syms s JOIN syms a ON a.id = s.parent
WHERE s.kind = 'function' AND s.parent IS NOT NULL AND a.kind IN ('function', 'method')
""",
    ),
    (
        None,
        """
CREATE OR REPLACE TEMP TABLE closure_refs AS
SELECT r.rid, r.symbol_name AS name, r.enclosing FROM pending r
WHERE r.qualifier IS NULL AND r.role <> 'import' AND r.enclosing IS NOT NULL
 AND EXISTS (SELECT 1 FROM closure_defs d WHERE d.path = r.path AND d.name = r.symbol_name)
""",
    ),
    (
        None,
        """
-- (the scopes of the files that have a closure: a symbol's parent is in its own file)
CREATE OR REPLACE TEMP TABLE closure_scope AS
SELECT s.id, s.parent, s.kind FROM syms s
WHERE s.kind IN ('function', 'method', 'class') AND s.path IN (SELECT DISTINCT path FROM closure_defs)
""",
    ),
    (
        None,
        """
-- Python: a class statement in a function names its bases (and its body reads names) in the function's
-- scope: `class Child(Cached)` there is the function's own `Cached` when it defines one, nearer than the
-- module's class of that name (`k`, `f`: from `symbols`, which a small delta's `syms` may not hold)
INSERT INTO everything
SELECT r.rid, s.id, 8, 'exact', 'local' FROM pending r
JOIN symbols k ON k.id = r.enclosing AND k.kind = 'class'
JOIN symbols f ON f.id = k.parent AND f.kind IN ('function', 'method')
JOIN syms s ON s.parent = f.id AND s.name = r.symbol_name AND s.path = r.path
WHERE r.qualifier IS NULL AND r.role <> 'import' AND r.fam = 'python'
""",
    ),
    (
        None,
        f"""
-- The walk starts from each enclosing function once (not from each reference): its ancestors by depth.
INSERT INTO everything
WITH RECURSIVE up(enc, anc, depth) AS (
  SELECT e.id, e.parent, 1 FROM closure_scope e
  JOIN closure_scope p ON p.id = e.parent AND p.kind IN ('function', 'method')
  WHERE e.kind IN ('function', 'method') AND e.id IN (SELECT enclosing FROM closure_refs)
  UNION ALL
  -- (a method of a class defined in a function: from the function on)
  SELECT e.id, p.parent, 2 FROM closure_scope e
  JOIN closure_scope p ON p.id = e.parent AND p.kind = 'class'
  JOIN closure_scope q ON q.id = p.parent AND q.kind IN ('function', 'method')
  WHERE e.kind IN ('function', 'method') AND e.id IN (SELECT enclosing FROM closure_refs)
  UNION ALL
  SELECT up.enc, a.parent, up.depth + 1 FROM up
  JOIN closure_scope a ON a.id = up.anc
  JOIN closure_scope p ON p.id = a.parent AND p.kind IN ('function', 'method', 'class')
  WHERE up.depth < {INHERIT_DEPTH}
)
SELECT r.rid, d.id, 9, 'exact', 'local' FROM closure_refs r
JOIN up ON up.enc = r.enclosing
JOIN closure_defs d ON d.anc = up.anc AND d.name = r.name
QUALIFY up.depth = min(up.depth) OVER (PARTITION BY r.rid)
""",
    ),
    (
        None,
        """
-- Java, C: a bare name inside a method reaches the other members of its class.
INSERT INTO everything
SELECT r.rid, s.id, 10, 'exact', 'self' FROM pending r
JOIN syms e ON e.id = r.enclosing
JOIN syms s ON s.parent = e.parent AND s.name = r.symbol_name
WHERE r.qualifier IS NULL AND r.fam IN ('java', 'c') AND e.parent IS NOT NULL
""",
    ),
    (
        None,
        """
-- Go and Java see the other files of their package (directory) without an import.
INSERT INTO everything
SELECT r.rid, s.id, 10, 'exact', 'local' FROM pending r
JOIN syms s ON s.name = r.symbol_name AND s.fam = r.fam AND s.path <> r.path
 AND regexp_extract(s.path, '^(.*)/', 1) = regexp_extract(r.path, '^(.*)/', 1)
WHERE r.qualifier IS NULL AND r.role <> 'import' AND r.fam IN ('go', 'java') AND s.parent IS NULL
""",
    ),
    (
        None,
        f"""
INSERT INTO everything
SELECT r.rid, s.id, 10, 'exact', 'local' FROM pending r
JOIN syms k ON k.path = r.path AND k.name = r.qualifier AND k.kind IN {_TYPE_KINDS}
 AND (k.parent IS NULL OR k.parent = r.enclosing OR r.fam <> 'python')
JOIN syms s ON s.parent = k.id AND s.name = r.symbol_name
WHERE r.qualifier IS NOT NULL
""",
    ),
    (
        None,
        """
-- An import inside the function that uses the name binds it there, before any definition of the file:
-- `def main(): from app.core import main; main()` calls app.core's main, not itself.
INSERT INTO everything
SELECT r.rid, s.id,
       CASE WHEN e.kind IN ('function', 'method') AND i.line > e.line AND i.line <= e.end_line AND r.line > i.line
            THEN 7 ELSE 20 END,
       'import-resolved', 'import' FROM pending r
JOIN imports i ON i.path = r.path AND i.target_kind = 'name' AND i.name IS NOT NULL
 AND ((r.role <> 'import' AND r.qualifier IS NULL AND i.alias = r.symbol_name)
      OR (r.role = 'import' AND i.line = r.line AND i.name = r.symbol_name))
LEFT JOIN syms e ON e.id = r.enclosing
-- (a default import binds the module's default export, code-scan's `*default` row, whatever its local name)
LEFT JOIN types d ON i.name = 'default' AND d.path = i.target_path AND d.owner IS NULL AND d.name = '*default'
JOIN syms s ON s.path = i.target_path AND s.parent IS NULL
 AND s.name = CASE WHEN i.name = 'default' THEN coalesce(d.expr, i.alias) ELSE i.name END
-- (a Python import inside a function or class binds the name there only: not for a use elsewhere)
LEFT JOIN fn_imports fi ON fi.path = i.path AND fi.line = i.line AND fi.alias = i.alias
WHERE r.role = 'import' OR fi.path IS NULL OR (r.line > fi.fline AND r.line <= fi.fend)
""",
    ),
    (
        None,
        """
-- `import mod` (or `import mod as m`) then `m.x`: the module import each qualified reference goes through.
CREATE OR REPLACE TEMP TABLE via_module AS
SELECT r.rid, r.symbol_name, r.qualifier, r.path, i.alias, i.target_path FROM pending r
JOIN imports i ON i.path = r.path AND i.target_kind = 'module' AND i.alias = r.qualifier
""",
    ),
    (
        None,
        """
INSERT INTO everything
SELECT m.rid, s.id, 20, 'import-resolved', 'module-qualified' FROM via_module m
JOIN syms s ON s.path = m.target_path AND s.parent IS NULL AND s.name = m.symbol_name
""",
    ),
    (
        None,
        """
INSERT INTO everything
SELECT r.rid, s.id, 20, 'import-resolved', 'import' FROM pending r
JOIN imports i ON i.path = r.path AND i.target_kind = 'name' AND i.alias = r.qualifier
JOIN syms k ON k.path = i.target_path AND k.parent IS NULL AND k.name = i.name
JOIN syms s ON s.parent = k.id AND s.name = r.symbol_name
""",
    ),
    (
        "reexport",
        """
-- `from pkg import f` where pkg/__init__.py re-exports f (`from .mod import f`): one level followed.
INSERT INTO everything
SELECT r.rid, s.id, 21, 'import-resolved', 'import' FROM pending r
JOIN imports i ON i.path = r.path AND i.target_kind = 'name' AND i.name IS NOT NULL
 AND ((r.role <> 'import' AND r.qualifier IS NULL AND i.alias = r.symbol_name)
      OR (r.role = 'import' AND i.line = r.line AND i.name = r.symbol_name))
JOIN imports x ON x.path = i.target_path AND (x.alias = i.name OR x.name = '*')
 AND (x.target_kind = 'name' OR x.name = '*')
 AND x.target_path <> x.path
JOIN syms s ON s.path = x.target_path AND s.parent IS NULL
 AND s.name = CASE WHEN x.name = '*' THEN i.name ELSE x.name END
""",
    ),
    (
        "reexport",
        """
-- `import pkg; pkg.f()` where pkg/__init__.py re-exports f (by name, or through a star import).
INSERT INTO everything
SELECT m.rid, s.id, 21, 'import-resolved', 'module-qualified' FROM via_module m
JOIN imports x ON x.path = m.target_path AND x.alias = m.symbol_name AND x.target_kind = 'name'
 AND x.target_path <> x.path
JOIN syms s ON s.path = x.target_path AND s.parent IS NULL AND s.name = x.name
UNION ALL
SELECT m.rid, s.id, 21, 'import-resolved', 'module-qualified' FROM via_module m
JOIN imports x ON x.path = m.target_path AND x.name = '*' AND x.target_path <> x.path
JOIN syms s ON s.path = x.target_path AND s.parent IS NULL AND s.name = m.symbol_name
""",
    ),
    (
        "reexport",
        f"""
-- Re-exports followed further than one level: `export {{ _lte as lte }} from './index'` where index.ts has
-- `export * from './api'`, or a barrel of barrels; each (file, name) asked for once, a few levels at most.
INSERT INTO everything
WITH RECURSIVE
asked AS (
  SELECT DISTINCT target_path AS path, name FROM imports
  WHERE target_kind = 'name' AND name IS NOT NULL AND name NOT IN ('*', 'default') AND target_path IS NOT NULL
  UNION
  SELECT DISTINCT target_path, symbol_name FROM via_module WHERE target_path IS NOT NULL
),
hop(start, sname, path, name, depth) AS (
  SELECT path, name, path, name, 0 FROM asked
  UNION ALL
  SELECT h.start, h.sname, x.target_path, CASE WHEN x.name = '*' THEN h.name ELSE x.name END, h.depth + 1
  FROM hop h JOIN imports x ON x.path = h.path AND x.target_path IS NOT NULL AND x.target_path <> x.path
   AND (x.name = '*' OR (x.target_kind = 'name' AND x.alias = h.name AND x.name <> 'default'))
  WHERE h.depth < {REEXPORT_DEPTH}
),
found AS (
  SELECT h.start, h.sname, s.id, min(h.depth) AS depth FROM hop h
  JOIN syms s ON s.path = h.path AND s.parent IS NULL AND s.name = h.name
  WHERE h.depth >= 2 GROUP BY ALL
)
SELECT r.rid, f.id, 20 + f.depth, 'import-resolved', 'import' FROM pending r
JOIN imports i ON i.path = r.path AND i.target_kind = 'name' AND r.role <> 'import' AND r.qualifier IS NULL
 AND i.alias = r.symbol_name
JOIN found f ON f.start = i.target_path AND f.sname = i.name
UNION ALL
SELECT m.rid, f.id, 20 + f.depth, 'import-resolved', 'module-qualified' FROM via_module m
JOIN found f ON f.start = m.target_path AND f.sname = m.symbol_name
""",
    ),
    (
        "reexport",
        f"""
-- Python: a bare name a file gets through `from mod import *`, followed through the star imports of the
-- modules reached (a package `__init__` of `from .seqs import *` lines) as Python binds it: a module gives
-- the names its `__all__` lists (code-scan's `*all` rows; `*all*`: another module's list, one level) or,
-- without a readable `__all__`, every public name (its own and those it got by star imports). A few hops
-- at most (a cycle stops there); of two star imports giving the name, the later line binds it.
INSERT INTO everything
WITH RECURSIVE
want AS (
  SELECT DISTINCT r.path, r.symbol_name AS name FROM pending r
  WHERE r.qualifier IS NULL AND r.role <> 'import' AND r.fam = 'python'
   AND r.path IN (SELECT path FROM imports WHERE name = '*' AND target_path IS NOT NULL)
),
listed AS (
  SELECT path, expr AS name FROM types WHERE owner IS NULL AND name = '*all'
  UNION
  SELECT y.path, z.expr FROM types y
  JOIN imports i ON i.path = y.path AND i.alias = y.expr AND i.target_path IS NOT NULL
  JOIN types z ON z.path = i.target_path AND z.owner IS NULL AND z.name = '*all'
  WHERE y.owner IS NULL AND y.name = '*all*'
),
has_all AS (SELECT DISTINCT path FROM types WHERE owner IS NULL AND name IN ('*all', '*all*')),
hop(start, name, path, depth, line) AS (
  SELECT w.path, w.name, w.path, 0, 0 FROM want w
  UNION
  SELECT h.start, h.name, x.target_path, h.depth + 1, CASE WHEN h.depth = 0 THEN x.line ELSE h.line END
  FROM hop h
  JOIN imports x ON x.path = h.path AND x.name = '*' AND x.target_path IS NOT NULL AND x.target_path <> x.path
  LEFT JOIN has_all a ON a.path = x.target_path
  LEFT JOIN listed l ON l.path = x.target_path AND l.name = h.name
  WHERE h.depth < {REEXPORT_DEPTH}
   AND (l.path IS NOT NULL OR (a.path IS NULL AND NOT starts_with(h.name, '_')))
),
found AS (
  SELECT h.start, h.name, h.line, s.id, min(h.depth) AS depth FROM hop h
  JOIN syms s ON s.path = h.path AND s.parent IS NULL AND s.name = h.name
  WHERE h.depth >= 1 GROUP BY ALL
  UNION ALL
  -- (a name the module reached imports by name, `from .core import nth` there)
  SELECT h.start, h.name, h.line, s.id, min(h.depth) + 1 FROM hop h
  JOIN imports x ON x.path = h.path AND x.target_kind = 'name' AND x.alias = h.name
   AND x.name NOT IN ('*', 'default') AND x.target_path IS NOT NULL AND x.target_path <> x.path
  JOIN syms s ON s.path = x.target_path AND s.parent IS NULL AND s.name = x.name
  WHERE h.depth >= 1 GROUP BY ALL
)
SELECT r.rid, f.id, 20 + f.depth, 'import-resolved', 'import' FROM pending r
JOIN found f ON f.start = r.path AND f.name = r.symbol_name
WHERE r.qualifier IS NULL AND r.role <> 'import' AND r.fam = 'python'
QUALIFY f.line = max(f.line) OVER (PARTITION BY r.rid)
""",
    ),
    (
        "reexport",
        """
-- `import { util } from './index'` where index.ts binds util to one module (`export * as util from './util'`;
-- Python `from pkg import mod` where pkg has `import x as mod`): `util.f()` is f of that module.
INSERT INTO everything
SELECT r.rid, s.id, 21, 'import-resolved', 'module-qualified' FROM pending r
JOIN imports i ON i.path = r.path AND i.target_kind = 'name' AND i.alias = r.qualifier AND i.name IS NOT NULL
JOIN (
  SELECT path, alias, any_value(target_path) AS target_path FROM imports
  WHERE target_kind = 'module' AND target_path IS NOT NULL GROUP BY path, alias
  HAVING count(DISTINCT target_path) = 1
) x ON x.path = i.target_path AND x.alias = i.name AND x.target_path <> r.path
JOIN syms s ON s.path = x.target_path AND s.parent IS NULL AND s.name = r.symbol_name
""",
    ),
    (
        "reexport",
        """
-- `import os` then `os.path.join()`: a module-valued name the imported module binds (`import x as path`).
INSERT INTO everything
SELECT r.rid, s.id, 22, 'import-resolved', 'module-qualified' FROM pending r
JOIN imports i ON i.path = r.path AND i.target_kind = 'module' AND r.qualifier LIKE '%.%'
 AND i.alias = split_part(r.qualifier, '.', 1)
JOIN imports x ON x.path = i.target_path AND x.alias = substr(r.qualifier, length(i.alias) + 2)
 AND x.target_kind = 'module'
JOIN syms s ON s.path = x.target_path AND s.parent IS NULL AND s.name = r.symbol_name
""",
    ),
    (
        "go",
        """
-- Go: a method's receiver (any name) reaches the other methods of its type, in any file of the package.
INSERT INTO everything
SELECT r.rid, s.id, 10, 'exact', 'self' FROM pending r
JOIN syms e ON e.id = r.enclosing AND e.kind = 'method'
JOIN syms s ON s.fam = 'go' AND s.name = r.symbol_name
 AND s.qualname = split_part(e.qualname, '.', 1) || '.' || r.symbol_name
 AND regexp_extract(s.path, '^(.*)/', 1) = regexp_extract(r.path, '^(.*)/', 1)
WHERE r.fam = 'go' AND r.qualifier = 'self'
""",
    ),
    (
        "go",
        """
-- Go: `x.M()` with `x` of a stated type T (same package) or pkg.T (through the import of pkg).
CREATE OR REPLACE TEMP TABLE go_typed AS
SELECT r.rid, s.id AS dst, 23 AS prio, 'import-resolved' AS conf, 'typed-receiver' AS res FROM pending r
JOIN syms s ON s.fam = 'go' AND s.name = r.symbol_name AND s.qualname = r.receiver_type || '.' || r.symbol_name
 AND regexp_extract(s.path, '^(.*)/', 1) = regexp_extract(r.path, '^(.*)/', 1)
WHERE r.fam = 'go' AND r.receiver_type IS NOT NULL AND r.receiver_type NOT LIKE '%.%'
UNION ALL
SELECT r.rid, s.id AS dst, 23 AS prio, 'import-resolved' AS conf, 'typed-receiver' AS res FROM pending r
JOIN imports i ON i.path = r.path AND i.alias = split_part(r.receiver_type, '.', 1) AND i.target_path IS NOT NULL
JOIN syms s ON s.path = i.target_path AND s.name = r.symbol_name
 AND s.qualname = split_part(r.receiver_type, '.', 2) || '.' || r.symbol_name
WHERE r.fam = 'go' AND r.receiver_type LIKE '%.%'
""",
    ),
    (
        "go",
        f"""
-- Go: a method promoted from an embedded struct or interface (`type A struct {{ B }}`: `a.M()` is `a.B.M()`),
-- up to two embeddings deep; only where T itself has no method of that name (priority decides).
CREATE OR REPLACE TEMP TABLE go_promoted AS
WITH go_recv AS (
  -- Go: the type a receiver has, by name (`x.M()` with x of a stated type T, or T's own method's receiver)
  SELECT r.rid, r.symbol_name, r.receiver_type AS tname, r.path FROM pending r
  WHERE r.fam = 'go' AND r.receiver_type IS NOT NULL AND r.receiver_type NOT LIKE '%.%'
  UNION ALL
  SELECT r.rid, r.symbol_name, split_part(e.qualname, '.', 1), r.path FROM pending r
  JOIN syms e ON e.id = r.enclosing AND e.kind = 'method'
  WHERE r.fam = 'go' AND r.qualifier = 'self'
)
SELECT g.rid, s.id AS dst, 24 + b.depth AS prio, 'import-resolved' AS conf, 'inheritance' AS res FROM go_recv g
JOIN syms k ON k.fam = 'go' AND k.name = g.tname AND k.kind IN {_TYPE_KINDS} AND k.parent IS NULL
 AND regexp_extract(k.path, '^(.*)/', 1) = regexp_extract(g.path, '^(.*)/', 1)
JOIN (SELECT e1.src, e1.dst, 0 AS depth FROM inh e1 WHERE e1.confidence <> 'name-only'
      UNION ALL
      SELECT e1.src, e2.dst, 1 FROM inh e1 JOIN inh e2 ON e2.src = e1.dst
      WHERE e1.confidence <> 'name-only' AND e2.confidence <> 'name-only') b ON b.src = k.id
JOIN symbols t ON t.id = b.dst
JOIN syms s ON s.fam = 'go' AND s.name = g.symbol_name AND s.qualname = t.name || '.' || g.symbol_name
 AND regexp_extract(s.path, '^(.*)/', 1) = regexp_extract(t.path, '^(.*)/', 1)
""",
    ),
    ("go", "INSERT INTO everything SELECT * FROM go_typed UNION ALL SELECT * FROM go_promoted"),
    ("go", "INSERT INTO known_recv SELECT rid FROM go_typed UNION ALL SELECT rid FROM go_promoted"),
    (
        None,
        f"""
INSERT INTO everything
WITH
wanted AS (SELECT DISTINCT symbol_name AS name FROM pending),
named AS (SELECT * FROM syms WHERE name IN (SELECT name FROM wanted)),
p3_pool AS (
  SELECT id, name, fam, parent IS NOT NULL AS member, 'call' AS rc FROM named WHERE kind IN {_CALLABLE_KINDS}
  UNION ALL
  SELECT id, name, fam, parent IS NOT NULL AS member, 'type' AS rc FROM named WHERE kind IN {_TYPE_KINDS}
  UNION ALL
  SELECT id, name, fam, parent IS NOT NULL AS member, 'other' AS rc FROM named
),
p3_unambiguous AS (
  SELECT * FROM p3_pool QUALIFY count(*) OVER (PARTITION BY fam, name, member, rc) <= {NAME_ONLY_CAP}
)
SELECT r.rid, p.id, 30, 'name-only', 'name-only' FROM pending r
JOIN p3_unambiguous p ON p.name = r.symbol_name AND p.fam = r.fam AND p.member = (r.qualifier IS NOT NULL)
 AND p.rc = CASE WHEN r.role = 'call' THEN 'call' WHEN r.role IN ('inherit', 'type') THEN 'type' ELSE 'other' END
WHERE r.role NOT IN ('import', 'read')  -- a value use is only recorded when it is resolved for certain
 AND r.rid NOT IN (SELECT rid FROM known_recv)
""",
    ),
    (
        "static",
        """
-- TypeScript: a class with a static and an instance method of one name (`static clone(r)` beside `clone()`,
-- code-scan's `:static` rows on the statics of such a class): a use on the class object (`K.clone(r)`, the
-- receiver `^K`, `!^K` after an `if` that may narrow; `this.m()` in a static method) is the static one's, any
-- other use the instance one's.
DELETE FROM everything USING (
  SELECT e.rid, e.dst FROM everything e
  JOIN symbols s ON s.id = e.dst AND s.parent IN (
    SELECT k.parent FROM symbols k WHERE k.id IN (SELECT owner FROM types WHERE name = ':static'))
  JOIN pending r ON r.rid = e.rid
  WHERE (s.id IN (SELECT owner FROM types WHERE name = ':static')) <> coalesce(
    regexp_matches(r.receiver_type, '^!?\\^[^#]*$')
    OR (r.qualifier = 'this' AND r.enclosing IN (SELECT owner FROM types WHERE name = ':static')), false)
) AS other_kind
WHERE everything.rid = other_kind.rid AND everything.dst = other_kind.dst
""",
    ),
    (None, "CREATE OR REPLACE TEMP TABLE cand (rid BIGINT, dst VARCHAR, prio INTEGER, conf VARCHAR, res VARCHAR)"),
    (
        None,
        f"""
-- Ties at the best priority go to the surest, most direct label ({_TIE}), so conf and res come from one
-- row and a rebuild labels every edge the same way (a bare arg_min over prio picks any tied row).
-- (In slices of references, `rid_slices`: the aggregate's string states did not spill at a ~46k-file build.)
INSERT INTO cand
SELECT rid, dst, min(prio) AS prio, arg_min(conf, {_TIE}) AS conf, arg_min(res, {_TIE}) AS res
FROM everything_slice
GROUP BY rid, dst
QUALIFY min(prio) = min(min(prio)) OVER (PARTITION BY rid)
""",
    ),
    (
        None,
        """
-- (the edge's source, kind, file and line are its reference's: the `edges` view shows them)
INSERT INTO edge_rows SELECT rid, dst, conf, res FROM cand WHERE rid IN (SELECT rid FROM pending)
""",
    ),
    (
        None,
        """
-- A certain call of a class also calls its constructor: `K(...)` -> `K.__init__` / `K.__new__`.
INSERT INTO edge_rows
SELECT c.rid, m.id, c.conf, 'constructor'
FROM cand c JOIN pending r USING (rid)
JOIN symbols k ON k.id = c.dst AND k.kind = 'class'
JOIN symbols m ON m.parent = k.id AND m.name IN ('__init__', '__new__')
WHERE r.role = 'call' AND c.conf <> 'name-only' AND r.fam = 'python'
""",
    ),
    (
        None,
        """
-- Python: a certain call of an alias is a call of the function it names (code-scan's row `=alias`): a
-- module's `countedArray = counted_array` (a function of that module, or one it imports by name), a class
-- body's `parseString = parse_string` (a method of the same class).
INSERT INTO edge_rows
SELECT c.rid, f.id, c.conf, 'alias'
FROM cand c JOIN pending r USING (rid)
JOIN symbols v ON v.id = c.dst AND v.kind IN ('variable', 'constant', 'field')
JOIN types y ON y.path = v.path AND y.name = '=' || v.name AND y.owner IS NOT DISTINCT FROM v.parent
JOIN symbols f ON f.path = v.path AND f.name = y.expr AND f.parent IS NOT DISTINCT FROM v.parent
 AND f.kind IN ('function', 'method')
WHERE r.role = 'call' AND c.conf <> 'name-only' AND r.fam = 'python'
UNION ALL
SELECT c.rid, f.id, c.conf, 'alias'
FROM cand c JOIN pending r USING (rid)
JOIN symbols v ON v.id = c.dst AND v.kind IN ('variable', 'constant') AND v.parent IS NULL
JOIN types y ON y.path = v.path AND y.name = '=' || v.name AND y.owner IS NULL
JOIN imports i ON i.path = v.path AND i.target_kind = 'name' AND i.alias = y.expr AND i.target_path <> v.path
JOIN symbols f ON f.path = i.target_path AND f.parent IS NULL AND f.name = i.name AND f.kind = 'function'
WHERE r.role = 'call' AND c.conf <> 'name-only' AND r.fam = 'python'
""",
    ),
    (
        None,
        """
-- (the certain calls of a name bound to a call that passes plain names: `generic_identity.py`'s rows)
CREATE OR REPLACE TEMP TABLE generic_uses AS
SELECT c.rid, c.conf, v.path, v.parent, regexp_extract(y.expr, '^(\\w+)\\(', 1) AS fn,
       regexp_extract(y.expr, '\\((\\d+)\\)', 1) AS k, regexp_extract(y.expr, '\\)(\\w+)$', 1) AS arg
FROM cand c JOIN pending r USING (rid)
JOIN symbols v ON v.id = c.dst AND v.kind IN ('variable', 'constant', 'field')
JOIN types y ON y.path = v.path AND y.name = '=' || v.name AND y.owner IS NOT DISTINCT FROM v.parent
 AND regexp_matches(y.expr, '^\\w+\\(\\d+\\)\\w+$')
WHERE r.role = 'call' AND c.conf <> 'name-only' AND r.fam = 'python';
-- (those whose callee, defined in the file or imported by name, is a generic identity at that position)
CREATE OR REPLACE TEMP TABLE generic_ok AS
SELECT h.* FROM (
  SELECT g.*, d.id AS did FROM generic_uses g
  JOIN symbols d ON d.path = g.path AND d.name = g.fn AND d.parent IS NULL AND d.kind = 'function'
  WHERE NOT EXISTS (SELECT 1 FROM imports x WHERE x.path = g.path AND x.alias = g.fn)
  UNION ALL
  SELECT g.*, d.id FROM generic_uses g
  JOIN imports i ON i.path = g.path AND i.target_kind = 'name' AND i.alias = g.fn AND i.target_path <> g.path
  JOIN symbols d ON d.path = i.target_path AND d.name = i.name AND d.parent IS NULL AND d.kind = 'function'
) h JOIN types t ON t.owner = h.did AND t.name = '=arg' AND t.expr = h.k
""",
    ),
    (
        None,
        """
-- Python: a generic identity, `countedArray = replaced_by_pep8("countedArray", counted_array)` with `def
-- replaced_by_pep8(name, fn: C) -> C`, C a TypeVar: a checker's countedArray is counted_array, the argument at
-- the position the callee's row `=arg` names (code-scan's `generic_identity.py`; the row `=countedArray` is
-- `replaced_by_pep8(1)counted_array`); the callee and the argument defined in the file or imported by name
INSERT INTO edge_rows
SELECT ok.rid, f.id, ok.conf, 'alias' FROM generic_ok ok
JOIN symbols f ON f.path = ok.path AND f.name = ok.arg AND f.parent IS NOT DISTINCT FROM ok.parent
 AND f.kind IN ('function', 'method')
UNION ALL
SELECT ok.rid, f.id, ok.conf, 'alias' FROM generic_ok ok
JOIN imports i ON i.path = ok.path AND i.target_kind = 'name' AND i.alias = ok.arg AND i.target_path <> ok.path
JOIN symbols f ON f.path = i.target_path AND f.name = i.name AND f.parent IS NULL AND f.kind = 'function'
WHERE ok.parent IS NULL
""",
    ),
]

# File edges of the files in `fe_src` (all files on a full build): imports, plus symbol edges per kind.
# Every symbol a pending reference can resolve to or through: by its name, its qualifier, the names its
# file imports, and its enclosing symbol (whose parent class leads to `self.x` and base classes).
_REACHABLE_SYMBOLS_SQL = """
CREATE OR REPLACE TEMP TABLE syms AS
SELECT * FROM symbols WHERE id IN (
  SELECT id FROM symbols WHERE name IN (
    SELECT symbol_name FROM todo UNION SELECT qualifier FROM todo
    UNION SELECT name FROM imports WHERE path IN (SELECT DISTINCT path FROM todo))
  UNION SELECT enclosing FROM todo)
"""

_FILE_EDGES_SQL = f"""
DELETE FROM file_edges WHERE src IN (SELECT path FROM fe_src) OR dst IN (SELECT path FROM fe_gone);
INSERT INTO file_edges
SELECT path, target_path, 'import', count(*)::DOUBLE FROM imports
WHERE target_path IS NOT NULL AND target_path <> path AND path IN (SELECT path FROM fe_src) GROUP BY ALL;
INSERT INTO file_edges
SELECT e.path, s.path, e.kind,
       sum(CASE WHEN e.confidence = 'name-only' THEN {NAME_ONLY_FILE_WEIGHT} ELSE 1.0 END)
FROM edges e JOIN symbols s ON s.id = e.dst
WHERE s.path <> e.path AND e.kind <> 'import' AND e.path IN (SELECT path FROM fe_src) GROUP BY ALL;
"""


# The branch groups of `_RESOLVE_STEPS`: a batch of references leaves out the steps it cannot use.
_GROUPS = frozenset({"typed", "self", "go", "reexport", "static"})


@cache
def _resolve_sql(needed: frozenset[str]) -> list[str]:
    """`_RESOLVE_STEPS`'s statements, without the steps of groups not in `needed`."""
    return [sql.strip() for group, sql in _RESOLVE_STEPS if group is None or group in needed]


class StoreBusy(IndexBusy):
    """Another process has the DuckDB build store open (DuckDB allows one process per file): the store is
    fine, only busy. Never a reason to rebuild."""

    def __init__(self, path: Path, holder: int | None, waited: float) -> None:
        who = f"process {holder}" if holder else "another process"
        super().__init__(
            f"{path} is held open by {who} (waited {waited:.1f} s); close that process (a DuckDB shell,"
            " a notebook) or wait for it, and the index updates on the next query"
        )
        self.holder = holder


_HOLDER_PID = re.compile(r"\(PID (\d+)\)")


def is_lock_conflict(exc: BaseException) -> bool:
    """True when a DuckDB error says another process holds the file's lock (not a damaged file)."""
    return "Conflicting lock" in str(exc) or "Could not set lock" in str(exc)


def connect(path: Path, memory_limit: str | None = None, wait: float = 0.0, block_size: int | None = None) -> Any:
    """Open the build store; while another process holds it, retry for up to ``wait`` s, then raise
    :class:`StoreBusy` naming the holder. Any other failure propagates (a damaged file). ``block_size``: of
    a file this creates (an existing file keeps its own)."""
    import duckdb

    config: dict[str, str | bool | int | float | list[str]] = {"memory_limit": memory_limit} if memory_limit else {}
    if block_size is not None:
        config["default_block_size"] = str(block_size)
    started = time.monotonic()
    delay = 0.02
    while True:
        try:
            return duckdb.connect(refuse_symlink(path), config=config)
        except duckdb.IOException as exc:
            if not is_lock_conflict(exc):
                raise
            waited = time.monotonic() - started
            if waited >= wait:
                match = _HOLDER_PID.search(str(exc))
                raise StoreBusy(path, int(match.group(1)) if match else None, waited) from None
            time.sleep(min(delay, max(0.0, wait - waited)))
            delay = min(delay * 2, 0.25)


def generation(con: Any) -> str | None:
    """The generation the build store last committed (None in a store without one)."""
    row = con.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
    return None if row is None else str(row[0])


def symbols_of(con: Any, paths: Sequence[str]) -> list[tuple[str, str]]:
    """(id, name) of the symbols defined in ``paths``."""
    rows: list[tuple[str, str]] = con.execute(
        "SELECT id, name FROM symbols WHERE path IN (SELECT unnest($1::VARCHAR[]))", [list(paths)]
    ).fetchall()
    return rows


def delete_paths(con: Any, paths: Sequence[str]) -> None:
    """Drop every row of ``paths`` from the per-file tables (edges before the references they belong to)."""
    con.execute(
        "DELETE FROM edge_rows WHERE rid IN (SELECT rid FROM refs WHERE path IN (SELECT unnest($1::VARCHAR[])))",
        [list(paths)],
    )
    for table in ("files", "symbols", "refs", "imports", "types", "skipped"):
        con.execute(f"DELETE FROM {table} WHERE path IN (SELECT unnest($1::VARCHAR[]))", [list(paths)])


def touch_files(con: Any, stats: Sequence[tuple[int, int, str]]) -> None:
    """New (mtime_ns, size) for files whose content did not change: one joined UPDATE (a statement per
    file cost ~1 ms each: every file of a fresh clone after `cq index --import`)."""
    if not stats:
        return
    mtimes, sizes, paths = (list(col) for col in zip(*stats, strict=True))
    con.execute(
        "CREATE OR REPLACE TEMP TABLE touched AS SELECT unnest($1::BIGINT[]) AS mtime_ns,"
        " unnest($2::BIGINT[]) AS size, unnest($3::VARCHAR[]) AS path",
        [mtimes, sizes, paths],
    )
    con.execute("UPDATE files SET mtime_ns = t.mtime_ns, size = t.size FROM touched t WHERE files.path = t.path")


def file_langs(con: Any) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = con.execute("SELECT path, lang FROM files").fetchall()
    return rows


def replace_rows(con: Any, table: str, rows: Sequence[Sequence[Any]]) -> None:
    """Replace the whole content of ``table``."""
    con.execute(f"DELETE FROM {table}")
    insert_rows(con, table, rows)


def pending_rids(con: Any) -> list[int]:
    """The reference ids the last `resolve` call worked on."""
    return [r[0] for r in con.execute("SELECT rid FROM todo").fetchall()]


def pending_paths(con: Any) -> set[str]:
    return {r[0] for r in con.execute("SELECT DISTINCT path FROM todo").fetchall()}


def pending_edges(con: Any) -> list[tuple[Any, ...]]:
    """The edges the last `resolve` call made."""
    return fetch(con, "edges", "WHERE rid IN (SELECT rid FROM todo)")


# The order each table is written in at the end of a build: DuckDB compresses a column segment by segment,
# and an edge's source, file and line repeat from one edge to the next in reference order (the stdlib's
# edges: 327k rows in resolution's order, 11 MB; by reference, 5.5 MB less).
_COMPACT_ORDER = {"edge_rows": "rid, dst", "refs": "rid", "symbols": "path, line, id"}
# Columns the published store leaves NULL: only a full build's snapshot reads them, from the build's own store
# (an update writes its snapshot rows from the scan), so a published copy is never read for them (the stdlib's
# store: -0.7 MB).
SNAPSHOT_ONLY = {"symbols": ("signature", "doc")}


def without_snapshot_only(table: str, rows: Sequence[Sequence[Any]]) -> list[tuple[Any, ...]]:
    """``rows`` of ``table`` with the `SNAPSHOT_ONLY` columns set to None, for the published store."""
    names = columns(table)
    drop = {names.index(c) for c in SNAPSHOT_ONLY.get(table, ())}
    return [tuple(None if i in drop else v for i, v in enumerate(r)) for r in rows]


def write_compacted(con: Any, target: Path) -> None:
    """Copy every table of the open store into a fresh file at ``target``, written once and in the order
    that compresses best (`_COMPACT_ORDER`): a build frees blocks as it goes (chunk loads, resolution's
    scratch tables), which the copy leaves behind (the stdlib's store: 38 -> 24 MiB for ~1.3 CPU-s)."""
    for stale in (target, target.with_name(target.name + ".wal")):
        stale.unlink(missing_ok=True)
    literal = refuse_symlink(target).replace("'", "''")
    name = str(con.execute("SELECT current_database()").fetchone()[0]).replace('"', '""')
    tables = [
        str(r[0])
        for r in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database()"
        ).fetchall()
    ]
    con.execute(f"ATTACH '{literal}' AS compacted (BLOCK_SIZE {PUBLISHED_BLOCK_SIZE})")
    # One thread: rows appended by several land in more, partly filled row groups (35 vs 30 MB).
    threads = con.execute("SELECT current_setting('threads')").fetchone()[0]
    con.execute("SET threads TO 1")
    try:
        con.execute(f'COPY FROM DATABASE "{name}" TO compacted (SCHEMA)')
        for table in tables:
            order = _COMPACT_ORDER.get(table)
            by = f" ORDER BY {order}" if order else ""
            nulls = ", ".join(f"NULL AS {c}" for c in SNAPSHOT_ONLY.get(table, ()))
            select = f"* REPLACE ({nulls})" if nulls else "*"
            con.execute(f'INSERT INTO compacted."{table}" SELECT {select} FROM "{name}"."{table}"{by}')
        # Written into the file now: the build's scratch store checkpoints neither by size nor at close
        # (`scratch_store`), which would leave the copy's rows in a WAL beside a file that is then renamed.
        con.execute("CHECKPOINT compacted")
    finally:
        con.execute(f"SET threads TO {int(threads)}")
        con.execute("DETACH compacted")


# How much WAL a full build's scratch store gathers before a checkpoint (DuckDB's default: 16 MB).
SCRATCH_CHECKPOINT = "256MB"


def scratch_store(con: Any) -> None:
    """A full build's own store is scratch: `write_compacted` copies it into the published file, then it is
    deleted. Checkpointed every 16 MB of WAL (DuckDB's default) as the chunks were appended, the same row
    groups were compressed again and again (~0.6 CPU-s of the stdlib's load), and once more at close, for a
    file deleted next. Here a checkpoint comes every `SCRATCH_CHECKPOINT` of WAL (the WAL on disk stays
    bounded; rows not yet checkpointed are in DuckDB's buffer pool, under the build's memory cap) and none
    at close."""
    con.execute(f"SET checkpoint_threshold = '{SCRATCH_CHECKPOINT}'")
    con.execute("PRAGMA disable_checkpoint_on_shutdown")


def create_tables(con: Any) -> None:
    for table, cols in TABLES.items():
        spec = ", ".join(f"{name} {kind}" for name, kind in cols)
        con.execute(f"CREATE TABLE IF NOT EXISTS {table} ({spec})")
    for view, (_, sql) in STORE_VIEWS.items():
        con.execute(f"CREATE VIEW IF NOT EXISTS {view} AS {sql}")


def insert_rows(con: Any, table: str, rows: Sequence[Sequence[Any]]) -> None:
    """Bulk insert through one unnest per column (far faster than executemany)."""
    insert_typed(con, table, TABLES[table], rows)


def insert_typed(con: Any, table: str, cols: Sequence[tuple[str, str]], rows: Sequence[Sequence[Any]]) -> None:
    """`insert_rows` into a table of the given (name, type) columns."""
    if not rows:
        return
    select = ", ".join(f"unnest(${i + 1}::{kind}[]) AS {name}" for i, (name, kind) in enumerate(cols))
    sql = f"INSERT INTO {table} SELECT * FROM (SELECT {select})"
    # In slices: a list parameter is boxed value by value, so one huge call costs far more memory than rows.
    for start in range(0, len(rows), INSERT_SLICE):
        data = [list(col) for col in zip(*rows[start : start + INSERT_SLICE], strict=True)]
        con.execute(sql, data)


def resolve(con: Any, *, all_refs: bool, paths: Sequence[str] = (), names: Sequence[str] = ()) -> None:
    """Turn references into edges: all of them, or those in `paths` or naming one of `names`."""
    source = "refs"  # every reference (a full build reads them in place, no copy)
    if all_refs:
        con.execute("DELETE FROM edge_rows")
    else:
        source = "todo"
        con.execute("CREATE OR REPLACE TEMP TABLE todo_paths AS SELECT unnest($1::VARCHAR[]) AS path", [list(paths)])
        con.execute("CREATE OR REPLACE TEMP TABLE todo_names AS SELECT unnest($1::VARCHAR[]) AS name", [list(names)])
        con.execute(
            "CREATE OR REPLACE TEMP TABLE todo AS SELECT * FROM refs WHERE path IN (SELECT path FROM todo_paths)"
            " UNION SELECT * FROM refs WHERE symbol_name IN (SELECT name FROM todo_names)"
        )
        con.execute("DELETE FROM edge_rows WHERE rid IN (SELECT rid FROM todo)")
    if all_refs:
        con.execute("CREATE OR REPLACE TEMP VIEW syms AS SELECT * FROM symbols")
    else:
        # A small delta: the few symbols it can reach, gathered once, spare every branch a full scan.
        con.execute(_REACHABLE_SYMBOLS_SQL)
    # Inheritance first: `self.x()` then finds `x` in base classes through the inherit edges just made.
    for which in ("role = 'inherit'", "role <> 'inherit'"):
        # A full build's pending references are a view of `refs` (a copy of 590k rows cost ~0.35 CPU-s).
        kind = "VIEW" if all_refs else "TABLE"
        con.execute(f"CREATE OR REPLACE TEMP {kind} pending AS SELECT * FROM {source} WHERE {which}")
        if not all_refs and con.execute("SELECT count(*) FROM pending").fetchone()[0] == 0:
            continue
        con.execute(_INHERIT_SQL)
        needed = _needed(con) if not all_refs else _GROUPS
        if "static" in needed and not con.execute("SELECT count(*) FROM types WHERE name = ':static'").fetchone()[0]:
            needed = needed - {"static"}  # (no class with a static and an instance method of one name)
        if "typed" in needed:
            type_eval.evaluate(con)
        else:
            type_eval.empty(con)
        for statement in _resolve_sql(needed):
            _run(con, statement)


# Statements that read `<table>_slice` run once per slice of `<table>`'s references (`rid_slices`).
_SLICED = ("everything", "self_cls")


def _run(con: Any, statement: str) -> None:
    """Run a resolution statement; one that reads `<table>_slice` once per slice of `<table>`."""
    table = next((t for t in _SLICED if f"{t}_slice" in statement), None)
    if table is None:
        con.execute(statement)
        return
    for where in rid_slices.ranges(con, table):
        con.execute(f"CREATE OR REPLACE TEMP TABLE {table}_slice AS SELECT * FROM {table} WHERE {where}")
        con.execute(statement)
    con.execute(f"DROP TABLE IF EXISTS {table}_slice")


# The inherit edges the member lookups walk. Python looks a member up along the MRO, left to right: a base
# listed before the one that defines the member, but outside the repository (`class T(TestCase, Mixin)`),
# may define it first (`TestCase.assertEqual`, not the mixin's), so what is reached past it is possible,
# not certain. Bases known to add no ordinary methods do not count. A TypeScript class's `implements I` adds
# no member to it (the class must declare each one itself): a lookup never walks from a class to an interface,
# or `w.m()` would also list the interface's bodiless `m` beside the base class's that tsc names. (Except an
# interface merged with a class of its name, mongodb's `declare interface TypedEventEmitter` + `class
# TypedEventEmitter`: `extends TypedEventEmitter` reaches both, one merged declaration.)
_MEMBERLESS_BASES = ("object", "Generic", "Protocol", "ABC")
_INHERIT_SQL = f"""
CREATE OR REPLACE TEMP TABLE inh AS
SELECT e.src, e.dst,
       CASE WHEN r.fam = 'python' AND EXISTS (
         SELECT 1 FROM refs o
         WHERE o.enclosing = e.src AND o.role = 'inherit'
           AND (o.line < r.line OR (o.line = r.line AND o.col < r.col))
           AND o.symbol_name NOT IN ({", ".join(f"'{name}'" for name in _MEMBERLESS_BASES)})
           AND NOT EXISTS (SELECT 1 FROM edge_rows x WHERE x.rid = o.rid)
       ) THEN 'name-only' ELSE e.confidence END AS confidence
FROM edges e JOIN refs r ON r.rid = e.rid
WHERE e.kind = 'inherit'
  AND NOT (r.fam = 'js' AND EXISTS (SELECT 1 FROM symbols c WHERE c.id = e.src AND c.kind = 'class')
           AND EXISTS (SELECT 1 FROM symbols i WHERE i.id = e.dst AND i.kind = 'interface'
                       AND NOT EXISTS (SELECT 1 FROM symbols m WHERE m.path = i.path AND m.name = i.name
                                       AND m.kind = 'class' AND m.parent IS NOT DISTINCT FROM i.parent)))
"""


def _needed(con: Any) -> frozenset[str]:
    """The branch groups the pending references can use."""
    typed, selfish, go, reexports, js = con.execute(
        "SELECT count(receiver_type) > 0,"
        " count(*) FILTER (WHERE qualifier IN ('self', 'cls', 'this', 'Self', 'super')) > 0,"
        " count(*) FILTER (WHERE fam = 'go') > 0, count(*) FILTER (WHERE fam IN ('python', 'js')) > 0,"
        " count(*) FILTER (WHERE fam = 'js') > 0 FROM pending"
    ).fetchone()
    flags = {"typed": typed, "self": selfish, "go": go, "reexport": reexports, "static": js}
    return frozenset(name for name, on in flags.items() if on)


# A full build's symbol part of the file graph, a slice of references at a time (`rid_slices`): in one
# statement the `edges` view's join of every edge to its reference and the symbols held more than DuckDB's
# 512 MB cap on a 10.7M-line corpus. Each slice adds its partial sums; the sums of the slices are the whole
# sums exactly (every weight is 1 or 0.25: sums of those are exact in a double whatever the order).
_FILE_EDGES_PART_SQL = f"""
INSERT INTO fe_part
SELECT e.path, s.path, e.kind,
       sum(CASE WHEN e.confidence = 'name-only' THEN {NAME_ONLY_FILE_WEIGHT} ELSE 1.0 END)
FROM edges e JOIN symbols s ON s.id = e.dst
WHERE s.path <> e.path AND e.kind <> 'import' AND {{slice}} GROUP BY ALL
"""


def rebuild_file_edges(con: Any, sources: Sequence[str] | None = None, gone: Sequence[str] = ()) -> None:
    """Recompute the file graph's out-edges of `sources` (None: every file); drop edges into `gone` files."""
    if sources is None:
        _rebuild_all_file_edges(con)
        return
    con.execute("CREATE OR REPLACE TEMP TABLE fe_src AS SELECT unnest($1::VARCHAR[]) AS path", [list(sources)])
    con.execute("CREATE OR REPLACE TEMP TABLE fe_gone AS SELECT unnest($1::VARCHAR[]) AS path", [list(gone)])
    for statement in _split(_FILE_EDGES_SQL):
        con.execute(statement)


def _rebuild_all_file_edges(con: Any) -> None:
    """Every file's out-edges, the symbol edges summed over slices of references (`_FILE_EDGES_PART_SQL`)."""
    con.execute("DELETE FROM file_edges")
    con.execute(
        "INSERT INTO file_edges SELECT path, target_path, 'import', count(*)::DOUBLE FROM imports"
        " WHERE target_path IS NOT NULL AND target_path <> path GROUP BY ALL"
    )
    con.execute("CREATE OR REPLACE TEMP TABLE fe_part (src VARCHAR, dst VARCHAR, kind VARCHAR, weight DOUBLE)")
    for where in list(rid_slices.ranges(con, "edge_rows", FILE_EDGE_ROWS)):
        con.execute(_FILE_EDGES_PART_SQL.format(slice=where.replace("rid", "e.rid")))
    con.execute("INSERT INTO file_edges SELECT src, dst, kind, sum(weight) FROM fe_part GROUP BY ALL")
    con.execute("DROP TABLE fe_part")


def drop_scratch(con: Any) -> None:
    """Drop this connection's temporary tables and views (resolution's scratch): what they hold in DuckDB's
    memory (275 MB of a 512 MB cap after a 2.4M-line corpus's resolution) is then free for the next steps."""
    for kind, name_column in (("VIEW", "view_name"), ("TABLE", "table_name")):
        catalog = f"duckdb_{kind.lower()}s()"
        rows = con.execute(f"SELECT {name_column} FROM {catalog} WHERE temporary AND NOT internal").fetchall()
        for (name,) in rows:
            con.execute(f'DROP {kind} IF EXISTS temp.main."{name}"')


def file_edges_of(con: Any, sources: Sequence[str]) -> list[tuple[str, str, str, float]]:
    rows: list[tuple[str, str, str, float]] = con.execute(
        "SELECT src, dst, kind, weight FROM file_edges WHERE src IN (SELECT unnest($1::VARCHAR[]))"
        " ORDER BY src, dst, kind",
        [list(sources)],
    ).fetchall()
    return rows


def all_file_edges(con: Any) -> list[tuple[str, str, str, float]]:
    rows: list[tuple[str, str, str, float]] = con.execute(
        "SELECT src, dst, kind, weight FROM file_edges ORDER BY src, dst, kind"
    ).fetchall()
    return rows


def stream_file_edges(con: Any, batch: int = 50_000) -> Iterator[tuple[str, str, str, float]]:
    """`all_file_edges`' rows in its order, fetched a batch at a time (a full build's 419k file edges held
    as Python tuples cost ~150 MB)."""
    cursor = con.cursor()
    try:
        cursor.execute("SELECT src, dst, kind, weight FROM file_edges ORDER BY src, dst, kind")
        while rows := cursor.fetchmany(batch):
            yield from rows
    finally:
        cursor.close()


def fetch(con: Any, table: str, where: str = "", params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    cols = ", ".join(columns(table))
    rows: list[tuple[Any, ...]] = con.execute(f"SELECT {cols} FROM {table} {where}", list(params)).fetchall()
    return rows


def _split(sql: str) -> list[str]:
    return [s.strip() for s in sql.split(";\n") if s.strip()]
