"""Receiver classes from type expressions (code-scan's `type_exprs.py`), evaluated across files in SQL.

A pending reference's `receiver_type` is an expression such as `@client#get()` ("the result of method
`get` of the pytest fixture `client`"). Each round rewrites every open expression one hop: a name to the
symbol it means in its file (its own definition, an import, a re-export), a function to its result's
expression (`types` rows, read in the function's own file), a class attribute or method to the
attribute's type or the method's result (searched up the class's bases). An expression whose head is a
class and that has no steps left is done. A TypeScript callback parameter that is the callee's own type
parameter (a `%sources` recipe) is read back in the calling file: the type the call instantiates it with
(`offered`, `decided`). Only stated facts are followed; what does not resolve
within `MAX_ROUNDS` hops gives nothing (the reference stays a name-only candidate).

The result is the temp table `typed_cls(rid, cls, via)`: `via` is the strongest inference used, which
becomes the edge's resolution (`typed-receiver`, `module-instance`, `return-type`, `fixture`,
`callback-parameter`).
"""

from __future__ import annotations

from typing import Any

from . import rid_slices, sql_ctes

MAX_ROUNDS = 16  # hops: a name through an import is one, a class's method result two
INHERIT_DEPTH = 6
VIA = ("typed-receiver", "module-instance", "return-type", "fixture", "callback-parameter")  # weakest first
# Steps that give an element of an array `K[]`: `xs[i]`, `xs.pop()`, `for (x of xs)`, `xs.forEach((x) => ...)`
_ELEMENT_METHODS = ("forEach", "map", "filter", "some", "every", "find", "findIndex", "flatMap")
# (`for`: Python's `for x in xs`, which iterates a sequence's elements and a mapping's keys)
ELEMENT_STEPS = (
    "[]",
    "for",
    "__getitem__()",
    "pop()",
    "shift()",
    "at()",
    "find()",
    "findLast()",
    *(f"{m}&0.0" for m in _ELEMENT_METHODS),
)
_ELEMENT_LIST = ", ".join(f"'{s}'" for s in ELEMENT_STEPS)
# ... and steps that give an array of the same elements: `xs.filter(...)`, `xs.slice()`
_SAME_ARRAY_LIST = (
    "'filter()', 'slice()', 'concat()', 'reverse()', 'sort()', 'toReversed()', 'toSorted()', 'values()', 'values{}'"
)
# Steps that give a value of a map `K{}` (`Map<_, K>`, Python's `dict[_, K]`): `m.get(k)`, `m.forEach((v) =>
# ...)`, `d[k]` (`__getitem__()`), `d.pop(k)`, `d.setdefault(k, v)`; `m.values()` gives their sequence (`K[]`)
# (`of[1]`: the second item of an element, `for (const [k, v] of m)`, code-scan's `_bind_ts`)
# (not `[]`: TypeScript's `for (x of m)` is that step too, and iterating a Map gives its [key, value] pairs)
MAP_VALUE_STEPS = ("get()", "forEach&0.0", "of[1]", "__getitem__()", "pop()", "setdefault()")  # (the last 3: Python)
_MAP_VALUE_LIST = ", ".join(f"'{s}'" for s in MAP_VALUE_STEPS)
_REST = "substr({0}.steps, length(split_part({0}.steps, '#', 1)) + 2)"
# Python's tuple item `[i]` (`a, b = f()`): `_ITEM` tests that a steps expression starts with one; `_SECOND` is
# a member's second step (`m()#[i]`)
_ITEM = "regexp_matches({0}, '^\\[[0-9]+\\](#|$)')"
_SECOND = "split_part(m.steps, '#', 2)"
_ITEM_REST = f"CASE WHEN {_ITEM.format('n.steps')} THEN {_REST.format('n')} ELSE n.steps END"  # (`f()`'s steps)
_TYPE_KINDS = "('class','struct','interface','trait','enum','type')"
# `x += y`'s in-place dunders (`__iadd__`), each read as its binary one where no class defines it
_IN_PLACE = "add|sub|mul|truediv|floordiv|mod|matmul|or|and|xor|lshift|rshift|pow"


def _parse(expr: str, steps: str) -> str:
    """SQL: (mk, nm, steps) of expression `expr` followed by the steps `steps` (both SQL expressions)."""
    head = f"split_part({expr}, '#', 1)"
    own = f"CASE WHEN strpos({expr}, '#') > 0 THEN substr({expr}, strpos({expr}, '#') + 1) ELSE '' END"
    return (
        f"CASE WHEN {head} = 'Self' THEN 'S' WHEN left({head}, 1) IN ('=', '^', '@', '&', '%') THEN left({head}, 1)"
        f" ELSE '' END AS mk,"
        f" CASE WHEN left({head}, 1) IN ('=', '^', '@', '&', '%') THEN substr({head}, 2) ELSE {head} END AS nm,"
        f" CASE WHEN {own} = '' THEN {steps} WHEN {steps} = '' THEN {own} ELSE {own} || '#' || {steps} END AS steps"
    )


def _first(alias: str) -> str:
    """SQL: the first step of `alias.steps` without the call site's context (`1.0%<byte>@<path>` -> `1.0`)."""
    return f"split_part(split_part({alias}.steps, '#', 1), '%', 1)"


def _callback(steps: str, expr: str, path: str) -> str:
    """SQL: (path, expr) of the state a callee's row (`expr`, in the file `path`) gives for the callback
    parameter named by the first of `steps`. A recipe `%sources` (the parameter is one of the callee's type
    parameters) goes back to the call site's file, to the call's context that the step's `%<byte>@<path>`
    names (a `%` head, read by `offered`)."""
    key = f"split_part(split_part({steps}, '#', 1), '%', 2)"
    recipe = f"left({expr}, 1) = '%' AND {key} <> ''"
    at = f"CASE WHEN {recipe} THEN {expr} || '!' || split_part({key}, '@', 1) ELSE {expr} END"
    where = f"CASE WHEN {recipe} THEN substr({key}, strpos({key}, '@') + 1) ELSE {path} END"
    return f"{where} AS path, {at} AS expr"


_COLS = "rid, path, mk, nm, steps, cls, selfc, via, enc"
Step = tuple[tuple[str | None, str], ...]  # (guard, statement): the statement runs where `ts` holds its guard

