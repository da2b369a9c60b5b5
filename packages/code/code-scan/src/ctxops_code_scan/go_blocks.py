"""Go locals by block: which declaration a use of a local name reads, as go/types scopes it.

    if ok { _, seg := pair() ; seg.M() } else { _, seg := pairB() ; seg.M() }

declares two `seg`s; the type facts keep one reading per (function, name), so two different values gave
none. Each local declaration (`:=`, `var`, a `range` or for-init variable, a type switch's, `case v := <-ch`)
and each func literal's parameter is renamed `name~<where its scope starts>` in the facts, and each use of the
name (a receiver, a value's first name) is renamed to the declaration whose scope holds it: from the end of
its declaration to the end of the innermost block around it (a literal's parameter: its body), as the spec
says. A name declared twice in one block (`a, err := f(); b, err := g()`) is one variable: one span, from
the first. A use no declaration's span holds keeps its name (a parameter's, a package-level name's); one
whose innermost span is not found within `_MAX_WALK` steps gets a name bound nowhere (no type).

Spans of one name nest or are apart, so the innermost around a point is the last starting at or before it
or one around that one (a bisection and a bounded walk out). Linear in the file, the blocks' query run only
when a name is declared twice in the file or a type switch names its variable (else each local's one
reading per function is its declaration's, as before), and only over the bytes from a declaration to the
next (at most `_MAX_RANGES` ranges, split at the widest gaps): every block around a declaration intersects
its range, and the code between (functions with no local, a function's tail) is never walked.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from functools import cache
from typing import Any

_MAX_WALK = 64  # spans of one name walked out per lookup (one name shadowed this deep: no type)
# ranges the blocks' query runs over per file: each run steps over the top-level nodes before its range, so a
# range per function would be quadratic in a file of many functions; a few cover the widest gaps
_MAX_RANGES = 32
UNKNOWN = "~?"  # a name's suffix when its declaration is not known (bound nowhere)
_DECLARING = frozenset(("short_var_declaration", "var_spec"))
_PARAMETERS = frozenset(("parameter_declaration", "variadic_parameter_declaration"))
_BLOCKS = (
    "[(block) (if_statement) (for_statement) (expression_switch_statement) (type_switch_statement)"
    " (select_statement) (expression_case) (type_case) (default_case) (communication_case)] @block\n"
    "(func_literal) @literal"
)


@cache
def _query() -> Any:
    import tree_sitter

    from .languages import ts_language

    return tree_sitter.Query(ts_language("go"), _BLOCKS)


class GoScopes:
    """The file's local declarations (`bind` matches of queries/go.scm) and the lookup of a use."""

    def __init__(self, root: Any, binds: list[dict[str, list[Any]]], others: Sequence[int] = ()) -> None:
        self.declared: dict[int, str] = {}  # a declared name's start byte -> its name in the facts
        self._spans: dict[str, list[tuple[int, int, str]]] = {}  # name -> (start, end, name in the facts)
        self._index: dict[str, tuple[list[int], list[int], list[int], list[str]]] = {}
        # a type switch's name's start byte -> (its name in a clause of one type, that type as written)
        self.case_types: dict[int, list[tuple[str, str]]] = {}
        self.blocks: list[Any] | None = None  # the file's blocks when queried (`brace_scopes` reads them too)
        after: list[tuple[Any, Any]] = []  # (name, its declaration): from the declaration's end to its block's
        for caps in binds:
            decl, name = caps["bind.local"][0], caps["name"][0]
            t = decl.type
            if t == "type_switch_statement":  # `switch v := x.(type)`: v in every clause
                alias = decl.child_by_field_name("alias")
                if alias is not None:
                    self._add(name, alias.end_byte, decl.end_byte)
                    self._cases(name, decl)
            elif t in _DECLARING or (t in ("range_clause", "receive_statement") and _defines(decl)):
                after.append((name, decl))
        names = [n.text for n, _d in after]
        if not self._spans and len(set(names)) == len({n.start_byte for n, _d in after}):
            return  # (each name declared once: the function's one reading is the declaration's; no query)
        locals_ = set(names) | {n.encode() for n in self._spans}
        # the blocks around these points are the ones read (here and by `brace_scopes`, whose `others` they are):
        # the declarations, a literal's parameter named like a local (its literal), the consts
        points = [d.start_byte for _n, d in after] + list(others)
        for caps in binds:
            if caps["bind.local"][0].type in _PARAMETERS and caps["name"][0].text in locals_:
                points.append(caps["name"][0].start_byte)
        found = _captures(root, _ranges(points))
        for literal in found.get("literal", []):
            params, body = literal.child_by_field_name("parameters"), literal.child_by_field_name("body")
            if params is None or body is None:
                continue
            for decl in params.named_children:
                if decl.type in _PARAMETERS:
                    for name in decl.children_by_field_name("name"):
                        if name.text in locals_:  # (only a literal's parameter named like a local hides one)
                            self._add(name, body.start_byte, body.end_byte)
        blocks = self.blocks = found.get("block", [])
        at = _around([(b.start_byte, b.end_byte) for b in blocks], [d.start_byte for _n, d in after])
        first: dict[tuple[int, bytes], int] = {}  # (block, name) -> its first declaration's end
        for (name, decl), block in zip(after, at, strict=True):
            if block is not None:  # (none: a package-level var, a symbol)
                key = (block[0], name.text)
                first[key] = min(first.get(key, decl.end_byte), decl.end_byte)
        for (name, _decl), block in zip(after, at, strict=True):
            if block is not None:
                self._add(name, first[(block[0], name.text)], block[1])

    def _add(self, name_node: Any, start: int, end: int) -> None:
        name = name_node.text.decode("utf-8", "replace")
        scoped = f"{name}~{start}"
        if name_node.start_byte not in self.declared:
            self.declared[name_node.start_byte] = scoped
            spans = self._spans.setdefault(name, [])
            spans.append((start, end, scoped))  # (a name declared twice in a block: one span, `_nesting`)

    def _cases(self, name_node: Any, switch: Any) -> None:
        """`switch m := v.(type) { case T: ... }`: in a clause of one type m is a T (go/types declares one m per
        clause); in a clause of several types, `nil` or `default`, the switch's m (no type read)."""
        if name_node.start_byte in self.case_types:
            return
        found = self.case_types[name_node.start_byte] = []
        name = name_node.text.decode("utf-8", "replace")
        for clause in switch.named_children:
            if clause.type != "type_case":
                continue
            types = [t for t in clause.children_by_field_name("type") if t.is_named]
            if len(types) == 1 and types[0].text != b"nil":
                scoped = f"{name}~{clause.start_byte}"
                self._spans.setdefault(name, []).append((clause.start_byte, clause.end_byte, scoped))
                found.append((scoped, types[0].text.decode("utf-8", "replace")))

    def name_at(self, name: str, byte: int) -> str:
        """`name` as the facts hold it where a use at `byte` reads it."""
        spans = self._spans.get(name)
        if spans is None:
            return name
        index = self._index.get(name)
        if index is None:
            index = self._index[name] = _nesting(spans)
        starts, ends, outer, scoped = index
        i = bisect_right(starts, byte) - 1
        for _ in range(_MAX_WALK):
            if i < 0 or byte < ends[i]:
                return scoped[i] if i >= 0 else name
            i = outer[i]
        return name + UNKNOWN

    def chain(self, chain: Any, byte: int) -> Any:
        """A chain (`type_exprs.chain_of`) whose first name is read at `byte`, that name as the facts hold it."""
        if chain is None:
            return None
        called, root, steps = chain
        return (called, self.name_at(root, byte), steps)


