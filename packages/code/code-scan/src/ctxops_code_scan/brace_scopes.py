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
is one of those is kept. The functions and declarations come from the tags query's `@local.*` matches
(the same traversal, C speed), the blocks from a query of their own when a binding needs one; only the
names like a bare-name use of the file are read further;
the block or function around each binding and the innermost binding around each use come from sweeps in
document order (never a walk up the tree: a node's parent costs its depth in tree-sitter). Linear in the
file.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from functools import cache
from typing import Any

Point = tuple[int, int]
VALUE, TYPE = "v", "t"  # JavaScript/TypeScript namespaces; Go uses VALUE for both
_FUNCTION_VALUES = frozenset(("arrow_function", "function_expression", "generator_function"))

# A binding: (namespace, name, start, end, is a definition the resolver looks for)
Binding = tuple[str, str, Point, Point, bool]
# The tags query's `@local.<kind>` matches: (kind, the match's captures)
LocalMatch = tuple[str, dict[str, list[Any]]]
Blocks = Callable[[], list[Any]]  # the file's blocks, queried on first need


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


def _go_bindings(
    by_kind: dict[str, list[dict[str, list[Any]]]], root: Any, wanted: set[bytes], blocks: list[Any] | None = None
) -> list[Binding]:
    """Go: each binding's name comes from the tags query (`@bind.local`'s `@name`, `@local.param`,
    `@local.tparam`, `@local.after`); its function or block from sweeps, only for the names like a use."""
    out: list[Binding] = []
    params: list[Any] = []  # names
    tparams: list[Any] = []
    after: list[tuple[Any, Any]] = []  # (name, its declaration): from the declaration's end to its block's
    for caps in by_kind.get("bind", ()):
        name = caps["name"][0]
        if name.text not in wanted:
            continue
        decl = caps["bind.local"][0]
        t = decl.type
        if t == "parameter_declaration":
            params.append(name)
        elif t == "type_switch_statement":  # `switch v := x.(type)`: v in every clause
            alias = decl.child_by_field_name("alias")
            if alias is not None:
                out.append((VALUE, name.text.decode(), alias.end_point, decl.end_point, False))
        elif t in ("short_var_declaration", "var_spec") or any(c.type == ":=" for c in decl.children):
            after.append((name, decl))
        # (else `for k = range xs`, `case v = <-ch`: assignments, no binding)
    params += [caps["local.param"][0] for caps in by_kind.get("param", ()) if caps["local.param"][0].text in wanted]
    tparams += [caps["local.tparam"][0] for caps in by_kind.get("tparam", ()) if caps["local.tparam"][0].text in wanted]
    after += [
        (c["local.after"][0], c["decl"][0]) for c in by_kind.get("after", ()) if c["local.after"][0].text in wanted
    ]
    if params or tparams:
        found = _found(root, "go-functions")
        functions, types = found.get("function", []), found.get("ftype", [])
        names = params + tparams
        around = _Innermost([(f.start_point, f.end_point) for f in functions], functions).around(
            [n.start_point for n in names]
        )
        in_type = _Innermost([(f.start_point, f.end_point) for f in types], types).around(
            [n.start_point for n in names]
        )
        for i, (name, fn, ftype) in enumerate(zip(names, around, in_type, strict=True)):
            if fn is None:
                continue
            if i >= len(params):  # a type parameter: the whole declaration (its signature names it too)
                out.append((VALUE, name.text.decode(), fn.start_point, fn.end_point, False))
                continue
            body = fn.child_by_field_name("body")
            if body is None or name.start_point >= body.start_point:
                continue  # (a method of an interface; a function literal's parameters in the body are its own)
            if ftype is not None and ftype.start_point >= fn.start_point:
                continue  # a parameter of a function type in the signature: `handler func(x int)`
            out.append((VALUE, name.text.decode(), body.start_point, body.end_point, False))
    if after:
        if blocks is None:
            blocks = _found(root, "go-blocks").get("block", [])
        at = _Innermost([(b.start_point, b.end_point) for b in blocks]).around([d.start_point for _n, d in after])
        for (name, decl), scope in zip(after, at, strict=True):
            if scope is not None:  # (none: a package-level var or const, a symbol)
                out.append((VALUE, name.text.decode(), decl.end_point, scope[1], False))
    return out


def _js_bindings(
    functions: list[Any], blocks: Blocks, declarations: list[Any], generics: list[Any], wanted: set[bytes]
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
        if decl.type == "catch_clause":
            param = decl.child_by_field_name("parameter")
            names = [n for n in _pattern_names(param) if n.text in wanted] if param is not None else []
            out.extend((VALUE, n.text.decode(), decl.start_point, decl.end_point, False) for n in names)
            continue
        if decl.type == "for_in_statement":
            kind, left = decl.child_by_field_name("kind"), decl.child_by_field_name("left")
            if kind is None or left is None:
                continue  # `for (x of xs)`: an assignment, no binding
            names = [n for n in _pattern_names(left) if n.text in wanted]
            if kind.text == b"var":
                in_function.extend((n, False) for n in names)
            else:
                out.extend((VALUE, n.text.decode(), decl.start_point, decl.end_point, False) for n in names)
            continue
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
    for items, scopes in ((in_block, blocks), (in_function, lambda: functions)):
        if not items:
            continue
        at = _Innermost([(s.start_point, s.end_point) for s in scopes()]).around([n.start_point for n, _ in items])
        for (name, is_def), scope in zip(items, at, strict=True):
            if scope is not None:  # (none: the top level, whose names are the resolver's symbols)
                out.append((VALUE, name.text.decode(), scope[0], scope[1], is_def))
    return out


_QUERIES = {
    "go-functions": (
        "go",
        "[(function_declaration) (method_declaration) (func_literal) (type_spec)] @function\n(function_type) @ftype",
    ),
    "go-blocks": (
        "go",
        "[(block) (if_statement) (for_statement) (expression_switch_statement) (type_switch_statement)"
        " (select_statement) (expression_case) (type_case) (default_case) (communication_case)] @block",
    ),
    **{
        f"{lang}-blocks": (lang, "[(statement_block) (for_statement) (for_in_statement) (switch_body)] @block")
        for lang in ("javascript", "typescript", "tsx")
    },
}


@cache
def _query(name: str) -> Any:
    import tree_sitter

    from .languages import ts_language

    lang, text = _QUERIES[name]
    return tree_sitter.Query(ts_language(lang), text)


def _found(root: Any, name: str) -> dict[str, list[Any]]:
    """The nodes a query of ``_QUERIES`` captures, run only when a binding needs them: every block or function
    a tags-query pattern captured would cost a match object on every file (Go's extraction +12%)."""
    import tree_sitter

    return dict(tree_sitter.QueryCursor(_query(name)).captures(root))


def _bindings(
    lang: str, root: Any, matches: list[LocalMatch], wanted: set[bytes], blocks: list[Any] | None = None
) -> list[Binding]:
    """The bindings named like a use (``wanted``), each over its scope's range. ``blocks``: Go's blocks when
    already queried (`go_blocks`)."""
    by_kind: dict[str, list[dict[str, list[Any]]]] = defaultdict(list)
    for kind, caps in matches:
        by_kind[kind].append(caps)
    if lang == "go":
        return _go_bindings(by_kind, root, wanted, blocks)

    def nodes(kind: str) -> list[Any]:
        return [caps["local." + kind][0] for caps in by_kind[kind]]

    def js_blocks() -> list[Any]:
        return _found(root, lang + "-blocks").get("block", [])

    return _js_bindings(nodes("function"), js_blocks, nodes("declaration"), nodes("generic"), wanted)


class _Innermost:
    """The innermost of a set of nested ranges around each point, by one sweep in document order: the range,
    or what ``payloads`` holds for it."""

    def __init__(self, ranges: list[tuple[Point, Point]], payloads: list[Any] | None = None) -> None:
        order = sorted(range(len(ranges)), key=lambda i: (ranges[i][0], (-ranges[i][1][0], -ranges[i][1][1])))
        self.ranges = [ranges[i] for i in order]
        self.payloads = [payloads[i] for i in order] if payloads is not None else self.ranges

    def around(self, points: list[Point]) -> list[Any]:
        order = sorted(range(len(points)), key=points.__getitem__)
        out: list[Any] = [None] * len(points)
        stack: list[int] = []
        k, ranges = 0, self.ranges
        for i in order:
            at = points[i]
            while k < len(ranges) and ranges[k][0] <= at:
                while stack and ranges[stack[-1]][1] <= ranges[k][0]:
                    stack.pop()
                stack.append(k)
                k += 1
            while stack and ranges[stack[-1]][1] <= at:
                stack.pop()
            if stack and ranges[stack[-1]][0] <= at < ranges[stack[-1]][1]:
                out[i] = self.payloads[stack[-1]]
        return out


def shadowed(
    lang: str,
    root: Any,
    uses: list[tuple[int, int, str, str]],
    matches: list[LocalMatch],
    blocks: list[Any] | None = None,
) -> set[int]:
    """Indexes into ``uses`` ((row, column, name, namespace) of bare-name uses, 0-based as tree-sitter's
    points) whose innermost binding is a parameter or local variable. ``matches``: the file's `@local.*`
    matches of the tags query (queries/go.scm, javascript.scm, typescript.scm)."""
    if not uses or not matches:
        return set()
    bindings = _bindings(lang, root, matches, {name.encode() for _r, _c, name, _ns in uses}, blocks)
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