_ARM_EXPR = (
    "CASE WHEN r.fam <> 'js' THEN r.receiver_type WHEN a.k IS NULL THEN ltrim(r.receiver_type, '!')"
    " ELSE split_part(ltrim(r.receiver_type, '!'), ';', a.k) END"
)
# A TypeScript conditional's arms (`a;b`, code-scan's `arms_type`) are evaluated apart, each as a reference
# of its own (`arms`: the rid -(4 * rid + k) for arm k), and compared after (`_ARMS_JOINED`).
_START = f"""
CREATE OR REPLACE TEMP TABLE arms AS
SELECT r.rid, -(4 * r.rid + k.k) AS arm, k.k FROM pending r, (VALUES (1), (2)) k(k)
WHERE r.fam = 'js' AND strpos(r.receiver_type, ';') > 0;
CREATE OR REPLACE TEMP TABLE ts AS
SELECT coalesce(a.arm, r.rid) AS rid, r.path,
       {_parse(_ARM_EXPR, "''")},
       NULL::VARCHAR AS cls, CASE WHEN p.kind IN ('method', 'function') THEN p.parent ELSE e.parent END AS selfc,
       0 AS via, r.enclosing AS enc
FROM pending r LEFT JOIN arms a ON a.rid = r.rid
LEFT JOIN syms e ON e.id = r.enclosing LEFT JOIN symbols p ON p.id = e.parent
WHERE r.receiver_type IS NOT NULL;
-- TypeScript receivers a narrowing may pick a union's parts of (code-scan marks their type `!`)
CREATE OR REPLACE TEMP TABLE narrowed AS SELECT rid FROM pending WHERE fam = 'js' AND starts_with(receiver_type, '!')
"""


def _holds_fixtures(path: str) -> str:
    """SQL: the file `path` may give the `@` state `e` its fixture: `e`'s own file (not for `<nm`) or a
    conftest.py in a directory at or above it."""
    return (
        f"(({path} = e.path AND NOT starts_with(e.nm, '<')) OR ({path} <> e.path AND ({path} = 'conftest.py'"
        f" OR (ends_with({path}, '/conftest.py') AND starts_with(e.path, left({path}, length({path}) - 11))))))"
    )


def _as_written(steps: str, expr: str, path: str) -> str:
    """`_callback` where no call states a context: the callee's row as it is."""
    return f"{path} AS path, {expr} AS expr"


_OFFERED = """-- `%sources!byte`: what the call at byte (rows of its file) states, from the first kind of source it has,
-- in the compiler's order: an explicit type argument, else the arguments (all that the call passes must
-- agree; `u<k>`, an inference not followed, with argument k there gives nothing), else the declared type
offered AS (
  SELECT e.rid, e.path, e.nm, e.steps, e.selfc, e.via, c.expr, starts_with(src.s, 'u') AS unknown,
         CASE left(src.s, 1) WHEN 't' THEN 0 WHEN 'r' THEN 2 ELSE 1 END AS g
  FROM (SELECT * FROM e WHERE mk = '%') e, unnest(string_split(split_part(e.nm, '!', 1), ',')) AS src(s)
  JOIN calls c ON c.path = e.path
   AND c.name = '%' || split_part(e.nm, '!', 2) || '.' || regexp_replace(src.s, '^u', 'a')
  QUALIFY g = min(g) OVER (PARTITION BY e.rid, e.path, e.nm, e.steps)
),
decided AS (
  SELECT rid, path, steps, any_value(selfc) AS selfc, any_value(via) AS via, any_value(expr) AS expr
  FROM offered GROUP BY rid, path, nm, steps
  HAVING count(DISTINCT expr) = 1 AND NOT bool_or(unknown) AND any_value(expr) <> '?'
)"""
_DECIDED = f"""UNION ALL
-- a callee's type parameter, as the call instantiates it: read in the call's file
SELECT o.rid, o.path, {_parse("o.expr", "o.steps")}, NULL, o.selfc, greatest(o.via, 4), NULL FROM decided o
"""


