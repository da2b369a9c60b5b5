"""Go, JavaScript and TypeScript name scoping: which bare-name uses mean a parameter or a local variable.

In

    import { handler } from './h';
    export function run(handler: () => void) { handler(); }

the call is the parameter's, as the compiler resolves it, not a call of the imported `handler`; the same
for a Go `func run(handler func()) { handler() }` beside a package-level `func handler()`. `shadowed`
lists those uses so the extractor drops them (the Python counterpart is `py_scopes`).

The languages' own rules, read from their specs:
- JavaScript/TypeScript: a parameter binds in its function; `let`/`const`/`class`/a function declaration in
  the nearest block (the whole block: a use before a `let` is no use of an outer name either, it throws);
  `var` in the nearest function; a `catch (e)` in its clause; `for (const x of ...)` in the loop. Types and
  values are separate namespaces: a local variable never hides a type, a type parameter only a type.
- Go: a parameter, receiver or named result binds in the function's body, a type parameter in the whole
  declaration; a local declaration (`x := ...`, `var x`, `const x`, a `range` or type-switch variable, a
  `case v := <-ch`) binds from the end of its declaration to the end of the innermost block around it.
  Go has one namespace: a local hides a type of the same name too.

Names declared at a file's top level are the symbols the resolver looks for, as are functions and classes
declared in a function (`function helper() {}`, `const helper = () => ...`): a use whose innermost binding
is one of those is kept. The functions, blocks and declarations come from the tags query's `@local.*`
matches (the same traversal, C speed); only the names like a bare-name use of the file are read further;
the block or function around each binding and the innermost binding around each use come from sweeps in
document order (never a walk up the tree: a node's parent costs its depth in tree-sitter). Linear in the
file.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

Point = tuple[int, int]
VALUE, TYPE = "v", "t"  # JavaScript/TypeScript namespaces; Go uses VALUE for both
_FUNCTION_VALUES = frozenset(("arrow_function", "function_expression", "generator_function"))

# A binding: (namespace, name, start, end, is a definition the resolver looks for)
Binding = tuple[str, str, Point, Point, bool]
# The tags query's `@local.<kind>` matches: (kind, the match's captures)
LocalMatch = tuple[str, dict[str, list[Any]]]


def _pattern_names(node: Any) -> list[Any]:
    """The name nodes a JavaScript/TypeScript binding pattern binds: `x`, `{a, b: c, d = 1}`, `[e, ...f]`, a
    parameter list (`x: T = v`, `...rest`); never a property key, a default value or a type annotation."""
    out: list[Any] = []
    todo = [node]
    while todo:
        n = todo.pop()
        t = n.type
        if t in ("identifier", "shorthand_property_identifier_pattern"):
            out.append(n)
        elif t in ("object_pattern", "array_pattern", "rest_pattern", "formal_parameters"):
            todo.extend(n.named_children)
        elif t == "pair_pattern":
            value = n.child_by_field_name("value")
            if value is not None:
                todo.append(value)
        elif t in ("assignment_pattern", "object_assignment_pattern"):
            left = n.child_by_field_name("left")
            if left is not None:
                todo.append(left)
        elif t in ("required_parameter", "optional_parameter"):
            pattern = n.child_by_field_name("pattern")
            if pattern is not None:
                todo.append(pattern)
    return out


def _named(nodes: Any, wanted: set[bytes]) -> list[Any]:
    return [n for n in nodes if n.type == "identifier" and n.text in wanted]


def _go_bindings(functions: list[Any], blocks: list[Any], declarations: list[Any], wanted: set[bytes]) -> list[Binding]:
    out: list[Binding] = []
    for fn in functions:
        tparams = fn.child_by_field_name("type_parameters")
        if tparams is not None:  # (the whole declaration: its signature names them too)
            for decl in tparams.named_children:
                out.extend((VALUE, n.text.decode(), fn.start_point, fn.end_point, False)
                           for n in _named(decl.children_by_field_name("name"), wanted))  # fmt: skip
        body = fn.child_by_field_name("body")
        if body is None or fn.type == "type_spec":
            continue
        for field in ("receiver", "parameters", "result"):
            plist = fn.child_by_field_name(field)
            if plist is None or plist.type != "parameter_list":
                continue
            for decl in plist.named_children:
                out.extend((VALUE, n.text.decode(), body.start_point, body.end_point, False)
                           for n in _named(decl.children_by_field_name("name"), wanted))  # fmt: skip
    after: list[tuple[Any, list[Any]]] = []  # (a local declaration, the names it binds from its end on)
    for block in blocks:
        if block.type == "type_switch_statement":  # `switch v := x.(type)`: v in every clause
            alias = block.child_by_field_name("alias")
            names = _named(alias.named_children, wanted) if alias is not None else []
            out.extend((VALUE, n.text.decode(), alias.end_point, block.end_point, False) for n in names)
    for decl in declarations:
        t = decl.type
        if t in ("var_spec", "const_spec"):
            names = _named(decl.children_by_field_name("name"), wanted)
        elif t == "short_var_declaration" or any(c.type == ":=" for c in decl.children):
            left = decl.child_by_field_name("left")
            names = _named(left.named_children, wanted) if left is not None else []
        else:
            continue  # `for k = range xs`, `case v = <-ch`: assignments, no binding
        if names:
            after.append((decl, names))
    if after:
        at = _Innermost([(b.start_point, b.end_point) for b in blocks]).around([d.start_point for d, _ in after])
        for (decl, names), scope in zip(after, at, strict=True):
            if scope is not None:  # (none: a package-level var or const, a symbol)
                out.extend((VALUE, n.text.decode(), decl.end_point, scope[1], False) for n in names)
    return out


def _js_bindings(
    functions: list[Any], blocks: list[Any], declarations: list[Any], generics: list[Any], wanted: set[bytes]
) -> list[Binding]:
    out: list[Binding] = []
    in_block: list[tuple[Any, bool]] = []  # (a name bound in the innermost block around it, is a definition)
    in_function: list[tuple[Any, bool]] = []  # (`var`: the innermost function)

    def type_parameters(node: Any) -> None:
        tparams = node.child_by_field_name("type_parameters")
        if tparams is not None:
            for tp in tparams.named_children:
                name = tp.child_by_field_name("name")
                if name is not None and name.text in wanted:
                    out.append((TYPE, name.text.decode(), node.start_point, node.end_point, False))

    for fn in functions:
        params = fn.child_by_field_name("parameters") or fn.child_by_field_name("parameter")
        if params is not None:
            names = [n for n in _pattern_names(params) if n.text in wanted]
            out.extend((VALUE, n.text.decode(), fn.start_point, fn.end_point, False) for n in names)
        type_parameters(fn)
        if fn.type in ("function_declaration", "generator_function_declaration"):
            name = fn.child_by_field_name("name")
            if name is not None and name.text in wanted:
                in_block.append((name, True))
    for node in generics:
        type_parameters(node)
    for decl in declarations:
        if decl.type == "class_declaration":
            name = decl.child_by_field_name("name")
            if name is not None and name.text in wanted:
                in_block.append((name, True))
            continue
        into = in_function if decl.type == "variable_declaration" else in_block
        for declarator in decl.named_children:
            name = declarator.child_by_field_name("name") if declarator.type == "variable_declarator" else None
            if name is None:
                continue
            names = [n for n in ([name] if name.type == "identifier" else _pattern_names(name)) if n.text in wanted]
            value = declarator.child_by_field_name("value")
            is_def = name.type == "identifier" and value is not None and value.type in _FUNCTION_VALUES
            into.extend((n, is_def) for n in names)
    for block in blocks:
        if block.type == "catch_clause":
            param = block.child_by_field_name("parameter")
            names = [n for n in _pattern_names(param) if n.text in wanted] if param is not None else []
            out.extend((VALUE, n.text.decode(), block.start_point, block.end_point, False) for n in names)
        elif block.type == "for_in_statement":
            kind, left = block.child_by_field_name("kind"), block.child_by_field_name("left")
            if kind is None or left is None:
                continue  # `for (x of xs)`: an assignment, no binding
            names = [n for n in _pattern_names(left) if n.text in wanted]
            if kind.text == b"var":
                in_function.extend((n, False) for n in names)
            else:
                out.extend((VALUE, n.text.decode(), block.start_point, block.end_point, False) for n in names)
    for items, scopes in ((in_block, blocks), (in_function, functions)):
        if not items:
            continue
        # (a catch clause's body is the block; the clause itself binds only its parameter)
        ranges = [(s.start_point, s.end_point) for s in scopes if s.type != "catch_clause"]
        at = _Innermost(ranges).around([n.start_point for n, _ in items])
        for (name, is_def), scope in zip(items, at, strict=True):
            if scope is not None:  # (none: the top level, whose names are the resolver's symbols)
                out.append((VALUE, name.text.decode(), scope[0], scope[1], is_def))
    return out


def _bindings(go: bool, matches: list[LocalMatch], wanted: set[bytes]) -> list[Binding]:
    """The bindings named like a use (``wanted``), each over its scope's range."""
    by_kind: dict[str, list[Any]] = defaultdict(list)
    for kind, caps in matches:
        by_kind[kind].append(caps["local." + kind][0])
    functions, blocks, declarations = by_kind["function"], by_kind["block"], by_kind["declaration"]
    if go:
        return _go_bindings(functions, blocks, declarations, wanted)
    return _js_bindings(functions, blocks, declarations, by_kind["generic"], wanted)


