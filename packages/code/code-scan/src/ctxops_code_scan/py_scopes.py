"""Python name scoping: which bare-name uses mean a local variable, not a definition of the same name.

A name bound in a function (a parameter, an assignment or augmented-assignment target, a `for` or
`with ... as` or `except ... as` target, a walrus) is local to that function unless the function declares
it `global` or `nonlocal`; a comprehension binds its own `for` targets; a class body's names are seen by
the class body only, never by the functions (methods, lambdas, comprehensions) inside it. A use of such a
local is no use of a function or class defined elsewhere with the same name: in

    async def test():
        async def receive(): ...
        async def app(scope, receive, send):
            await receive()          # the parameter, not the nested def

the call is the parameter's, as Python resolves it. `shadowed` lists those uses so the extractor drops
them; the graph's resolver (nearest enclosing definition, then imports, then module level) then only sees
bare names that do name a definition, an import, or a module-level name.

Definitions (`def`, `class`) and imports also bind local names, but they are the symbols the resolver
looks for, so a scope holding one of those keeps the use (the resolver picks that definition).

The scopes and bindings come from the tags query's `@local.*` patterns (queries/python.scm: matched in C,
in the extractor's one pass over the tree); the scope of each use from one sweep over the uses and scopes in
document order.
"""

from __future__ import annotations

from typing import Any

FUNCTION, LAMBDA, CLASS, COMPREHENSION = "function", "lambda", "class", "comprehension"


class _Scope:
    __slots__ = ("defs", "end", "globals", "kind", "locals", "nonlocals", "start")

    def __init__(self, kind: str, start: tuple[int, int], end: tuple[int, int]) -> None:
        self.kind = kind
        self.start = start
        self.end = end
        self.locals: set[str] = set()  # bound here by something other than a definition or an import
        self.defs: set[str] = set()  # bound here by `def`, `class` or an import
        self.globals: set[str] = set()
        self.nonlocals: set[str] = set()


def _names(node: Any) -> list[str]:
    """The plain names a target binds: `x`, `a, (b, c)`, `[d, *e]`; never an attribute or a subscript."""
    out: list[str] = []
    todo = [node]
    while todo:
        n = todo.pop()
        t = n.type
        if t == "identifier":
            out.append(n.text.decode("utf-8", "replace"))
        elif t in ("pattern_list", "tuple_pattern", "list_pattern", "list_splat_pattern", "parenthesized_expression",
                   "tuple", "list", "as_pattern_target"):  # fmt: skip
            todo.extend(n.named_children)
    return out


def _param_names(params: Any) -> list[str]:
    out: list[str] = []
    for child in params.named_children:
        t = child.type
        if t == "identifier":
            out.append(child.text.decode("utf-8", "replace"))
        elif t in ("default_parameter", "typed_default_parameter"):
            name = child.child_by_field_name("name")
            if name is not None and name.type == "identifier":
                out.append(name.text.decode("utf-8", "replace"))
        elif t in ("typed_parameter", "list_splat_pattern", "dictionary_splat_pattern"):
            for sub in child.named_children:
                if sub.type == "identifier":
                    out.append(sub.text.decode("utf-8", "replace"))
                    break
                if sub.type in ("list_splat_pattern", "dictionary_splat_pattern"):  # `*args: int`
                    out.extend(_param_names(sub))
                    break
    return out