# One hop of every open expression in `ts` into `nx`; `_step(True)` also instantiates callees' type parameters
# from their calls' context (TypeScript), left out where no call states any (it costs each round a little).
def _step(instantiate: bool) -> Step:
    cb = _callback if instantiate else _as_written
    _INSTANTIATE = f",\n{_OFFERED}" if instantiate else ""
    _INSTANTIATED = _DECIDED if instantiate else ""
    head = f"""
WITH RECURSIVE
e AS (SELECT * FROM ts WHERE cls IS NULL),
c AS (SELECT * FROM ts WHERE cls IS NOT NULL AND steps <> ''),
named AS (
  -- (a Go name: any file of the package, the directory)
  SELECT e.*, s.id AS sid, s.kind AS skind, s.path AS spath FROM e
  -- (`=f?<class>`: f called with an argument of that class, which picks among f's overloads)
  JOIN symbols s ON s.path = e.path AND s.name = split_part(e.nm, '?', 1) AND (s.parent IS NULL OR s.parent = e.enc)
  WHERE e.mk IN ('', '=', '^', '&')
   -- (the enclosing function's own definition of the name shadows the module's: `class Cached` in a test)
   AND (s.parent IS NOT NULL OR e.enc IS NULL
        OR NOT EXISTS (SELECT 1 FROM symbols t WHERE t.path = e.path AND t.name = split_part(e.nm, '?', 1)
                       AND t.parent = e.enc))
  UNION ALL
  -- (Python: a class nested in a class of the file, `Outer._Link`)
  SELECT e.*, s.id, s.kind, s.path FROM e
  JOIN symbols s ON s.path = e.path AND s.qualname = e.nm AND s.kind = 'class' AND s.parent IS NOT NULL
  WHERE e.mk IN ('', '=') AND strpos(e.nm, '.') > 0 AND (ends_with(e.path, '.py') OR ends_with(e.path, '.pyi'))
  UNION ALL
  SELECT g.* EXCLUDE (edir), s.id, s.kind, s.path FROM (
    SELECT e.*, regexp_extract(e.path, '^(.*)/', 1) AS edir FROM e WHERE e.mk IN ('', '=', '^')
  ) g
  JOIN symbols s ON s.name = g.nm AND s.fam = 'go' AND s.parent IS NULL AND s.path <> g.path
   AND regexp_extract(s.path, '^(.*)/', 1) = g.edir
),
mro(rid, cls, steps, selfc, via, anc, d) AS (
  SELECT rid, cls, steps, selfc, via, cls, 0 FROM c
  UNION ALL
  SELECT m.rid, m.cls, m.steps, m.selfc, m.via, i.dst, m.d + 1 FROM mro m JOIN inh i ON i.src = m.anc
  WHERE m.d < {INHERIT_DEPTH} AND i.confidence <> 'name-only'
),
member AS (
  -- `K#attr...`: a stated attribute of K or a base; `K#m()...` (or a property): the method's result.
  SELECT m.rid, y.path, y.expr, substr(m.steps, length(split_part(m.steps, '#', 1)) + 2) AS rest, m.cls AS selfc,
         m.via, m.d, m.cls, m.steps AS src_steps FROM mro m
  JOIN types y ON y.owner = m.anc AND y.name = split_part(m.steps, '#', 1)
  UNION ALL
  -- (TypeScript `class K extends Base<A>`, Base's field `f: P` of its type parameter P (the row `<f`, P's
  -- index): in K, f is the argument A (K's row `<0`, read in K's file), one depth nearer than Base's constraint
  -- row so `nearest` picks it; a field K declares itself decides instead)
  SELECT m.rid, z.path, z.expr, substr(m.steps, length(split_part(m.steps, '#', 1)) + 2), m.cls,
         greatest(m.via, 2), 0, m.cls, m.steps FROM mro m
  JOIN types p ON p.owner = m.anc AND p.name = '<' || split_part(m.steps, '#', 1)
  JOIN types z ON z.owner = m.cls AND z.name = '<' || p.expr
  WHERE m.d = 1 AND NOT EXISTS (SELECT 1 FROM types w WHERE w.owner = m.cls AND w.name = split_part(m.steps, '#', 1))
  UNION ALL
  -- (Python `k.attr()` where `attr` is a class's attribute holding an instance, `integer = Word(...)`, not a
  -- method: its class's `__call__`, as a checker reads it; a row `attr()` (a class object held) decides first)
  SELECT m.rid, y.path, y.expr,
         '__call__()' || CASE WHEN strpos(m.steps, '#') > 0 THEN '#' || {_REST.format("m")} ELSE '' END,
         m.cls, m.via, m.d, m.cls, m.steps FROM mro m
  JOIN types y ON y.owner = m.anc AND y.name = left(split_part(m.steps, '#', 1), -2)
  WHERE ends_with(split_part(m.steps, '#', 1), '()') AND (ends_with(y.path, '.py') OR ends_with(y.path, '.pyi'))
   AND NOT EXISTS (SELECT 1 FROM types z WHERE z.owner = m.anc AND z.name = split_part(m.steps, '#', 1))
  UNION ALL
  -- (Python `await k.m()`, the step `m()await`: the method's `await` row, what awaiting its result gives;
  -- `a, b = k.m()`, the steps `m()#[i]`: its row `[i]`, the item of the tuple it states or returns)
  SELECT m.rid, s.path, y.expr,
         CASE WHEN {_ITEM.format(_SECOND)} AND ends_with(split_part(m.steps, '#', 1), '()')
              THEN substr(m.steps, length(split_part(m.steps, '#', 1)) + length({_SECOND}) + 3)
              ELSE substr(m.steps, length(split_part(m.steps, '#', 1)) + 2) END, m.cls,
         greatest(m.via, 2), m.d, m.cls, m.steps FROM mro m
  JOIN symbols s ON s.parent = m.anc AND s.kind IN ('method', 'function')
   AND s.name = regexp_replace(regexp_replace(split_part(m.steps, '#', 1), '\\(\\)(await)?$', ''), '^~', '#')
  JOIN types y ON y.owner = s.id
   AND y.name IS NOT DISTINCT FROM (CASE WHEN ends_with(split_part(m.steps, '#', 1), '()await') THEN 'await'
                                         WHEN {_ITEM.format(_SECOND)} AND ends_with(split_part(m.steps, '#', 1), '()')
                                         THEN {_SECOND} END)
  UNION ALL
  -- (Python: a method a nearer class defines hides its bases' results even when nothing states its own, as a
  -- checker reads the override: a row with no expression, dropped after `nearest` picks the nearest depth)
  SELECT m.rid, s.path, NULL, '', m.cls, m.via, m.d, m.cls, m.steps FROM mro m
  JOIN symbols s ON s.parent = m.anc AND s.kind IN ('method', 'function')
   AND s.name = regexp_replace(regexp_replace(split_part(m.steps, '#', 1), '\\(\\)(await)?$', ''), '^~', '#')
  WHERE regexp_matches(split_part(m.steps, '#', 1), '\\(\\)(await)?$')
   AND (ends_with(s.path, '.py') OR ends_with(s.path, '.pyi'))
  UNION ALL
  -- (Python `x += y`, the step `__iadd__()`: where neither K nor a base defines `__iadd__`, a checker reads
  -- `x = x + y`: `__add__`'s result, found below every in-place definition's depth, whose row or blocker
  -- above wins in `nearest` where there is one)
  SELECT m.rid, s.path, y.expr, substr(m.steps, length(split_part(m.steps, '#', 1)) + 2), m.cls,
         m.via, m.d + {INHERIT_DEPTH + 1}, m.cls, m.steps FROM mro m
  JOIN symbols s ON s.parent = m.anc AND s.kind IN ('method', 'function')
   AND s.name = '__' || regexp_extract(split_part(m.steps, '#', 1), '^__i({_IN_PLACE})__\\(\\)$', 1) || '__'
  JOIN types y ON y.owner = s.id AND y.name IS NULL
  WHERE starts_with(m.steps, '__i') AND regexp_matches(split_part(m.steps, '#', 1), '^__i({_IN_PLACE})__\\(\\)$')
  UNION ALL
  -- TypeScript `K#m&i.j`: parameter j of the callback passed as argument i of K's method m (m's signature);
  -- `K#m&p.j`: parameter j of K's method m itself, which a function written for m in an object literal of
  -- type K takes (code-scan's `&p.j` rows)
  SELECT m.rid, s.path, y.expr, substr(m.steps, length(split_part(m.steps, '#', 1)) + 2), m.cls,
         greatest(m.via, 4), m.d, m.cls, m.steps FROM mro m
  JOIN symbols s ON s.parent = m.anc AND s.kind IN ('method', 'function')
   AND s.name = regexp_replace(split_part(split_part(m.steps, '#', 1), '&', 1), '^~', '#')
  JOIN types y ON y.owner = s.id AND y.name = '&' || split_part({_first("m")}, '&', 2)
  WHERE strpos(split_part(m.steps, '#', 1), '&') > 0
  UNION ALL
  -- ... and of K's function-typed field m (`code: (cxt: C) => void`), the states that step so read first (a
  -- join of every state with the fields too held more than a small memory cap: test_bounded_resolution)
  SELECT m.rid, s.path, y.expr, substr(m.steps, length(split_part(m.steps, '#', 1)) + 2), m.cls,
         greatest(m.via, 4), m.d, m.cls, m.steps
  FROM (SELECT * FROM mro WHERE strpos(split_part(steps, '#', 1), '&p.') > 0) m
  JOIN symbols s ON s.parent = m.anc AND s.kind = 'field' AND s.name = split_part(split_part(m.steps, '#', 1), '&', 1)
  JOIN types y ON y.owner = s.id AND y.name = '&' || split_part({_first("m")}, '&', 2)
  UNION ALL
  -- Go: a method in another file of the type's package (no parent link across files)
  SELECT g.rid, s.path, y.expr, substr(g.steps, length(split_part(g.steps, '#', 1)) + 2), g.cls,
         greatest(g.via, 2), g.d, g.cls, g.steps FROM (
    SELECT m.*, k.name || '.' || regexp_replace(split_part(m.steps, '#', 1), '\\(\\)$', '') AS qn,
           k.path AS kpath, regexp_extract(k.path, '^(.*)/', 1) AS kdir
    FROM mro m JOIN symbols k ON k.id = m.anc AND k.fam = 'go'
  ) g
  JOIN symbols s ON s.qualname = g.qn AND s.fam = 'go' AND s.kind = 'method' AND s.path <> g.kpath
   AND regexp_extract(s.path, '^(.*)/', 1) = g.kdir
  JOIN types y ON y.owner = s.id AND y.name IS NULL
),
nearest AS (
  SELECT rid, rest, selfc, via, {cb("src_steps", "expr", "path")} FROM member
  QUALIFY d = min(d) OVER (PARTITION BY rid, cls, src_steps)
),
-- the callee's row for a callback's parameter: `&f#i.j` (f's signature, or K's constructor's), `K#m&i.j`
called AS (
  SELECT n.rid, n.selfc, greatest(n.via, 4) AS via, {_REST.format("n")} AS rest,
         {cb("n.steps", "y.expr", "n.spath")}
  FROM named n
  JOIN types y ON y.owner = n.sid AND y.name = '&' || {_first("n")}
  WHERE n.mk = '&' AND n.skind = 'function'
  UNION ALL
  SELECT n.rid, n.selfc, greatest(n.via, 4), {_REST.format("n")}, {cb("n.steps", "y.expr", "n.spath")}
  FROM named n
  JOIN symbols k ON k.parent = n.sid AND k.name = 'constructor' AND k.kind = 'method'
  JOIN types y ON y.owner = k.id AND y.name = '&' || {_first("n")}
  WHERE n.mk = '&' AND n.skind IN {_TYPE_KINDS}
){_INSTANTIATE}
"""
    body = f"""
-- a class named in the file (its own, or one in the enclosing function): an instance of it; the value of a
-- class's name is the class (its methods are what `K.m()` calls; an interface of that name is no value); the
-- value of a TypeScript object-literal const with methods (code-scan makes them its members) is that object, as
-- the value of a TypeScript namespace's name is the namespace (`ValueConverter.convertString()` in its file)
SELECT rid, path, mk, nm, steps, sid AS cls, selfc, via, enc FROM named
WHERE (mk IN ('', '=') AND skind IN {_TYPE_KINDS}) OR (mk = '^' AND skind = 'class')
 OR (mk = '^' AND skind IN ('variable', 'constant') AND EXISTS (SELECT 1 FROM symbols o WHERE o.parent = sid))
 OR (mk = '^' AND skind = 'module' AND regexp_matches(spath, '\\.[cm]?tsx?$'))
UNION ALL
-- a call of a function of the file: its result, read in its file (`=f?<class>`: the result of the overload
-- an argument of that class picks, a `?<class>` row, where the overloads' results differ), in the function's
-- scope (`def f(): class K: ...; return K()`: the class f defines)
-- (Python `a, b = f()`, the first step `[i]`: f's row `[i]`, the item of the tuple it states or returns)
SELECT n.rid, n.spath, {_parse("y.expr", _ITEM_REST)}, NULL, n.selfc, greatest(n.via, 2), n.sid FROM named n
JOIN types y ON y.owner = n.sid AND CASE WHEN {_ITEM.format("n.steps")} THEN y.name = {_first("n")}
 ELSE (y.name IS NULL OR y.name = '?' || split_part(n.nm, '?', 2)) END
WHERE n.mk = '=' AND n.skind = 'function'
UNION ALL
-- `&f#i.j`: parameter j of the callback passed as argument i of f (f's signature), or of K's constructor
SELECT c.rid, c.path, {_parse("c.expr", "c.rest")}, NULL, c.selfc, c.via, NULL FROM called c
{_INSTANTIATED}UNION ALL
-- an element of an array `K[]`: a K, named in the same file
SELECT rid, path, '', left(nm, length(nm) - 2), {_REST.format("e")}, NULL, selfc, via, enc FROM e
WHERE mk = '' AND strpos(nm, '|') = 0 AND ends_with(nm, '[]') AND {_first("e")} IN ({_ELEMENT_LIST})
UNION ALL
SELECT rid, path, '', nm, {_REST.format("e")}, NULL, selfc, via, enc FROM e
WHERE mk = '' AND strpos(nm, '|') = 0 AND ends_with(nm, '[]') AND {_first("e")} IN ({_SAME_ARRAY_LIST})
UNION ALL
-- a value of a map `K{{}}`: a K, named in the same file; its values: `K[]`
SELECT rid, path, '', left(nm, length(nm) - 2), {_REST.format("e")}, NULL, selfc, via, enc FROM e
WHERE mk = '' AND strpos(nm, '|') = 0 AND ends_with(nm, '{{}}') AND {_first("e")} IN ({_MAP_VALUE_LIST})
UNION ALL
SELECT rid, path, '', left(nm, length(nm) - 2) || '[]', {_REST.format("e")}, NULL, selfc, via, enc FROM e
WHERE mk = '' AND strpos(nm, '|') = 0 AND ends_with(nm, '{{}}') AND {_first("e")} IN ('values()', 'values{{}}')
UNION ALL
-- `entries()`: a map's [key, value] pairs, an array's [index, element], a Set's [element, element]: for the
-- second item (`of[1]`) each is read as a map of those values
SELECT rid, path, '', left(nm, length(nm) - 2) || '{{}}', {_REST.format("e")}, NULL, selfc, via, enc FROM e
WHERE mk = '' AND strpos(nm, '|') = 0 AND (ends_with(nm, '{{}}') OR ends_with(nm, '[]'))
 AND {_first("e")} IN ('entries()', 'entries{{}}')
 AND split_part({_REST.format("e")}, '#', 1) = 'of[1]'
UNION ALL
-- a module-level name of the file: its stated or constructed type (in Python also a name written like a
-- class that is an instance: `DEFAULT.get()`, `_tracing.DEFAULT.get()` with `DEFAULT = TagTracer()`; and a
-- decorated function's name as a value, `@generate def number(): ...`: what `generate(...)` makes)
SELECT n.rid, n.spath, {_parse("y.expr", "n.steps")}, NULL, n.selfc, greatest(n.via, 1), NULL FROM named n
JOIN types y ON y.path = n.spath AND y.owner IS NULL AND y.name = n.nm
WHERE (n.mk = '^' OR (n.mk = '' AND (ends_with(n.spath, '.py') OR ends_with(n.spath, '.pyi'))))
 AND (n.skind IN ('variable', 'constant') OR (n.mk = '^' AND n.skind = 'function'))
UNION ALL
-- Python: calling a module-level alias (`Optional = Opt`, `countedArray = counted_array`): its `name()` row,
-- the class's constructor or the function's result
SELECT n.rid, n.spath, {_parse("y.expr", "n.steps")}, NULL, n.selfc, greatest(n.via, 1), NULL FROM named n
JOIN types y ON y.path = n.spath AND y.owner IS NULL AND y.name = split_part(n.nm, '?', 1) || '()'
WHERE n.mk = '=' AND n.skind IN ('variable', 'constant') AND (ends_with(n.spath, '.py') OR ends_with(n.spath, '.pyi'))
UNION ALL
-- Python: calling a module-level name bound to a generic identity's call (`countedArray =
-- replaced_by_pep8("countedArray", counted_array)`, `def replaced_by_pep8(name, fn: C) -> C`): calling the
-- argument it passes (`identity_fns`: the identities each file defines or imports by name, and their position)
SELECT n.rid, n.spath, '=', regexp_extract(y.expr, '\\)(\\w+)$', 1), n.steps, NULL, n.selfc, greatest(n.via, 1), NULL
FROM named n
JOIN types y ON y.path = n.spath AND y.owner IS NULL AND y.name = '=' || split_part(n.nm, '?', 1)
 AND regexp_matches(y.expr, '^\\w+\\(\\d+\\)\\w+$')
JOIN identity_fns d ON d.path = n.spath AND d.alias = regexp_extract(y.expr, '^(\\w+)\\(', 1)
 AND d.k = regexp_extract(y.expr, '\\((\\d+)\\)', 1)
WHERE n.mk = '=' AND n.skind IN ('variable', 'constant') AND (ends_with(n.spath, '.py') OR ends_with(n.spath, '.pyi'))
UNION ALL
-- a name the file imports (`from m import x as nm`): the same name in the imported file; a default import
-- (`import AjvCore from './core'`): the module's default export (code-scan's `*default` row)
SELECT e.rid, i.target_path, e.mk,
       CASE WHEN i.name = 'default' THEN coalesce(d.expr, i.name) ELSE i.name END
       || CASE WHEN strpos(e.nm, '?') > 0 THEN '?' || split_part(e.nm, '?', 2) ELSE '' END,
       e.steps, NULL, e.selfc, e.via, NULL FROM e
JOIN imports i ON i.path = e.path AND i.target_kind = 'name' AND i.alias = split_part(e.nm, '?', 1)
 AND i.target_path IS NOT NULL
 AND i.target_path <> e.path
LEFT JOIN types d ON i.name = 'default' AND d.path = i.target_path AND d.owner IS NULL AND d.name = '*default'
WHERE e.mk IN ('', '=', '^', '&')
UNION ALL
-- Python `from pkg import x` where pkg/x.py is a module and pkg/__init__.py rebinds x by importing it by name
-- (`from pkg.x import x`, plumbum's `local = LocalMachine()` re-exported): `from` reads the package's
-- attribute, the name the __init__ bound last, not the submodule
SELECT e.rid, p.target_path, e.mk,
       p.name || CASE WHEN strpos(e.nm, '?') > 0 THEN '?' || split_part(e.nm, '?', 2) ELSE '' END,
       e.steps, NULL, e.selfc, e.via, NULL FROM e
JOIN imports i ON i.path = e.path AND i.target_kind = 'module' AND i.alias = split_part(e.nm, '?', 1)
 AND i.target_path IS NOT NULL AND NOT ends_with(i.target_path, '/__init__.py')
JOIN imports p ON p.path = regexp_replace(i.target_path, '/[^/]+$', '/__init__.py') AND p.alias = i.name
 AND p.target_kind = 'name' AND p.target_path IS NOT NULL AND p.target_path <> p.path
WHERE e.mk IN ('', '=', '^', '&') AND (ends_with(e.path, '.py') OR ends_with(e.path, '.pyi'))
UNION ALL
-- `mod.x` with `import mod` (or `import a.mod`): x in that module
SELECT e.rid, i.target_path, e.mk, substr(e.nm, length(i.alias) + 2), e.steps, NULL, e.selfc, e.via, NULL FROM e
JOIN imports i ON i.path = e.path AND i.target_kind = 'module' AND starts_with(e.nm, i.alias || '.')
 AND i.target_path IS NOT NULL
WHERE e.mk IN ('', '=', '^', '&') AND strpos(substr(e.nm, length(i.alias) + 2), '.') = 0
UNION ALL
-- Python `m.x...` / `m.f()...` where `m` names a module the file imports (`from . import m`, `import m`):
-- `x` or `f`'s result in that module
-- (`await m.f()`: f's result, as an `async def`'s reads)
SELECT e.rid, i.target_path, CASE WHEN regexp_matches({_first("e")}, '\\(\\)(await)?$') THEN '=' ELSE '^' END,
       regexp_replace({_first("e")}, '\\(\\)(await)?$', ''), {_REST.format("e")}, NULL, e.selfc, e.via, NULL FROM e
JOIN imports i ON i.path = e.path AND i.target_kind = 'module' AND i.alias = e.nm AND i.target_path IS NOT NULL
WHERE e.mk IN ('', '^') AND e.steps <> '' AND regexp_matches({_first("e")}, '^[A-Za-z_]\\w*(\\(\\)(await)?)?$')
 AND (ends_with(e.path, '.py') OR ends_with(e.path, '.pyi'))
UNION ALL
-- a name a star import brings (`from .globals import *`, `export * from './x'`): only into a file that
-- defines it, imports it from a third file, or re-exports further (a barrel's modules import from the
-- barrel: following those back would go round in circles until MAX_ROUNDS)
SELECT e.rid, i.target_path, e.mk, e.nm, e.steps, NULL, e.selfc, e.via, NULL FROM e
JOIN imports i ON i.path = e.path AND i.name = '*' AND i.target_path IS NOT NULL AND i.target_path <> e.path
WHERE e.mk IN ('', '=', '^', '&') AND strpos(e.nm, '.') = 0
 AND (EXISTS (SELECT 1 FROM symbols s WHERE s.path = i.target_path AND s.name = split_part(e.nm, '?', 1)
              AND s.parent IS NULL)
      OR EXISTS (SELECT 1 FROM imports x WHERE x.path = i.target_path AND (x.name = '*' OR
                 (x.alias = split_part(e.nm, '?', 1) AND x.target_path IS NOT NULL AND x.target_path <> e.path))))
UNION ALL
-- the pytest fixture `nm` (its `@nm` row: `@pytest.fixture(name=...)` renames the function), as pytest finds
-- it: a fixture method of the test's class (or of a base of it), else one the file defines or imports
-- (`from .fixtures import *`), else the nearest conftest.py above it that does; `<nm` (a fixture requesting
-- the name it overrides) skips the file
SELECT rid, path, mk, nm, steps, cls, selfc, via, enc FROM (
  SELECT e.rid, y.path, {_parse("y.expr", "e.steps")}, NULL AS cls, e.selfc, 3 AS via, NULL AS enc,
         CASE WHEN f.parent IS NOT NULL THEN 200000 WHEN y.path = e.path THEN 100000 ELSE length(y.path) END
           AS near, e.path AS ep, e.nm AS en, e.steps AS es FROM e
  JOIN types y ON y.name = '@' || ltrim(e.nm, '<') AND y.owner IS NOT NULL AND {_holds_fixtures("y.path")}
  JOIN symbols f ON f.id = y.owner AND (f.parent IS NULL OR (f.parent = e.selfc AND f.path = e.path))
  WHERE e.mk = '@'
  UNION ALL
  -- (a fixture method of a base of the test's class: pytest collects it for the subclass's tests too)
  SELECT e.rid, y.path, {_parse("y.expr", "e.steps")}, NULL, e.selfc, 3, NULL, 150000, e.path, e.nm, e.steps
  FROM e
  JOIN inh i ON i.src = e.selfc AND i.confidence <> 'name-only'
  JOIN symbols f ON f.parent = i.dst AND f.kind IN ('method', 'function')
  JOIN types y ON y.owner = f.id AND y.name = '@' || ltrim(e.nm, '<')
  WHERE e.mk = '@' AND e.selfc IS NOT NULL
  UNION ALL
  SELECT e.rid, y.path, {_parse("y.expr", "e.steps")}, NULL, e.selfc, 3, NULL,
         CASE WHEN i.path = e.path THEN 100000 ELSE length(i.path) END, e.path, e.nm, e.steps FROM e
  JOIN imports i ON i.target_path IS NOT NULL AND i.target_path <> i.path AND {_holds_fixtures("i.path")}
   AND ((i.target_kind = 'name' AND i.alias = ltrim(e.nm, '<')) OR i.name = '*')
  JOIN types y ON y.path = i.target_path AND y.owner IS NOT NULL
   AND y.name = '@' || CASE WHEN i.name = '*' THEN ltrim(e.nm, '<') ELSE i.name END
  JOIN symbols f ON f.id = y.owner AND f.parent IS NULL
  WHERE e.mk = '@'
) QUALIFY near = max(near) OVER (PARTITION BY rid, ep, en, es)
UNION ALL
-- `Self`: the class the expression is read for
SELECT rid, path, '', '', steps, selfc, selfc, via, NULL FROM e WHERE mk = 'S' AND selfc IS NOT NULL
UNION ALL
SELECT n.rid, n.path, {_parse("n.expr", "n.rest")}, NULL, n.selfc, n.via, NULL FROM nearest n
WHERE n.expr IS NOT NULL
"""
    return _by_branch(head, body)