class _Innermost:
    """The innermost of a set of nested ranges around each point, by one sweep in document order."""

    def __init__(self, ranges: list[tuple[Point, Point]]) -> None:
        self.ranges = sorted(ranges, key=lambda r: (r[0], (-r[1][0], -r[1][1])))

    def around(self, points: list[Point]) -> list[tuple[Point, Point] | None]:
        order = sorted(range(len(points)), key=points.__getitem__)
        out: list[tuple[Point, Point] | None] = [None] * len(points)
        stack: list[tuple[Point, Point]] = []
        k = 0
        for i in order:
            at = points[i]
            while k < len(self.ranges) and self.ranges[k][0] <= at:
                while stack and stack[-1][1] <= self.ranges[k][0]:
                    stack.pop()
                stack.append(self.ranges[k])
                k += 1
            while stack and stack[-1][1] <= at:
                stack.pop()
            if stack and stack[-1][0] <= at < stack[-1][1]:
                out[i] = stack[-1]
        return out


def shadowed(go: bool, uses: list[tuple[int, int, str, str]], matches: list[LocalMatch]) -> set[int]:
    """Indexes into ``uses`` ((row, column, name, namespace) of bare-name uses, 0-based as tree-sitter's
    points) whose innermost binding is a parameter or local variable. ``matches``: the file's `@local.*`
    matches of the tags query (queries/go.scm, javascript.scm, typescript.scm)."""
    if not uses or not matches:
        return set()
    bindings = _bindings(go, matches, {name.encode() for _r, _c, name, _ns in uses})
    if not bindings:
        return set()
    by_key: dict[tuple[str, str], dict[tuple[Point, Point], bool]] = defaultdict(dict)
    for ns, name, start, end, is_def in bindings:
        # (a definition and a local over the same range: the definition is what the name means there)
        ranges = by_key[(ns, name)]
        ranges[(start, end)] = ranges.get((start, end), False) or is_def
    wanted_at: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, (_r, _c, name, ns) in enumerate(uses):
        if (ns, name) in by_key:
            wanted_at[(ns, name)].append(i)
    out: set[int] = set()
    for key, idx in wanted_at.items():
        kinds = by_key[key]
        at = _Innermost(list(kinds)).around([(uses[i][0], uses[i][1]) for i in idx])
        out.update(i for i, scope in zip(idx, at, strict=True) if scope is not None and not kinds[scope])
    return out
