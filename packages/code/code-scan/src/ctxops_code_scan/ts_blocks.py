"""TypeScript locals by block: the receivers whose first name the type facts would misread (issue 24, session 24).

    if (ok) { const keywords = streamAllContents(rule); keywords.forEach(...) }
    for (const [node, keywords] of map.entriesGroupedByKey()) { keywords.join(', ') }

The facts keep one reading of a local per function (its declarations' values, merged); `let`/`const` bind
in their block, a `for (... of ...)` variable in its loop, a `catch (e)` in its clause, `var` in the function
(the spec's scoping, as `brace_scopes` reads it). A use of the name reads the binding whose scope holds it
innermost; the facts' reading is right for it only when that binding is one the facts read, in the function
they filed it under. `misread` lists the uses where it is not:
- the binding around the use is one the facts never type (a name in an array pattern, a `for (const [a, b]
  of ...)` or `for (const k in ...)` variable, a `catch` parameter), while a declaration elsewhere in the
  function gave the name a reading (langium's `keywords.join` read as a Stream's `join`);
- a declaration the facts read lies in a block of a function around the use but does not hold it, and the
  binding around the use (if any) belongs to another function: the reading is that block's, not the use's.
Those uses get no type (no certain answer) rather than another binding's. Linear in the file: the blocks'
query runs only when a receiver's name is bound twice in the file or bound where the facts cannot read it,
and then only over the bytes between those bindings (`go_blocks._ranges`); the innermost scope around every
point comes from sweeps in document order (`go_blocks._around`).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from .brace_scopes import _query
from .go_blocks import _around, _ranges

Span = tuple[int, int]


def _names(node: Any) -> list[tuple[Any, bool]]:
    """`brace_scopes._pattern_names` with, for each name, whether it sits in an array pattern (the facts read
    no element of one): a walk down with a stack, never up (a node's parent costs its depth in tree-sitter)."""
    out: list[tuple[Any, bool]] = []
    todo = [(node, False)]
    while todo:
        n, in_array = todo.pop()
        t = n.type
        if t in ("identifier", "shorthand_property_identifier_pattern"):
            out.append((n, in_array))
        elif t in ("object_pattern", "array_pattern", "rest_pattern", "formal_parameters"):
            todo.extend((c, in_array or t == "array_pattern") for c in n.named_children)
        elif t == "pair_pattern":
            value = n.child_by_field_name("value")
            if value is not None:
                todo.append((value, in_array))
        elif t in ("assignment_pattern", "object_assignment_pattern"):
            left = n.child_by_field_name("left")
            if left is not None:
                todo.append((left, in_array))
        elif t in ("required_parameter", "optional_parameter"):
            pattern = n.child_by_field_name("pattern")
            if pattern is not None:
                todo.append((pattern, in_array))
    return out


def _blocks(root: Any, lang: str, points: list[int]) -> list[Any]:
    """The blocks around ``points``: the blocks' query only over the bytes from one point to the next (split at
    the widest gaps, `go_blocks._ranges`): a block around a point intersects its range, and the code between
    (functions binding no such name) is never walked. Run over the whole file, it was 8% of extraction."""
    import tree_sitter

    cursor = tree_sitter.QueryCursor(_query(lang + "-blocks"))
    found: dict[tuple[int, int], Any] = {}  # (a block across two ranges: captured in each)
    for start, end in _ranges(points):
        cursor.set_byte_range(start, end)
        for node in cursor.captures(root).get("block", []):
            found.setdefault((node.start_byte, node.end_byte), node)
    return list(found.values())


def misread(
    lang: str, root: Any, matches: list[tuple[str, dict[str, list[Any]]]], uses: list[tuple[int, str, int]]
) -> set[int]:
    """The keys of ``uses`` ((key, first name, byte)) whose name the facts would read from another binding.
    ``matches``: the file's `@local.*` matches of the tags query (queries/typescript.scm)."""
    wanted = {name.encode() for _k, name, _b in uses}
    if not uses or not matches:
        return set()
    functions = [c["local.function"][0] for k, c in matches if k == "function"]
    declarations = [c["local.declaration"][0] for k, c in matches if k == "declaration"]
    found: list[tuple[Any, Any, bool, str]] = []  # (name node, its declaration, read by the facts, scope kind)
    entries: set[int] = set()  # `for (const [k, v] of m)`: v's byte
    for fn in functions:
        params = fn.child_by_field_name("parameters") or fn.child_by_field_name("parameter")
        if params is not None:
            found.extend((n, fn, not arr, "param") for n, arr in _names(params) if n.text in wanted)
    for decl in declarations:
        t = decl.type
        if t == "catch_clause":
            param = decl.child_by_field_name("parameter")
            names = _names(param) if param is not None else []
            found.extend((n, decl, False, "own") for n, _arr in names if n.text in wanted)
        elif t == "for_in_statement":
            kind, left = decl.child_by_field_name("kind"), decl.child_by_field_name("left")
            if kind is None or left is None:
                continue  # `for (x of xs)`: an assignment, no binding
            of = any(c.type == "of" for c in decl.children)
            reach = "function" if kind.text == b"var" else "own"
            # (`for (const [k, v] of m)`: the facts read v, an entry's value, when the pattern is just the two)
            pair = left.named_children if of and left.type == "array_pattern" else []
            if len(pair) == 2 and pair[1].type == "identifier":
                entries.add(pair[1].start_byte)
            read = of and left.type == "identifier"
            found.extend(
                (n, decl, read or n.start_byte in entries, reach) for n, _arr in _names(left) if n.text in wanted
            )
        elif t in ("lexical_declaration", "variable_declaration"):
            reach = "function" if t == "variable_declaration" else "block"
            for declarator in decl.named_children:
                name = declarator.child_by_field_name("name") if declarator.type == "variable_declarator" else None
                if name is None:
                    continue
                names = [(name, False)] if name.type == "identifier" else _names(name)
                found.extend((n, decl, not arr, reach) for n, arr in names if n.text in wanted)
    counts: dict[bytes, int] = defaultdict(int)
    for n, _d, _r, _k in found:
        counts[n.text] += 1
    doubtful = {n.text for n, _d, read, _k in found if not read or counts[n.text] > 1}
    found = [f for f in found if f[0].text in doubtful]
    if not found:
        return set()  # (each name bound once, where the facts read it: their reading is its binding's)
    blocked = [n.start_byte for n, _d, _r, k in found if k == "block"]
    blocks = _blocks(root, lang, blocked) if blocked else []
    in_block = iter(_around([(b.start_byte, b.end_byte) for b in blocks], blocked))
    fn_spans = [(f.start_byte, f.end_byte) for f in functions]
    in_fn = _around(fn_spans, [n.start_byte for n, _d, _r, _k in found])
    # (an entry's value is read only where its function binds the name nowhere else: `settle_entries`)
    per_fn: dict[tuple[bytes, Span | None], int] = defaultdict(int)
    for (n, _d, _r, _k), fn in zip(found, in_fn, strict=True):
        per_fn[(n.text, fn)] += 1
    found = [
        (n, d, r and (n.start_byte not in entries or per_fn[(n.text, fn)] == 1), k)
        for (n, d, r, k), fn in zip(found, in_fn, strict=True)
    ]
    spans: dict[bytes, list[tuple[Span, bool, Span | None, str]]] = defaultdict(list)  # (scope, read, fn, kind)
    read_blocks: set[tuple[bytes, Span]] = set()  # (name, function) with a block's declaration the facts read
    for (n, decl, read, kind), fn in zip(found, in_fn, strict=True):
        own: Span | None = (decl.start_byte, decl.end_byte) if kind == "param" else fn
        scope = next(in_block) if kind == "block" else fn if kind == "function" else (decl.start_byte, decl.end_byte)
        if scope is None:
            continue  # (the top level: the resolver's symbols)
        spans[n.text].append((scope, read, own, kind))
        if kind == "block" and read and own is not None:
            read_blocks.add((n.text, own))
    out: set[int] = set()
    by_name: dict[bytes, list[tuple[int, int]]] = defaultdict(list)
    for key, name, at in uses:
        if name.encode() in spans:
            by_name[name.encode()].append((key, at))
    for name, items in by_name.items():
        bound = spans[name]
        scopes = [s for s, _r, _o, _k in bound]
        payload = {s: (r, o, k) for s, r, o, k in bound}  # (one binding per scope: bound twice in one is an error)
        points = [at for _k, at in items]
        for (key, _at), inner, fn in zip(items, _around(scopes, points), _around(fn_spans, points), strict=True):
            read, own, kind = payload[inner] if inner is not None else (True, None, "")
            if inner is not None and not read:
                out.add(key)  # the binding around the use is one the facts do not read
            elif fn is not None and own != fn and (name, fn) in read_blocks:
                out.add(key)  # the function's reading is a block's declaration that does not hold the use
    return out