# A step's statement with the open states it can start from: run only where `ts` holds one (each statement
# costs its scans of `symbols` and `types`, ~10-20 ms, also over no states: a slice without pytest fixtures
# or without states that walk a class's members needs none of their branches).
_GUARDS = {
    "nearest": "cls IS NOT NULL AND steps <> ''",  # `c`: a class's member (`mro`, `member`, `nearest`)
    "called": "cls IS NULL AND mk = '&'",  # a callback's parameter
    "decided": "cls IS NULL AND mk = '%'",  # a callee's type parameter, instantiated
    "fixture": "cls IS NULL AND mk = '@'",  # a pytest fixture (the branch reads `e` only where `e.mk = '@'`)
    # a call of a name that may be bound to a generic identity's call (only where some file has an identity)
    "identity": "cls IS NULL AND mk = '=' AND (SELECT count(*) FROM identity_fns) > 0",
}


def _by_branch(head: str, body: str) -> Step:
    """`nx` filled one branch of `body`'s top-level UNION ALL at a time, each with the CTEs of `head` it reads
    (DuckDB parses and binds every CTE of a statement, read or not: ~10 KB of SQL per branch cost more than most
    branches' work). As one statement, every branch's hash tables and the CTEs they share were held at once and
    could not spill: the stdlib's first round failed under a 100 MB cap (and a ~46k-file build's resolution
    under its 512 MB). `named` (the open states' names looked up in their files), which six branches read, is
    made once per hop (a slice's rows: a few per state) instead of once per branch. The rows are the same;
    their order does not matter (`ts` is `nx EXCEPT seen`)."""
    ctes = sql_ctes.split_with(head)
    made_once = [(name, "named AS (SELECT * FROM hop_named)" if name == "named" else sql) for name, sql in ctes]
    named = f"CREATE OR REPLACE TEMP TABLE hop_named AS {sql_ctes.with_needed(ctes, 'FROM named')}SELECT * FROM named"
    step: list[tuple[str | None, str]] = [(None, named)]
    for branch in (b.strip() for b in body.split("\nUNION ALL\n")):
        with_ = sql_ctes.with_needed(made_once, branch)
        guard = next((g for g in ("nearest", "called", "decided") if f"\n{g} AS (" in f"\n{with_}"), None)
        if guard is None and "WHERE e.mk = '@'" in branch:
            guard = "fixture"
        if guard is None and "identity_fns" in branch:
            guard = "identity"
        step.append((guard, f"INSERT INTO nx {with_}{branch}"))
    return tuple(step)