def _defines(decl: Any) -> bool:
    return any(c.type == ":=" for c in decl.children)


def _around(blocks: list[tuple[int, int]], points: list[int]) -> list[tuple[int, int] | None]:
    """The innermost of nested (start, end) byte ranges around each point (`brace_scopes._Innermost` in bytes:
    no row/column tuple made per block), by one sweep in document order."""
    ranges = sorted(blocks, key=lambda r: (r[0], -r[1]))
    out: list[tuple[int, int] | None] = [None] * len(points)
    stack: list[tuple[int, int]] = []
    k, n = 0, len(ranges)
    for i in sorted(range(len(points)), key=points.__getitem__):
        at = points[i]
        while k < n and ranges[k][0] <= at:
            while stack and stack[-1][1] <= ranges[k][0]:
                stack.pop()
            stack.append(ranges[k])
            k += 1
        while stack and stack[-1][1] <= at:
            stack.pop()
        if stack and stack[-1][0] <= at < stack[-1][1]:
            out[i] = stack[-1]
    return out


def _ranges(points: list[int]) -> list[tuple[int, int]]:
    """Byte ranges from each point to the next, split at the `_MAX_RANGES - 1` widest gaps between points."""
    if not points:
        return []
    points = sorted(set(points))
    gaps = sorted(range(1, len(points)), key=lambda i: points[i] - points[i - 1])[-(_MAX_RANGES - 1) :]
    out: list[tuple[int, int]] = []
    start = 0
    for i in sorted(gaps):
        out.append((points[start], points[i - 1] + 1))
        start = i
    out.append((points[start], points[-1] + 1))
    return out


def _captures(root: Any, ranges: list[tuple[int, int]]) -> dict[str, list[Any]]:
    """The blocks and literals intersecting ``ranges`` (each block around a point of a range is one of them)."""
    import tree_sitter

    cursor = tree_sitter.QueryCursor(_query())
    found: dict[str, dict[tuple[int, int, str], Any]] = {}  # (a node across two ranges: captured in each)
    for start, end in ranges:
        cursor.set_byte_range(start, end)
        for name, nodes in cursor.captures(root).items():
            into = found.setdefault(name, {})
            for node in nodes:
                into.setdefault((node.start_byte, node.end_byte, node.type), node)
    return {name: list(nodes.values()) for name, nodes in found.items()}


def _nesting(spans: list[tuple[int, int, str]]) -> tuple[list[int], list[int], list[int], list[str]]:
    """Nested or disjoint spans by start (the outer first at a tie), each with the index of the span around it."""
    ordered = sorted(set(spans), key=lambda s: (s[0], -s[1]))
    outer: list[int] = []
    open_: list[int] = []
    for start, _end, _scoped in ordered:
        while open_ and ordered[open_[-1]][1] <= start:
            open_.pop()
        outer.append(open_[-1] if open_ else -1)
        open_.append(len(outer) - 1)
    return [s[0] for s in ordered], [s[1] for s in ordered], outer, [s[2] for s in ordered]