def shadowed(uses: list[tuple[int, int, str]], matches: list[tuple[str, dict[str, list[Any]]]]) -> set[int]:
    """Indexes into ``uses`` ((row, column, name) of bare-name uses, 0-based as tree-sitter's points)
    that mean a local variable of an enclosing function, lambda or comprehension. ``matches``: the file's
    `@local.*` matches of the tags query."""
    if not uses:
        return set()
    caps: dict[str, list[Any]] = {}
    for _sub, found in matches:  # (the nodes of each capture, `local.` left off; what follows is order-free)
        for key, nodes in found.items():
            caps.setdefault(key[6:], []).extend(nodes)
    if not any(caps.get(k) for k in ("fn", "lam", "comp")):
        return set()  # no function, lambda or comprehension: nothing is local
    scopes: list[_Scope] = []
    for fn in caps.get("fn", ()):
        params, body = fn.child_by_field_name("parameters"), fn.child_by_field_name("body")
        if params is None or body is None:  # (an incomplete definition in a file with syntax errors)
            continue
        # (the body only: defaults and annotations are evaluated in the enclosing scope, `def f(len=len)`)
        scope = _Scope(FUNCTION, body.start_point, body.end_point)
        scope.locals.update(_param_names(params))
        scopes.append(scope)
    for body in caps.get("cbody", ()):
        scopes.append(_Scope(CLASS, body.start_point, body.end_point))
    for lam in caps.get("lam", ()):
        body = lam.child_by_field_name("body")
        if body is None:
            continue
        scope = _Scope(LAMBDA, body.start_point, body.end_point)
        params = lam.child_by_field_name("parameters")
        if params is not None:
            scope.locals.update(_param_names(params))
        scopes.append(scope)
    for comp in caps.get("comp", ()):
        scopes.append(_Scope(COMPREHENSION, comp.start_point, comp.end_point))
    named: list[tuple[str, Any, list[str]]] = []  # (what, node, the names it binds)
    bound: set[str] = set()
    for what in ("def", "target", "walrus", "global", "nonlocal"):
        for node in caps.get(what, ()):
            names = _names(node) if what == "target" else [(node.text or b"").decode("utf-8", "replace")]
            if what in ("target", "walrus"):
                bound.update(names)
            named.append((what, node, names))
    for scope in scopes:
        bound |= scope.locals
    wanted = [i for i, (_r, _c, name) in enumerate(uses) if name in bound]
    if not wanted:
        return set()
    used = {uses[i][2] for i in wanted}
    # (where, (what, name)): only the names some use may mean, each binding's place read only for those
    bindings = [(node.start_point, (what, name)) for what, node, names in named for name in names if name in used]
    scopes.sort(key=lambda s: (s.start, (-s.end[0], -s.end[1])))
    for chain, what, name in _sweep(scopes, bindings):
        if not chain:
            continue
        # (a walrus binds in the nearest scope that is no comprehension)
        held = [s for s in chain if s.kind != COMPREHENSION] or chain[:1] if what == "walrus" else chain
        scope = held[-1]
        if what == "def":
            scope.defs.add(name)
        elif what == "global":
            scope.globals.add(name)
        elif what == "nonlocal":
            scope.nonlocals.add(name)
        else:
            scope.locals.add(name)
    out: set[int] = set()
    for chain, i, name in _sweep(scopes, [((uses[i][0], uses[i][1]), i) for i in wanted], names=uses):
        if chain and _is_local(chain, name):
            out.add(i)
    return out


def _sweep(scopes: list[_Scope], items: list[tuple[tuple[int, int], Any]], names: Any = None) -> Any:
    """(scope chain outermost first, payload..., ) for each item, in document order."""
    ordered = sorted(items, key=lambda it: it[0])
    stack: list[_Scope] = []
    k = 0
    for at, payload in ordered:
        while k < len(scopes) and scopes[k].start <= at:
            while stack and stack[-1].end <= scopes[k].start:
                stack.pop()
            stack.append(scopes[k])
            k += 1
        while stack and stack[-1].end <= at:
            stack.pop()
        # (a scope pushed before an enclosing one ended may sit above it: keep those that contain `at`)
        chain = [s for s in stack if s.start <= at < s.end]
        if names is None:
            yield chain, payload[0], payload[1]
        else:
            yield chain, payload, names[payload][2]


def _is_local(chain: list[_Scope], name: str) -> bool:
    """Whether `name`, used in the innermost scope of `chain`, is a local variable of a function scope."""
    innermost = True
    for scope in reversed(chain):
        if scope.kind == CLASS and not innermost:
            continue  # a class body's names are not seen from the functions inside it
        innermost = False
        if name in scope.globals:
            return False
        if name in scope.nonlocals:
            continue
        if name in scope.defs:
            return False
        if name in scope.locals:
            return scope.kind != CLASS
    return False