def _run_step(con: Any, step: Step) -> None:
    """The step's statements whose guard some state of `ts` holds."""
    guards = sorted({guard for guard, _ in step if guard is not None})
    held = con.execute(f"SELECT {', '.join(f'count(*) FILTER (WHERE {_GUARDS[g]}) > 0' for g in guards)} FROM ts")
    holds = dict(zip(guards, held.fetchone(), strict=True))
    for guard, statement in step:
        if guard is None or holds[guard]:
            con.execute(statement)


_STEP = _step(instantiate=True)
_STEP_PLAIN = _step(instantiate=False)


# A union `A|B` (TypeScript) is read member by member (`^K`: the class K's value, `(a ?? K).m()`). The
# compiler accepts `u.m()` only when every member of `u`'s type there has `m`: members without it were
# narrowed away before the call (`Array.isArray`, a type guard), and the call is each remaining member's `m`.
# So the reference keeps the classes that have the method (themselves or a base) when every member gave a
# class or interface, and at least one has it; a member that gave nothing, or a type alias without the method
# (`type U = Set<T> | T[]`, members the index does not know), could be the one called: then it stays a
# name-only candidate.
_SPLIT_UNIONS = f"""
INSERT INTO unions
SELECT rid, len(list_distinct(string_split(regexp_replace(nm, '(\\[\\]|\\{{\\}})(\\||$)', '\\2', 'g'), '|')))
FROM ts WHERE cls IS NULL AND mk = '' AND strpos(nm, '|') > 0;
CREATE OR REPLACE TEMP TABLE ts AS
SELECT rid, path, CASE WHEN left(p, 1) = '^' THEN '^' ELSE mk END AS mk, ltrim(p, '^') AS nm, steps, cls, selfc,
 via, enc
FROM (SELECT *, unnest(string_split(nm, '|')) AS p FROM ts WHERE cls IS NULL AND mk = '' AND strpos(nm, '|') > 0)
UNION ALL
SELECT {_COLS} FROM ts WHERE NOT (cls IS NULL AND mk = '' AND strpos(nm, '|') > 0)
"""
# An intersection `A+B` (TypeScript `A & B`, code-scan's `ts_type`) is read part by part: a member is the
# part's that declares it, so a part that gives nothing for the steps takes nothing from the others.
_SPLIT_MEETS = f"""
CREATE OR REPLACE TEMP TABLE ts AS
SELECT rid, path, mk, unnest(string_split(nm, '+')) AS nm, steps, cls, selfc, via, enc FROM ts
WHERE cls IS NULL AND mk = '' AND strpos(nm, '+') > 0
UNION ALL
SELECT {_COLS} FROM ts WHERE NOT (cls IS NULL AND mk = '' AND strpos(nm, '+') > 0)
"""
_WHOLE_UNIONS = f"""
CREATE OR REPLACE TEMP TABLE union_bad AS
WITH RECURSIVE
u AS (SELECT rid, any_value(n) AS n FROM unions GROUP BY rid HAVING count(*) = 1),
got AS (
  SELECT DISTINCT d.rid, d.cls, r.symbol_name, k.kind FROM done d JOIN u USING (rid) JOIN pending r USING (rid)
  JOIN symbols k ON k.id = d.cls
),
up(rid, cls, anc, name, depth) AS (
  SELECT rid, cls, cls, symbol_name, 0 FROM got
  UNION ALL
  SELECT up.rid, up.cls, i.dst, up.name, up.depth + 1 FROM up JOIN inh i ON i.src = up.anc
  WHERE up.depth < {INHERIT_DEPTH} AND i.confidence <> 'name-only'
),
has AS (SELECT DISTINCT up.rid, up.cls FROM up JOIN symbols s ON s.parent = up.anc AND s.name = up.name),
judged AS (
  SELECT g.rid, count(*) AS n_got, count(h.cls) AS n_has,
         count(*) FILTER (WHERE h.cls IS NULL AND g.kind NOT IN ('class', 'interface', 'struct')) AS n_unknown
  FROM got g LEFT JOIN has h ON h.rid = g.rid AND h.cls = g.cls GROUP BY g.rid
)
SELECT rid FROM unions GROUP BY rid HAVING count(*) > 1
UNION
SELECT u.rid FROM u LEFT JOIN judged j USING (rid)
WHERE coalesce(j.n_got, 0) < u.n OR j.n_has = 0 OR j.n_unknown > 0
"""

# Python's unions (code-scan's joined returns, `return A(...)` / `return B(...)`): a checker calls each member's
# method, so the call is certain only when every member finds it, and in one class, the nearest up its bases
# (`Transformed`, `Restreamed` both inheriting `Construct.compile`); an override in one member (two classes) or a
# member without it leaves the call a name-only candidate.
_PY_UNIONS = f"""
CREATE OR REPLACE TEMP TABLE py_union_bad AS
WITH RECURSIVE
parts AS (
  SELECT DISTINCT d.rid, d.cls, r.symbol_name AS name FROM done d JOIN pending r USING (rid)
  WHERE r.fam = 'python' AND d.rid IN (SELECT rid FROM unions)
),
up(rid, cls, anc, name, depth) AS (
  SELECT rid, cls, cls, name, 0 FROM parts
  UNION ALL
  SELECT up.rid, up.cls, i.dst, up.name, up.depth + 1 FROM up JOIN inh i ON i.src = up.anc
  WHERE up.depth < {INHERIT_DEPTH} AND i.confidence <> 'name-only'
),
found AS (SELECT up.rid, up.cls, up.anc, up.depth FROM up JOIN symbols s ON s.parent = up.anc AND s.name = up.name),
nearest AS (SELECT rid, cls, anc FROM found QUALIFY depth = min(depth) OVER (PARTITION BY rid, cls))
SELECT p.rid FROM parts p LEFT JOIN nearest n ON n.rid = p.rid AND n.cls = p.cls
GROUP BY p.rid HAVING count(n.cls) < count(*) OR count(DISTINCT n.anc) > 1
"""


def _hop(con: Any, step: Step) -> None:
    """`ts` becomes the states one hop on that were not seen before (`nx EXCEPT seen`), computed a slice of
    references at a time (`rid_slices`: every join, window and grouping of a hop, and the comparison with
    `seen`, is within one `rid`), so a round holds one slice's hash tables instead of all of them."""
    slices = list(rid_slices.ranges(con, "ts"))
    if len(slices) == 1:
        con.execute(f"CREATE OR REPLACE TEMP TABLE nx AS SELECT {_COLS} FROM ts LIMIT 0")
        _run_step(con, step)
        # (`seen` of these references only: all of it, the whole build's states, was a hash table over the cap)
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE ts AS SELECT {_COLS} FROM nx"
            f" EXCEPT SELECT {_COLS} FROM seen WHERE rid IN (SELECT rid FROM ts)"
        )
        return
    con.execute(f"CREATE OR REPLACE TEMP TABLE ts_next AS SELECT {_COLS} FROM ts LIMIT 0")
    con.execute("DROP TABLE IF EXISTS ts_whole")  # (left by a hop that failed on this connection)
    con.execute("ALTER TABLE ts RENAME TO ts_whole")
    for where in slices:
        con.execute(f"CREATE OR REPLACE TEMP TABLE ts AS SELECT * FROM ts_whole WHERE {where}")
        con.execute(f"CREATE OR REPLACE TEMP TABLE nx AS SELECT {_COLS} FROM ts LIMIT 0")
        _run_step(con, step)
        con.execute(f"INSERT INTO ts_next SELECT {_COLS} FROM nx EXCEPT SELECT {_COLS} FROM seen WHERE {where}")
    con.execute("DROP TABLE ts")
    con.execute("DROP TABLE ts_whole")
    con.execute("ALTER TABLE ts_next RENAME TO ts")


# Python generic identities (code-scan's `generic_identity.py`: a function's row `=arg`, the position of the
# argument its result is) under the names each file calls them by: its own def, or an import by name
_IDENTITY_FNS = """
CREATE OR REPLACE TEMP TABLE identity_fns AS
SELECT d.path, d.name AS alias, t.expr AS k FROM types t JOIN symbols d ON d.id = t.owner
WHERE t.name = '=arg' AND d.parent IS NULL AND d.kind = 'function'
 AND NOT EXISTS (SELECT 1 FROM imports x WHERE x.path = d.path AND x.alias = d.name)
UNION
SELECT i.path, i.alias, t.expr FROM types t JOIN symbols d ON d.id = t.owner
JOIN imports i ON i.target_path = d.path AND i.name = d.name AND i.target_kind = 'name' AND i.path <> d.path
WHERE t.name = '=arg' AND d.parent IS NULL AND d.kind = 'function'
"""


# Where a narrowing may keep some parts of a union only (`if (s.kind === 'c') s.area()`, code-scan's `!`
# mark), the compiler calls the method of the parts left: certain only when every part finds it in the same
# class (`Just`, `Nothing` extending `Impl`). The parts are the union's members, or the parts of a union
# alias (its `inherit` rows, through aliases of aliases): for each part, the nearest classes up its bases that
# define the name (`type Poly = Circle | Tri`, `Tri extends Base`: `Circle.area` and `Base.area` disagree).
_NARROWED_SPLIT = f"""
CREATE OR REPLACE TEMP TABLE narrowed_bad AS
WITH RECURSIVE
parts(rid, cls, depth) AS (
  SELECT DISTINCT d.rid, d.cls, 0 FROM done d JOIN narrowed USING (rid)
  UNION ALL
  SELECT p.rid, i.dst, p.depth + 1 FROM parts p JOIN symbols k ON k.id = p.cls AND k.kind = 'type'
  JOIN inh i ON i.src = p.cls
  WHERE p.depth < {INHERIT_DEPTH} AND i.confidence <> 'name-only'
),
up(rid, cls, anc, name, depth) AS (
  SELECT DISTINCT p.rid, p.cls, p.cls, r.symbol_name, 0 FROM parts p JOIN pending r USING (rid)
  UNION ALL
  SELECT up.rid, up.cls, i.dst, up.name, up.depth + 1 FROM up JOIN inh i ON i.src = up.anc
  WHERE up.depth < {INHERIT_DEPTH} AND i.confidence <> 'name-only'
),
found AS (SELECT up.rid, up.cls, up.anc, up.depth FROM up JOIN symbols s ON s.parent = up.anc AND s.name = up.name),
nearest AS (SELECT rid, cls, anc FROM found QUALIFY depth = min(depth) OVER (PARTITION BY rid, cls))
SELECT rid FROM nearest GROUP BY rid HAVING count(DISTINCT anc) > 1
"""


# The compiler types `c ? a : b` as the union of the arms' types, reduced to one where the other is its
# subtype: each arm's one class, the same class or one a base of the other (that base: `x.m()` is then the
# base's m); anything else (an arm untyped, two classes, unrelated ones) gives nothing.
_ARMS_JOINED = f"""
CREATE OR REPLACE TEMP TABLE arm_cls AS
SELECT a.rid, a.k, any_value(d.cls) AS cls, max(d.via) AS via FROM arms a JOIN done d ON d.rid = a.arm
GROUP BY a.rid, a.k HAVING count(DISTINCT d.cls) = 1;
CREATE OR REPLACE TEMP TABLE arm_base AS
WITH RECURSIVE
up(rid, k, cls, anc, depth) AS (
  SELECT rid, k, cls, cls, 0 FROM arm_cls
  UNION ALL
  SELECT up.rid, up.k, up.cls, i.dst, up.depth + 1 FROM up JOIN inh i ON i.src = up.anc
  WHERE up.depth < {INHERIT_DEPTH} AND i.confidence <> 'name-only'
)
SELECT DISTINCT one.rid, one.cls AS base FROM arm_cls one JOIN up other
ON other.rid = one.rid AND other.k <> one.k AND other.anc = one.cls;
DELETE FROM done WHERE rid IN (SELECT arm FROM arms);
INSERT INTO done
SELECT b.rid, b.base, (SELECT max(via) FROM arm_cls c WHERE c.rid = b.rid) FROM arm_base b
WHERE b.rid IN (SELECT rid FROM arm_cls GROUP BY rid HAVING count(*) = 2)
 AND (SELECT count(DISTINCT base) FROM arm_base x WHERE x.rid = b.rid) = 1
"""


def evaluate(con: Any) -> None:
    """`typed_cls(rid, cls, via)` for the pending references with a receiver type."""
    con.execute(_START)
    # What TypeScript calls state about their callees' type parameters (`%<byte>.<source>` rows), apart
    con.execute(
        "CREATE OR REPLACE TEMP TABLE calls AS SELECT path, name, expr FROM types"
        " WHERE owner IS NULL AND starts_with(name, '%')"
    )
    con.execute("CREATE OR REPLACE TEMP TABLE unions (rid BIGINT, n INTEGER)")
    con.execute("CREATE OR REPLACE TEMP TABLE done (rid BIGINT, cls VARCHAR, via INTEGER)")
    con.execute(_IDENTITY_FNS)
    contexts = con.execute("SELECT count(*) FROM calls").fetchone()[0]
    step = _STEP if contexts else _STEP_PLAIN
    # Every state reached so far: a state met again has nothing new to give (names that go round in circles,
    # such as a barrel's modules importing from the barrel, stop instead of running to MAX_ROUNDS).
    con.execute(f"CREATE OR REPLACE TEMP TABLE seen AS SELECT {_COLS} FROM ts")
    for round_ in range(MAX_ROUNDS + 1):
        con.execute("INSERT INTO done SELECT rid, cls, via FROM ts WHERE cls IS NOT NULL AND steps = ''")
        con.execute("DELETE FROM ts WHERE cls IS NOT NULL AND steps = ''")
        if round_ == MAX_ROUNDS or con.execute("SELECT count(*) FROM ts").fetchone()[0] == 0:
            break
        if con.execute("SELECT count(*) FROM ts WHERE strpos(nm, '|') > 0").fetchone()[0]:
            con.execute(_SPLIT_UNIONS)
        if con.execute("SELECT count(*) FROM ts WHERE strpos(nm, '+') > 0").fetchone()[0]:
            con.execute(_SPLIT_MEETS)
        _hop(con, step)
        con.execute(f"INSERT INTO seen SELECT {_COLS} FROM ts")
    con.execute("DROP TABLE IF EXISTS hop_named")
    if con.execute("SELECT count(*) FROM unions").fetchone()[0]:
        con.execute(_WHOLE_UNIONS)
        con.execute("DELETE FROM done WHERE rid IN (SELECT rid FROM union_bad)")
        con.execute(_PY_UNIONS)
        con.execute("DELETE FROM done WHERE rid IN (SELECT rid FROM py_union_bad)")
    if con.execute("SELECT count(*) FROM arms").fetchone()[0]:
        con.execute(_ARMS_JOINED)
    if con.execute("SELECT count(*) FROM narrowed").fetchone()[0]:
        con.execute(_NARROWED_SPLIT)
        con.execute("DELETE FROM done WHERE rid IN (SELECT rid FROM narrowed_bad)")
    labels = ", ".join(f"({i}, '{name}')" for i, name in enumerate(VIA))
    con.execute(
        "CREATE OR REPLACE TEMP TABLE typed_cls AS"
        f" SELECT d.rid, d.cls, v.name AS via FROM (SELECT rid, cls, max(via) AS via FROM done GROUP BY rid, cls) d"
        f" JOIN (VALUES {labels}) v(id, name) ON v.id = d.via"
    )


def empty(con: Any) -> None:
    con.execute("CREATE OR REPLACE TEMP TABLE typed_cls (rid BIGINT, cls VARCHAR, via VARCHAR)")
