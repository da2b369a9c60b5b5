"""Tree-sitter extraction: one pass of a tags query over a parsed file, then a linear sweep.

The query (package data, `queries/<lang>.scm`) does the matching in C. Its captures follow one scheme:
`@def.<kind>` (a definition node) with `@name`, and optionally `@params`, `@return`, `@receiver`
(Go method receivers, C++ `Type::` qualifiers); `@scope.<kind>` (a naming scope that is not itself a
symbol: a Rust `impl`, a C++ namespace) with `@name`; `@ref.<role>` with `@name` and optionally
`@qual` (the receiver or module a name is reached through); `@import` (an import statement, read by
`imports.py`); `@bind.attr` (Python `self.x = value` with `@qual`, `@name`, `@value`, optional `@return`),
which only feeds the receiver types of `receiver_types.py`; `@local.<kind>` (the scopes and bindings that
tell a use of a local from one of a definition: `py_scopes.py`, `brace_scopes.py`), set aside for them.
The sweep then walks the matches in document order with a stack of open scopes, which gives every symbol its
qualified name and parent, and every reference its enclosing symbol (and, in Python, the declared class of
its receiver).
"""

from __future__ import annotations

import operator
import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache, partial
from typing import Any

import msgspec
from ctxops_contracts import Reference, Symbol

from . import lang_rules
from .default_export import default_export_rows
from .dunder_all import dunder_all_rows
from .generic_identity import own_typevars
from .go_blocks import GoScopes
from .imports import python_absolute_module, read_import
from .languages import ts_language, ts_query
from .operators import IN_PLACE, operator_step
from .overloads import is_overload
from .receiver_types import TypeFacts, constructor_type
from .records import Import
from .static_members import is_static, static_rows
from .symbol_ids import IdAllocator
from .ts_assigned import guarded_assignment, predicate_type
from .ts_blocks import misread
from .ts_patterns import declared_literal_type, literal_member, stated_base
from .type_exprs import (
    MAX_DEPTH,
    MAX_STEPS,
    Chain,
    chain_of,
    decorator_chain,
    fixture_name,
    fixture_params,
    is_context_manager,
    is_fixture_file,
    join,
    parametrized_names,
    py_as_self,
    py_assigned,
    py_narrowable,
    py_narrowed,
    py_narrowed_default,
    py_self_name,
    ts_call_context,
    ts_maybe_narrowed,
    ts_narrowed,
    ts_type,
)

MAX_SIGNATURE = 200
_NOT_A_NAME = re.compile("[()\\[\\]{}\n\"'`]")  # a qualifier with these is an expression, not a (dotted) name
_A_NAME = re.compile(r"[\w$#.]+")
_ORDER = {"def": 0, "scope": 0, "import": 1, "bind": 1, "ref": 2, "local": 3}
_NOT_TYPED = frozenset({"self", "cls", "this", "super", "?"})  # receivers resolved otherwise, or not at all
_NOT_TYPED_TS = frozenset({"this", "super", "?"})
_SCOPES = frozenset({"impl", "namespace"})  # naming scopes that are not symbols


@dataclass
class Extraction:
    symbols: list[Symbol] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    imports: list[Import] = field(default_factory=list)
    types: list[tuple[str | None, str | None, str]] = field(default_factory=list)  # (owner, name, type expr)
    has_error: bool = False
    # The tags query dropped patterns past `MATCH_LIMIT` open at once (hostile nesting): some rows are missing.
    query_cut: bool = False


# Real code keeps at most 17-32 of the tags query's patterns open at once (7,441 files: the stdlib, Go's
# x/tools, rxjs, vue, redis, ripgrep, commons-lang, nlohmann/json); each bracket level of a nesting the
# bracket scan (`depth.py`) did not see, out of step in a template or a regex literal, keeps more open, and
# tree-sitter advances every open one at every node: quadratic. Past the limit it drops the oldest.
MATCH_LIMIT = 256
# Nor does a pattern start deeper than this many tree levels (the deepest start in those files: 800-1,600,
# CPython's test_exceptions.py); past ~65k levels tree-sitter's query slows 30x per doubling, limit or not.
MAX_START_DEPTH = 4096


@dataclass(slots=True)
class _Open:
    """An open scope on the sweep's stack."""

    end_byte: int
    kind: str
    qualname: str
    symbol_id: str | None  # the nearest real symbol (a Rust impl block has none of its own)
    type_qualname: str | None = None  # the class a method belongs to, for `self.x` resolution
    receiver_var: str | None = None  # Go's `func (w *Worker)`: `w.x()` inside means `self.x()`


@cache
def _main_captures(lang: str) -> dict[int, tuple[str, int, str, str]]:
    """Per query pattern, its main capture, sort order and the capture's two halves (`ref`, `call`), learned
    on first sight (a pattern's main capture is never optional, so every match of the pattern has the same
    one; split once per pattern, not once per match)."""
    return {}


def _main_capture(caps: dict[str, list[Any]]) -> tuple[str, int, str, str]:
    for key in caps:
        if key.startswith(("def.", "ref.", "scope.", "bind.", "local.")) or key == "import":
            head, _, sub = key.partition(".")
            return key, _ORDER[head], head, sub
    return "", 0, "", ""


# (start, order, -end, pattern): matches in document order, outer before inner. A C key function, not a
# Python one (800k calls on the stdlib); the sort is stable, so equal keys keep the query's match order.
_sort_key = operator.itemgetter(0, 1, 2, 3)


@cache
def _parser(lang: str) -> Any:
    import tree_sitter

    return tree_sitter.Parser(ts_language(lang))


# tree-sitter-typescript reads a generic call signature on its own line (`<T>(fn: T): T` in an interface
# without `;` separators) as type arguments of the line before, and the error can swallow the whole
# file. TypeScript's own parser ends the member at the line break. The repair puts a `;` in place of one
# space of the next line's indentation (byte offsets and lines unchanged); it is kept only when the
# file then parses with less error.
_GENERIC_SIGNATURE = re.compile(
    rb"(?<=[\w$)\]>?])([ \t]*(?://[^\n]*)?\n(?:[ \t]*(?://[^\n]*)?\n)*)[ \t]"
    rb"(?=[ \t]*<[A-Za-z_$][\w$]*\s*(?:extends\b|=|,|>))"
)


def _error_bytes(node: Any) -> int:
    if node.type == "ERROR" or node.is_missing:
        return max(1, int(node.end_byte) - int(node.start_byte))
    return sum(_error_bytes(c) for c in node.children if c.has_error or c.is_missing)


def _repaired(source: bytes, tree: Any) -> Any:
    """The tree of `source` with generic call signatures separated, when that parses with less error."""
    fixed = _GENERIC_SIGNATURE.sub(lambda m: m.group(1) + b";", source)
    if fixed == source:
        return tree
    again = _parser("typescript").parse(fixed)
    return again if _error_bytes(again.root_node) < _error_bytes(tree.root_node) else tree


def extract(source: bytes, path: str, lang: str) -> Extraction:
    """Symbols, references and imports of one file in a tree-sitter language."""
    import tree_sitter

    tree = _parser(lang).parse(source)
    if lang == "typescript" and tree.root_node.has_error:
        tree = _repaired(source, tree)
    cursor = tree_sitter.QueryCursor(ts_query(lang), match_limit=MATCH_LIMIT)
    cursor.set_max_start_depth(MAX_START_DEPTH)
    mains = _main_captures(lang)
    items: list[tuple[int, int, int, int, str, dict[str, list[Any]], str, str]] = []
    local_matches: list[tuple[str, dict[str, list[Any]]]] = []  # (`@local.<kind>`: brace_scopes.py)
    go_binds = lang == "go"
    for pattern, caps in cursor.matches(tree.root_node):
        found = mains.get(pattern)
        if found is None:
            found = mains[pattern] = _main_capture(caps)
        main, order, head, sub = found
        if not main:
            continue
        if head == "local":  # (a binding for `brace_scopes`, read after the sweep)
            local_matches.append((sub, caps))
            continue
        if go_binds and head == "bind":  # (Go's typed locals and parameters are bindings for it too)
            local_matches.append((head, caps))
        node = caps[main][0]
        items.append((node.start_byte, order, -node.end_byte, pattern, main, caps, head, sub))
    items.sort(key=_sort_key)
    go_scopes = None
    if go_binds:  # (the consts' blocks too: `brace_scopes` reads the blocks queried here)
        consts = [c["decl"][0].start_byte for h, c in local_matches if h == "after"]
        go_scopes = GoScopes(tree.root_node, [c for h, c in local_matches if h == "bind"], consts)

    # (py-tree-sitter gives an int here, typed bool: read untyped, so a compiled build does not check it as bool)
    untyped: Any = cursor
    query_cut = bool(untyped.did_exceed_match_limit)
    out = Extraction(has_error=tree.root_node.has_error, query_cut=query_cut)
    ids = IdAllocator(lang, path)
    rules = lang_rules.rules_for(lang)
    stack: list[_Open] = []
    seen_defs: set[tuple[int, int]] = set()
    def_name_starts: set[int] = set()
    pending_parents: list[tuple[int, str]] = []  # (index in out.symbols, type qualname) resolved after the sweep
    type_ids: dict[str, str] = {}
    facts = TypeFacts() if lang in _TYPED_LANGS else None
    # (index in out.references, function id, class, the receiver as a chain when it is no plain name)
    typed_refs: list[tuple[int, str | None, str | None, Chain | None, int]] = []
    fallbacks: dict[int, str] = {}  # TypeScript `(a ?? K).m()`: ref index -> K (`_class_fallback`)
    python = lang == "python"
    chained = lang in _TYPED_LANGS  # languages whose receivers may be chains of calls (type_exprs.py)
    if facts is not None and lang == "go":
        facts.package_scope = True
        facts.go_scopes = go_scopes
    renamed: dict[int, str] = {}  # Go: ref index -> its qualifier with the local read where it is (`go_blocks`)
    if facts is not None and python:
        facts.python = True
    fixture_file = python and is_fixture_file(path)
    typescript = lang in ("typescript", "tsx")
    callbacks: list[tuple[str, dict[str, list[Any]]]] = []  # (function id, captures): bound after the sweep
    # TypeScript locals (function id, byte, bind): bound once the callbacks' scopes are known, in the innermost
    # scope around them (`f((x) => { const {a} = x; ... })`: `a` is the callback's, read on its `x`)
    ts_locals: list[tuple[str, int, Callable[[str], None]]] = []
    ts_methods: list[tuple[str, str, str | None, bool]] = []  # (id, qualname, parent id, static?): `static_rows`
    nested: list[tuple[str, str, int]] = []  # (function id, the function around it, where it starts)
    this_binds: list[tuple[str, int, str]] = []  # TypeScript `this: K` parameters: (function id, where, K)
    this_refs: list[tuple[int, str, int]] = []  # TypeScript `this.m()` outside a class: (ref index, function id, where)
    inherit_starts: set[int] = set()  # TypeScript: names read as bases
    narrowing: dict[tuple[int, str], Any] = {}  # Python: `py_narrowed`'s memo for this file
    narrowable = py_narrowable(source) if python else None  # Python: the names an `isinstance` may narrow
    instanceof = typescript and b"instanceof" in source  # TypeScript: no `instanceof`, nothing narrowed
    # TypeScript: refs whose receiver a union's narrowing may pick parts of, asked only of typed receivers
    maybe_narrowed = _MaybeNarrowed() if typescript else None
    flow: dict[int, Chain] = {}  # Python: ref index -> the value of the assignment reaching its receiver
    positions: dict[int, dict[int, int] | None] = {}  # Python: `a, b = ...`'s names by byte (`_slots`)
    unpacked: dict[int, list[Any]] = {}  # Python: `a, b = A(), B()`'s values, by the value list's id
    go_places: _GoPlaces = {}  # Go: `a, b := ...`'s names by byte and its values, by the declaration's id
    # TypeScript `const o = { m() {} }` at module level: the literal's start byte -> (o's qualname, o's id); its
    # methods are o's members (`o.m()`, as the compiler types `o`)
    object_owners: dict[int, tuple[str, str]] = {}

    for start, _order, neg_end, _pattern, main, caps, head, sub in items:
        while stack and stack[-1].end_byte <= start:
            stack.pop()
        top = stack[-1] if stack else None
        if head == "ref":
            name_node = caps["name"][0]
            if name_node.start_byte in def_name_starts:
                continue
            if typescript:  # a generic base `extends B<T>` is an `inherit` reference, not also a `type` one
                combined = sub == "inherit" and caps[main][0].type in _COMBINED_TYPES
                if combined and not _aliased_intersection(caps[main][0]):
                    continue
                if sub == "inherit" and caps[main][0].type == "extends_type_clause" and not _base_or_utility(name_node):
                    continue
                if sub == "inherit":
                    inherit_starts.add(name_node.start_byte)
                elif sub == "type" and name_node.start_byte in inherit_starts:
                    continue
            if go_binds and sub == "inherit" and facts is not None and top is not None and top.kind in _TYPE_LIKE:
                struct = caps[main][0]  # `type T struct { html.Config }`: a field `Config`, an html.Config
                if struct.type == "struct_type" and struct.parent is not None and struct.parent.type == "type_spec":
                    qual_node = caps.get("qual")
                    written = (_text(qual_node[0]) + "." if qual_node else "") + _text(name_node)
                    facts.add_field(top.qualname, _text(name_node), written)
            qual = caps.get("qual")
            direct = chain = None
            if qual:
                qnode = qual[0]
                qualifier = _qualifier(qnode)
                own_var = top.receiver_var if top is not None else None
                if own_var and go_scopes is not None and go_scopes.name_at(own_var, qnode.start_byte) != own_var:
                    own_var = None  # (Go: a local of a block named like the receiver hides it there)
                if own_var:
                    if qualifier == own_var:
                        qualifier = "self"
                    elif qualifier.startswith(own_var + "."):  # Go `e.x.Set()`: a field of the receiver
                        qualifier = "self" + qualifier[len(own_var) :]
                if go_scopes is not None and qualifier not in _NOT_TYPED:
                    first, dot, rest = qualifier.partition(".")
                    scoped = go_scopes.name_at(first, qnode.start_byte)
                    if scoped != first:
                        renamed[len(out.references)] = scoped + dot + rest
                if typescript and qualifier == "this" and sub == "call" and top is not None and top.symbol_id:
                    this_refs.append((len(out.references), top.symbol_id, name_node.start_byte))
                if facts is not None:
                    # `Client().get()`: the receiver is a constructor call, its class stated right there.
                    if qnode.type == "call":
                        direct = constructor_type(qnode)
                        if (
                            direct is not None
                            and python
                            and top is not None
                            and facts.local_binds(top.symbol_id, direct)
                        ):
                            direct = None  # (`F(...)` with a local or a parameter `F`: no class of the module)
                    elif typescript and qnode.type == "identifier" and sub == "call" and instanceof:
                        direct = ts_narrowed(qnode, qualifier)  # `if (x instanceof K) x.m()`
                    elif python and qnode.type == "identifier" and sub == "call" and top is None and chained:
                        # a module-level read: the module-level assignment reaching it (`saludo = Word(a) + ","`
                        # bound again further down: each use the binding before it, as a checker narrows it)
                        if qualifier in facts.module_chains and qualifier not in facts.module_stated:
                            found_flow = _py_flow(qnode, qualifier, narrowing)
                            if isinstance(found_flow, str):
                                direct = found_flow
                            elif found_flow is not None:
                                flow[len(out.references)] = found_flow
                    elif python and qnode.type == "identifier" and sub == "call" and top is not None:
                        if narrowable is None or qualifier in narrowable:
                            direct = py_narrowed(qnode, qualifier, narrowing)  # `if isinstance(x, K): x.m()`
                        # `x = K(...)`, `x = x.m()`: the assignment that reaches the call (only a name the
                        # function has assigned before it: the sweep recorded those)
                        if direct is None and qualifier in facts.chains.get(top.symbol_id or "", ()):
                            found_flow = _py_flow(qnode, qualifier, narrowing)
                            if isinstance(found_flow, str) and facts.local_binds(top.symbol_id, found_flow):
                                found_flow = None  # (`F = make_form(...)`; `x = F()`: F is no class here)
                            if isinstance(found_flow, str):
                                direct = found_flow
                            elif found_flow is not None and chained:
                                flow[len(out.references)] = found_flow
                    narrowed = bool(direct) and (typescript or qnode.type == "identifier")
                    named = qnode.type in ("identifier", "member_expression")
                    if maybe_narrowed is not None and named and not narrowed and sub == "call":
                        maybe_narrowed.sites[len(out.references)] = (qnode, qualifier.rpartition(".")[2])
                    if sub == "call" and not narrowed:
                        if chained and qualifier == "?":
                            chain = chain_of(qnode)
                            if typescript and (fallback := _class_fallback(qnode)) is not None:
                                fallbacks[len(out.references)] = fallback
                            if go_scopes is not None:
                                chain = go_scopes.chain(chain, qnode.start_byte)
                        # (`super().m()` in a class a function defines: its base, a name of that function)
                        untyped = _NOT_TYPED_TS if typescript else _NOT_TYPED  # (TypeScript: `self` is a name)
                        if qualifier not in untyped or chain or (python and qualifier == "super"):
                            typed_refs.append(
                                (
                                    len(out.references),
                                    top.symbol_id if top else None,
                                    top.type_qualname if top else None,
                                    chain,
                                    name_node.start_byte,
                                )
                            )
            else:
                qualifier = None
            point = name_node.start_point
            out.references.append(
                Reference(
                    symbol_name=name_node.text.decode("utf-8", "replace"),  # type: ignore[union-attr]
                    path=path,
                    line=point[0] + 1,
                    col=point[1],
                    role=sub,  # type: ignore[arg-type]
                    enclosing=top.symbol_id if top else None,
                    qualifier=qualifier,
                    receiver_type=direct,
                )
            )
            continue
        if head == "import":
            for imp in read_import(lang, caps["import"][0], path):
                out.imports.append(imp)
                if chained and facts is not None and imp.alias:
                    (facts.imported if imp.name else facts.module_aliases).add(imp.alias)
                    if python and imp.name and imp.name != "*":
                        facts.import_from[imp.alias] = f"{imp.module}.{imp.name}"
                    elif python and not imp.name:
                        facts.module_of[imp.alias] = imp.module
                if imp.name != "*":
                    out.references.append(
                        Reference(
                            symbol_name=(imp.alias if imp.name == "default" else imp.name)
                            or imp.module.rsplit(rules.module_separator, 1)[-1],
                            path=path,
                            line=imp.line,
                            role="import",
                            enclosing=top.symbol_id if top else None,
                            qualifier=imp.module if imp.name else None,
                        )
                    )
            continue
        if head == "bind" and sub == "local":
            if typescript and facts is not None and top is None:  # a local of a module-level callback, if in one
                _module_callback_local(caps, facts, ts_locals)
            elif facts is not None and top is not None and top.symbol_id and top.kind in ("function", "method"):
                stated = caps.get("type")
                local_node = caps["bind.local"][0]
                local = _text(caps["name"][0])
                if go_scopes is not None:  # (a local of a block: its own name in the facts, `go_blocks`)
                    local = go_scopes.declared.get(caps["name"][0].start_byte, local)
                    # `switch m := v.(type) { case T: ... }`: m is a T in that clause
                    for scoped, written in go_scopes.case_types.get(caps["name"][0].start_byte, ()):
                        facts.add_stated(top.symbol_id, scoped, written)
                if stated and typescript:  # `x: K`, `x: K | null`, `xs: K[]`
                    if local_node.type == "variable_declarator":  # (a local: in the scope around it, see `ts_locals`)
                        bind_stated = _later(facts.add_ts_stated, _text(caps["name"][0]), _text(stated[0]))
                        ts_locals.append((top.symbol_id, local_node.start_byte, bind_stated))
                    elif _own_param(local_node):
                        facts.add_ts_stated(top.symbol_id, _text(caps["name"][0]), _text(stated[0]))
                elif lang == "go" and (placed := _go_placed(caps["bind.local"][0], caps["name"][0], go_places)):
                    _bind_go_placed(facts, top.symbol_id, local, placed)
                elif stated:  # Go: the type is written (`x := &T{}`, `var x T`, a parameter `x *T`, `x.(T)`)
                    variadic = caps["bind.local"][0].type == "variadic_parameter_declaration"  # `opts ...T`: a []T
                    facts.add_stated(top.symbol_id, local, "[]" * variadic + _text(stated[0]))
                elif "caught" in caps:  # Python `except K as e`
                    facts.add_caught(top.symbol_id, local, _text(caps["caught"][0]))
                elif "element" in caps:  # Go `for _, x := range xs`: an element of xs
                    facts.add_local_chain(
                        top.symbol_id,
                        local,
                        _step(facts.scoped(chain_of(caps["element"][0]), caps["element"][0]), "[]"),
                    )
                else:
                    value = caps.get("value")
                    if not (value and value[0].type in _FUNCTION_VALUES):  # (a function is a symbol of its own)
                        if typescript:
                            bind_value = _later(facts.add_local, local, value[0] if value else None)
                            ts_locals.append((top.symbol_id, local_node.start_byte, bind_value))
                        else:
                            facts.add_local(top.symbol_id, local, value[0] if value else None)
            continue
        if head == "bind" and sub == "member":  # (read as a callback: a scope of its own)
            member = _literal_callback(caps) if facts is not None else None
            if member is not None and top is None:
                callbacks.append(("", member))
            elif member is not None and top is not None and top.symbol_id and top.kind in ("function", "method"):
                callbacks.append((top.symbol_id, member))
            continue
        if head == "bind" and sub == "callback" and facts is not None and top is None:
            callbacks.append(("", caps))  # a callback at module level (`const K = make((inst) => ...)`)
            continue
        if head == "bind" and sub in ("destructure", "element", "callback", "prop", "this", "rows"):
            if typescript and facts is not None and top is None and sub in ("destructure", "element"):
                bind_pattern = _in_callback(partial(_bind_ts, facts, sub, None, caps))  # (as a local, above)
                ts_locals.append(("", caps[f"bind.{sub}"][0].start_byte, bind_pattern))
            elif facts is not None and top is not None and top.symbol_id and top.kind in ("function", "method"):
                if sub == "callback":
                    callbacks.append((top.symbol_id, caps))
                elif sub == "this":
                    this_binds.append((top.symbol_id, start, _text(caps["type"][0])))
                elif typescript and sub in ("destructure", "element"):
                    bind_pattern = _later(partial(_bind_ts, facts, sub, top, caps))
                    ts_locals.append((top.symbol_id, caps[f"bind.{sub}"][0].start_byte, bind_pattern))
                else:
                    _bind_ts(facts, sub, top, caps)
            continue
        if head == "bind" and sub == "yield":
            if facts is not None and top is not None and top.symbol_id and top.kind in ("function", "method"):
                facts.generators.add(top.symbol_id)
            continue
        if head == "bind" and sub == "return":
            fid = top.symbol_id if top is not None and top.kind in ("function", "method") else None
            node = caps["bind.return"][0]
            own = top is not None and (not typescript or _returns_from(node, top))  # (not a callback's return)
            if facts is not None and fid and own and not _text(node).startswith("yield from"):
                returned = caps["value"][0]
                name = _text(returned) if python and returned.type == "identifier" else ""
                # `ret = self * n; ret = cast(K, ret); return ret`: the assignment reaching the return (a name
                # bound once keeps its one value's reading)
                bound = facts.chains.get(fid, {})
                flowed = _py_flow(returned, name, narrowing) if name in bound and bound[name] is None else None
                if name and flowed is None:  # `if not isinstance(p, K): p = K()`; `return p`: a K
                    flowed = py_narrowed_default(returned, name, narrowing)
                if isinstance(flowed, str) and facts.local_binds(fid, flowed):
                    flowed = None  # (`F = make(...)`; `return F()`-like names: no class of the module)
                if python and flowed is None and top is not None and top.receiver_var:
                    flowed = py_as_self(returned, top.receiver_var)  # `def m(s): return s.__class__(...)`
                facts.add_return(fid, returned, flowed)
                if typescript and returned.type in _FUNCTION_VALUES and fid in facts.stated_returns:
                    # `function f(): GenParse { return (cxt) => ... }`: the declared result's parameters
                    result_type = stated_base(facts.stated_returns[fid])
                    if result_type is not None:
                        callbacks.append((fid, {"fn": [returned], "declared": [result_type], "key": []}))
            continue
        if head == "bind":
            if facts is not None and python:  # (`Cls._parse = ...` anywhere: a class body's alias is rebound)
                facts.rebound_attrs.add(_text(caps["name"][0]))
            bound_on = _text(caps["qual"][0])
            # (`s.x = K()` in `def m(s)`: the instance's attribute, as `self.x`)
            on_self = (
                facts is not None
                and top is not None
                and (bound_on == "self" or (python and bound_on == top.receiver_var))
            )
            if sub == "augmented":
                if on_self and python and facts is not None and top is not None and _in_method(top, facts):
                    facts.add_augmented_attr(top.type_qualname or "", _text(caps["name"][0]))
            elif (
                on_self
                and facts is not None
                and top is not None
                and (_in_init(top) or (python and _in_method(top, facts)))
            ):
                add = facts.add_self_attr if _in_init(top) else facts.add_method_attr
                ann, value = caps.get("return"), caps.get("value")
                add(
                    top.type_qualname or "",
                    top.symbol_id or "",
                    _text(caps["name"][0]),
                    ann[0] if ann else None,
                    value[0] if value else None,
                )
            continue
        name_nodes = caps.get("name")
        if not name_nodes:
            continue
        name_node = name_nodes[-1]
        def_key = (start, name_node.start_byte)
        if def_key in seen_defs:
            continue
        seen_defs.add(def_key)
        node = caps[main][0]
        name = rules.clean_name(_text(name_node))
        if not name:
            continue
        receiver = caps.get("receiver")
        prefix = rules.receiver_type(_text(receiver[0])) if receiver else None
        if head == "scope":
            qualname = _join(top.qualname if top else None, name)
            stack.append(
                _Open(-neg_end, sub, qualname, top.symbol_id if top else None, qualname if sub == "impl" else None)
            )
            continue
        kind = rules.refine_kind(sub, name, top.kind if top else None, node)
        if kind is None:
            value = caps.get("value")
            if facts is not None and top is not None and top.symbol_id:
                # Every assignment counts: one that states no type still hides a module-level instance.
                if python and not value and (mapped := _mapped(node, name_node, positions)) is not None:
                    facts.add_bound(top.symbol_id, name, mapped)  # `a, b = map(K, "ab")`: each a K
                    continue
                if python and not value and (item := _tuple_item(node, name_node, positions)) is not None:
                    facts.add_bound(top.symbol_id, name, item)  # `a, b = f()`: f's result's item at a's position
                    continue
                if python and not value:
                    value = _unpacked(node, name_node, positions, unpacked)  # `a, b = A(), B()`: by position
                facts.add_local(top.symbol_id, name, (_chained(value[0]) if python else value[0]) if value else None)
                declared = caps.get("return")
                if declared and python:  # `x: K = ...`: the declared type holds for every use
                    facts.add_declared(top.symbol_id, name, _text(declared[0]))
            continue
        if facts is not None and top is None and (kind == "variable" or (python and kind == "constant")):
            value = caps.get("value")
            if lang == "go" and (placed := _go_placed(node, name_node, go_places)):
                _bind_go_placed(facts, None, name, placed)  # `var a, b = f()` at package level: b by position
                value = None
            if python and not value:  # (unpacked at module level, as in a function above)
                if (mapped := _mapped(node, name_node, positions)) is not None:
                    facts.add_bound(None, name, mapped)
                elif (item := _tuple_item(node, name_node, positions)) is not None:
                    facts.add_bound(None, name, item)
                else:
                    value = _unpacked(node, name_node, positions, unpacked)
            if value:
                facts.add_module(name, _chained(value[0]) if python else value[0])
            stated = caps.get("return")
            if stated and python:
                facts.add_module_stated(name, _text(stated[0]))
            elif stated and typescript:
                facts.add_ts_module_stated(name, _text(stated[0]))
            elif "vartype" in caps:  # Go `var VersionFlag Flag = BoolFlag{...}`: the written type (issue 24)
                facts.add_go_module_stated(name, _text(caps["vartype"][0]))
            elif lang == "go" and value and (literal := _go_literal_type(value[0])) is not None:
                facts.add_go_module_stated(name, literal)  # `var Linkify = &linkify{}`: a *linkify, as go/types
        if prefix:
            qualname = _join(top.qualname if top and top.kind in _SCOPES else None, prefix + "." + name)
            type_qualname: str | None = _join(top.qualname if top and top.kind in _SCOPES else None, prefix)
            if kind == "function":
                kind = "method"
        else:
            qualname = _join(top.qualname if top else None, name)
            type_qualname = top.type_qualname if top else None
        owner = _object_owner(node, object_owners) if typescript and top is None and kind == "method" else None
        if owner is not None:
            qualname = owner[0] + "." + name
        sid = ids.allocate(qualname, kind)
        parent_id = top.symbol_id if top else (owner[1] if owner is not None else None)
        if typescript and top is None and kind in ("variable", "constant") and (obj := _object_const(node)):
            object_owners[obj.start_byte] = (qualname, sid)
            if facts is not None:
                facts.object_consts.add(name)
        if (top is not None and top.kind == "impl") or prefix:
            pending_parents.append((len(out.symbols), type_qualname or ""))
        def_name_starts.add(name_node.start_byte)
        params = caps.get("params")
        ret = caps.get("return")
        start_line = node.start_point[0] + 1
        signature = _signature(params[0] if params else None, ret[0] if ret else None)
        if facts is not None and typescript and kind in ("function", "method", "class", "interface", "type"):
            generic = node.child_by_field_name("type_parameters")
            if generic is None and node.type == "variable_declarator":
                fn = node.child_by_field_name("value")
                generic = fn.child_by_field_name("type_parameters") if fn is not None else None
            if generic is not None:
                facts.add_ts_generics(sid if kind in ("function", "method") else qualname, generic)
            if kind == "class" and (base_args := _ts_base_args(node)):
                facts.add_ts_base_args(qualname, base_args)
            if kind in ("function", "method") and top is not None and top.symbol_id and top.kind in _FUNCTIONS:
                facts.outer[sid] = top.symbol_id  # (before its result and parameters: they may use its generics)
        if facts is not None:
            if kind in ("function", "method") and params:
                facts.add_params(sid, params[0], signature)
                if python:
                    is_async = any(c.type == "async" for c in node.children[:2])
                    facts.add_function(
                        sid,
                        type_qualname,
                        _text(ret[0]) if ret else None,
                        is_async=is_async,
                        yields=is_context_manager(node),
                    )
                    plain = node.parent is None or node.parent.type != "decorated_definition"  # (no decorator)
                    if kind == "function" and top is None and ret and node.type == "function_definition" and plain:
                        facts.add_identity(sid, params[0], _text(ret[0]), own_typevars(node))
                    if kind == "function" and is_overload(node):
                        facts.add_overload(sid, params[0])
                    elif kind == "function" and (decorated := decorator_chain(node)) is not None:
                        outer = top.symbol_id if top is not None and top.kind in ("function", "method") else None
                        if top is None or outer is not None:  # (a class body's method is no name of a scope)
                            facts.add_decorated(outer, name, decorated)
                    fixture = fixture_name(node)
                    if fixture is not None:  # (in any file: a conftest.py may import it)
                        facts.add_fixture(sid, fixture, _text(ret[0]) if ret else None)
                    if fixture_file and (fixture is not None or name.startswith("test")):
                        parametrized = parametrized_names(node) if fixture is None else frozenset()
                        facts.add_fixture_params(sid, fixture_params(params[0], parametrized))
                elif lang == "go":
                    facts.classes[sid] = type_qualname  # (a method's receiver type: what `r.f` is read on)
                    if ret:
                        facts.add_go_result(sid, _text(ret[0]))
                elif typescript:
                    if kind == "method":  # (`static_members`: a static and an instance method of one name)
                        ts_methods.append((sid, qualname, parent_id, is_static(node)))
                    facts.add_ts_result(sid, type_qualname, _text(ret[0]) if ret else None)
                    if ret and type_qualname and (guarded := predicate_type(_text(ret[0]))) is not None:
                        facts.add_ts_field(type_qualname, name + "()is", guarded)  # `isLong(v): v is Long`
                    if top is None and kind == "function" and ret:  # `f(): {high: Long}`: `f().high` a Long
                        facts.add_ts_object_result(name, _text(ret[0]))
                    facts.add_ts_callbacks(sid, params[0], _text(ret[0]) if ret else None)
                    if node.type == "method_signature":  # `interface Def { code(cxt: K): void }`
                        facts.add_ts_member_params(sid, params[0], type_qualname)
                    facts.add_ts_patterns(sid, params[0], _contextual(node))
                if top is not None and top.symbol_id and top.kind in ("function", "method"):
                    facts.outer[sid] = top.symbol_id  # a closure sees the names of the function around it
                    nested.append((sid, top.symbol_id, node.start_byte))
            elif kind == "class" and lang == "python":
                if params:
                    facts.add_bases(qualname, _text(params[0]))
                if top is not None and top.kind in ("function", "method"):
                    facts.nested_classes.add(qualname)
            elif kind == "type" and typescript and (alias := node.child_by_field_name("value")) is not None:
                if alias.type == "function_type" and (alias_params := alias.child_by_field_name("parameters")):
                    facts.add_ts_alias_params(qualname, alias_params)  # `type GenParse = (cxt: C) => void`
            elif kind == "type" and lang == "go" and "underlying" in caps:
                facts.add_go_underlying(qualname, _text(caps["underlying"][0]))
            elif kind == "field" and python and not ret and top is not None and (cv := caps.get("value")):
                facts.add_class_value(top.qualname, name, cv[0])
            elif kind == "field" and ret and top is not None and typescript:
                facts.add_ts_field(top.qualname, name, _text(ret[0]), node.type == "public_field_definition")
                if (made := _function_type_result(ret[0])) is not None:  # `m: () => K`: `x.m()` is a K
                    facts.add_ts_field(top.qualname, name + "()", made)
                if node.type == "property_signature" and (fn_params := _function_type_params(ret[0])) is not None:
                    facts.add_ts_member_params(sid, fn_params, top.qualname)  # `code: (cxt: K) => void`
            elif kind == "field" and top is not None and typescript and (made := _ts_new_type(caps.get("value"))):
                facts.add_ts_field(top.qualname, name, made)  # `private m = new SafeMap<K, V>()`: a SafeMap
            elif kind == "field" and not ret and top is not None and typescript and (cv := caps.get("value")):
                facts.add_ts_field_value(top.qualname, name, cv[0])  # `static ZERO = Long.fromInt(0)`: a Long
            elif kind == "field" and ret and top is not None:
                facts.add_field(top.qualname, name, _text(ret[0]))
            if typescript and top is not None and top.kind in _TYPE_LIKE and kind in ("field", "method"):
                facts.add_ts_member(top.qualname, name, _text(ret[0]) if ret and kind == "field" else None)
        out.symbols.append(
            Symbol(
                id=sid,
                name=name,
                qualname=qualname,
                kind=kind,  # type: ignore[arg-type]
                lang=lang,
                path=path,
                line=start_line,
                end_line=max(start_line, node.end_point[0] + 1 - (1 if node.end_point[1] == 0 else 0)),
                signature=signature,
                doc=rules.doc(node),
                parent=parent_id,
                exported=rules.exported(kind, name, node, top.kind if top else None),
            )
        )
        if kind in _TYPE_LIKE:
            type_ids.setdefault(qualname, sid)
        if kind not in _LEAF_KINDS or (kind == "type" and typescript):  # (a TS object type has members)
            own_type = qualname if kind in _TYPE_LIKE else type_qualname
            receiver_var = caps.get("receiver_var")
            var = _text(receiver_var[0]) if receiver_var else None
            if python and kind == "method" and params:  # `def visit(s, node)`: `s.x()` is `self.x()`
                var = py_self_name(node, params[0])
            stack.append(_Open(node.end_byte, kind, qualname, sid, own_type, var))

    scopes = _CallbackScopes()
    if facts is not None and callbacks:
        scopes.bind(facts, callbacks, nested, path, ts_locals)
    else:
        for fid, _at, bind_local in ts_locals:
            bind_local(fid)
    if facts is not None and facts.entries:
        facts.settle_entries()
    if facts is not None and this_binds:
        _this_types(out.references, facts, scopes, this_binds, this_refs)
    if python and facts is not None and path.rpartition("/")[2] == "__init__.py":
        _package_submodules(out, facts, path)
    if python and facts is not None:
        facts.settle_attrs()
    if facts is not None and typed_refs and typescript and local_matches:
        # (a receiver whose first name the facts would read from another block's binding: no type, `ts_blocks`)
        blocked = misread(lang, tree.root_node, local_matches, _first_names(typed_refs, out.references))
        typed_refs = [t for t in typed_refs if t[0] not in blocked]
    if facts is not None and typed_refs:
        _add_receiver_types(
            out.references,
            typed_refs,
            facts,
            chained,
            scopes,
            values=typescript,
            flow=flow,
            narrowed=maybe_narrowed,
            renamed=renamed,
            fallbacks=fallbacks,
        )
    if facts is not None and typescript and facts.callbacks:
        _unlisted_overloads(out.symbols, facts)
    if facts is not None:
        out.types = facts.type_rows(type_ids)
    if ts_methods:
        out.types.extend(static_rows(ts_methods))
    if python and b"__all__" in source:  # (most modules state none: no walk of their statements)
        out.types.extend(dunder_all_rows(tree.root_node))
    if lang in ("typescript", "tsx", "javascript") and b"default" in source:  # (most have none: no walk)
        out.types.extend(default_export_rows(tree.root_node))
    if python and facts is not None and facts.class_objects:
        out.references.extend(_stated_bases(out.references, facts.class_objects))
    if python and facts is not None:
        out.references.extend(_attribute_bases(out.references, out.symbols, facts))
    for index, type_qualname in pending_parents:
        parent = type_ids.get(type_qualname)
        if parent is not None:
            sym = out.symbols[index]
            out.symbols[index] = Symbol(**{**_as_dict(sym), "parent": parent})
    if python or local_matches:
        _drop_locals(tree.root_node, lang, out, local_matches, go_scopes.blocks if go_scopes is not None else None)
    return out


def _object_const(node: Any) -> Any:
    """TypeScript `const o = { ... }` with no written type: the object literal (a `let` may be reassigned, a
    written type is what the compiler reads instead)."""
    value = node.child_by_field_name("value")
    if value is None or value.type != "object" or node.child_by_field_name("type") is not None:
        return None
    declaration = node.parent
    if declaration is None or declaration.type != "lexical_declaration" or declaration.child(0).type != "const":
        return None
    return value


def _object_owner(node: Any, owners: dict[int, tuple[str, str]]) -> tuple[str, str] | None:
    """The module-level object-literal const whose literal holds the method `node` directly."""
    holder = node.parent
    return owners.get(holder.start_byte) if holder is not None and holder.type == "object" else None


_BODIES = frozenset({"function", "class"})


def _package_submodules(out: Extraction, facts: TypeFacts, path: str) -> None:
    """Python: a package's `__init__.py` importing from its own submodule (`from .loader import *`) has the
    submodule bound as `loader` too: importing it sets the package's attribute, and the package's attributes
    are the `__init__`'s globals (`loader.Loader.m()` in PyYAML's `__init__`). Only a name nothing else of
    the file binds (a definition, an assignment, an import of that name: those win, as Python rebinds).
    Any module-level import of the submodule binds it (`import pkg.sub`, `from pkg.sub import f`), and the
    package may be written by its name below the repository root (`src/humanize/__init__.py` importing
    `humanize.i18n`). An import in a def or class body is left: it binds the attribute only once it runs."""
    package = python_absolute_module(".", path)
    if not package:
        return
    bound = facts.imported | facts.module_aliases | facts.module_chains.keys() | facts.module_stated.keys()
    bound |= {s.name for s in out.symbols if "." not in s.qualname}
    parts = package.split(".")
    # the names the package may be imported by: `src.humanize` and `humanize` (a dict: longest first)
    names = {".".join(parts[i:]) + ".": None for i in range(len(parts))}
    # top-level defs and classes do not overlap: their (start, end) lines sorted, found by bisection
    bodies = sorted((s.line, s.end_line) for s in out.symbols if "." not in s.qualname and s.kind in _BODIES)
    starts = [b[0] for b in bodies]
    for imp in list(out.imports):
        prefix = next((n for n in names if imp.module.startswith(n)), None)
        if prefix is None:
            continue
        at = bisect_right(starts, imp.line) - 1
        if at >= 0 and imp.line <= bodies[at][1]:  # (bisect_right: the start is <= the line)
            continue
        sub = imp.module[len(prefix) :].partition(".")[0]  # (`from .a.b import x` imports and binds `a`)
        if not sub or sub in bound:
            continue
        bound.add(sub)
        module = prefix + sub
        out.imports.append(Import(path=path, lang="python", module=module, name=None, alias=sub, line=imp.line))
        facts.module_aliases.add(sub)
        facts.module_of[sub] = module


def _drop_locals(
    root: Any,
    lang: str,
    out: Extraction,
    matches: list[tuple[str, dict[str, list[Any]]]],
    blocks: list[Any] | None = None,
) -> None:
    """Leave out the bare-name uses that mean a local variable (a parameter, an assignment target, ...): no
    definition of the same name is what they use. Python by `py_scopes`, Go, JavaScript and TypeScript by
    `brace_scopes`, each from the tags query's `@local.*` ``matches`` (in JavaScript and TypeScript a call is in the
    value namespace, a type reference in the type namespace; Go has one). ``blocks``: Go's blocks when `go_blocks`
    queried them (not queried again)."""
    python, go = lang == "python", lang == "go"
    at: list[int] = []
    for i, r in enumerate(out.references):
        if r.qualifier is None and r.role != "import" and (python or go or r.role in ("call", "type")):
            at.append(i)
    if not at:
        return
    refs = out.references
    if python:
        from .py_scopes import shadowed

        drop = shadowed([(refs[i].line - 1, refs[i].col, refs[i].symbol_name) for i in at], matches)
    else:
        from .brace_scopes import TYPE, VALUE
        from .brace_scopes import shadowed as brace_shadowed

        namespace = [TYPE if refs[i].role == "type" and not go else VALUE for i in at]
        uses = [(refs[i].line - 1, refs[i].col, refs[i].symbol_name, ns) for i, ns in zip(at, namespace, strict=True)]
        drop = brace_shadowed(lang, root, uses, matches, blocks)
    if drop:
        gone = {at[k] for k in drop}
        out.references = [r for i, r in enumerate(refs) if i not in gone]


def _stated_bases(refs: list[Reference], class_objects: dict[str, str]) -> list[Reference]:
    """`class TinyDB(TableBase)` with `TableBase: type[Table] = with_typehint(Table)`: a checker reads the base
    as Table (its stated type), so the class also inherits from Table (an `inherit` reference beside the one
    to the name as written)."""
    out: list[Reference] = []
    for ref in refs:
        made = class_objects.get(ref.symbol_name) if ref.role == "inherit" and not ref.qualifier else None
        if made is not None:
            qualifier, _, name = made.rpartition(".")
            out.append(msgspec.structs.replace(ref, symbol_name=name, qualifier=qualifier or None))
    return out


def _attribute_bases(refs: list[Reference], symbols: list[Symbol], facts: TypeFacts) -> list[Reference]:
    """`class DefaultCache(self.Cache)` in a method of a class stating `Cache: type[K]` (or `Cache = K`): a
    checker reads the base as K, so the class also inherits from K (an `inherit` reference beside the one to
    the attribute as written)."""
    wanted = [r for r in refs if r.role == "inherit" and r.qualifier in ("self", "cls") and r.enclosing]
    if not wanted:
        return []
    by_id = {s.id: s for s in symbols}
    out: list[Reference] = []
    for ref in wanted:
        made = by_id.get(ref.enclosing or "")
        method = by_id.get(made.parent or "") if made is not None else None
        owner = facts.classes.get(method.id) if method is not None else None
        base = facts.class_attr(owner, ref.symbol_name + "()") if owner else None
        if base is not None and _CLASS_NAME.fullmatch(base):
            qualifier, _, name = base.rpartition(".")
            out.append(msgspec.structs.replace(ref, symbol_name=name, qualifier=qualifier or None))
    return out


_MAX_TARGETS = 8  # `a = b = ... = K()`: targets read before a chained assignment's value is not read


def _chained(value: Any) -> Any:
    """Python `a = b = K()`: every target binds the last value (the right side of `a` is the assignment `b =
    K()`). Read only so far (a hostile chain of thousands of targets would make each target walk the rest)."""
    for _ in range(_MAX_TARGETS):
        if value is None or value.type != "assignment":
            return value
        value = value.child_by_field_name("right")
    return None


def _slots(left: Any, positions: dict[int, dict[int, int] | None]) -> dict[int, int] | None:
    """Python: an unpacking pattern's names by start byte -> position, None unless all are plain names. Read
    once per pattern (`positions`): asked for each of its n names, so one pass, not one per name."""
    if left.id not in positions:
        names = left.named_children
        plain = all(n.type == "identifier" for n in names)
        positions[left.id] = {n.start_byte: i for i, n in enumerate(names)} if plain else None
    return positions[left.id]


def _unpacked(
    node: Any, name_node: Any, positions: dict[int, dict[int, int] | None], unpacked: dict[int, list[Any]]
) -> list[Any] | None:
    """Python `a, b = A(), B()` (as many plain names as values, no star): the value at the name's position,
    as a checker pairs a tuple's items (boltons' `bx, by = BufferedSocket(x), BufferedSocket(y)`). The values
    are listed once per assignment (`unpacked`)."""
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None or left.type not in ("pattern_list", "tuple_pattern"):
        return None
    if right.type not in ("expression_list", "tuple") or name_node.parent != left:
        return None
    slots = _slots(left, positions)
    if slots is None:
        return None
    values = unpacked.get(right.id)
    if values is None:
        values = unpacked[right.id] = right.named_children
    if len(slots) != len(values):
        return None
    return [values[slots[name_node.start_byte]]]


def _mapped(node: Any, name_node: Any, positions: dict[int, dict[int, int] | None]) -> Chain | None:
    """Python `a, b = map(K, "ab")` (plain names, no star; `K` a name or a dotted name): each name is what
    calling K gives, as a checker reads `map[K]` unpacked (pyparsing's `LPAR, RPAR = map(Suppress, "()")`).
    The chain `K(...)`; None for anything else."""
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None or left.type not in ("pattern_list", "tuple_pattern") or right.type != "call":
        return None
    fn, args = right.child_by_field_name("function"), right.child_by_field_name("arguments")
    if fn is not None and args is not None and _text(fn) in ("list", "tuple") and args.named_child_count == 1:
        inner = args.named_children[0]  # `list(map(K, ...))`: the same items
        if inner.type == "call":
            fn, args = inner.child_by_field_name("function"), inner.child_by_field_name("arguments")
    if fn is None or args is None or _text(fn) != "map" or name_node.parent != left:
        return None
    if _slots(left, positions) is None:
        return None
    listed = args.named_children
    if len(listed) < 2 or any(a.type in ("keyword_argument", "list_splat", "dictionary_splat") for a in listed):
        return None
    if listed[0].type not in ("identifier", "attribute"):
        return None
    found = chain_of(listed[0])
    if found is None or found[0] or any(step.endswith(")") for step in found[2]):
        return None
    _, root, steps = found
    return (True, root, ()) if not steps else (False, root, (*steps[:-1], steps[-1] + "()"))


_UNPACKED_BUILTINS = frozenset({"map", "zip", "list", "tuple", "sorted", "reversed", "divmod", "enumerate"})


def _tuple_item(node: Any, name_node: Any, positions: dict[int, dict[int, int] | None]) -> Chain | None:
    """Python `a, b = f(...)` / `a, b = self.m()` (plain names, no star): the call's chain with the step `[i]`,
    the item at the name's position of the tuple the callee states or returns (its `[i]` row, `type_rows`),
    as a checker unpacks `tuple[A, B]`. `positions` memoizes each pattern's names by byte (one pass over a
    pattern of n names, not one per name). None for anything else."""
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None or left.type not in ("pattern_list", "tuple_pattern") or right.type != "call":
        return None
    fn = right.child_by_field_name("function")
    if name_node.parent != left or fn is None or _text(fn) in _UNPACKED_BUILTINS:
        return None  # (`map(...)` is `_mapped`'s: one it does not read is no function of the module's)
    found = _slots(left, positions)
    i = found.get(name_node.start_byte) if found is not None and len(found) > 1 else None
    return _step(chain_of(right), f"[{i}]") if i is not None else None


_MAX_INTERSECTED = 24  # levels of `type P = A & B & ...` read (a part walks up through the parts after it)


def _ts_new_type(value: list[Any] | None) -> str | None:
    """TypeScript: the type a field's initializer `new K<A>(...)` gives it, as written (`K<A>`: ts_type reads
    `Map<_, V>` and `Set<V>` as containers); None for anything else (`new ns.K()` included)."""
    node = value[0] if value else None
    if node is None or node.type != "new_expression":
        return None
    ctor = node.child_by_field_name("constructor")
    if ctor is None or ctor.type != "identifier":
        return None
    args = node.child_by_field_name("type_arguments")
    return _text(ctor) + (_text(args) if args is not None else "")


_COMBINED_TYPES = ("intersection_type", "union_type")
# Utility types whose members are their first argument's (homomorphic mapped types: the compiler keeps the
# base's declarations), `interface Nothing<T> extends Omit<MaybeImpl<T>, 'value'>`.
_UTILITY_BASES = frozenset({"Omit", "Pick", "Partial", "Readonly", "Required"})


def _aliased_intersection(node: Any) -> bool:
    """TypeScript: whether the intersection or union `node` is (a left part of) a type alias's value, `type P
    = A & B & C` (nested `((A & B) & C)`), `type M = A | B`: read up to `_MAX_INTERSECTED` levels, so a long
    one costs a bounded walk per part (its first parts, the deepest, are not read)."""
    kind = node.type
    for _ in range(_MAX_INTERSECTED):
        parent = node.parent
        if parent is None:
            return False
        if parent.type == "type_alias_declaration":
            value = parent.child_by_field_name("value")
            return value is not None and value.id == node.id
        if parent.type != kind:
            return False
        node = parent
    return False


def _base_or_utility(name_node: Any) -> bool:
    """TypeScript `extends` of an interface: whether `name_node` names a base (`B`, `B<T>`, `ns.B`) or the first
    argument of a utility type (`Omit<B<T>, 'k'>`), not an argument of a generic base (`Box<K>`)."""
    node = name_node.parent
    if node is not None and node.type == "generic_type":
        own = node.child_by_field_name("name")
        if own is not None and own.id == name_node.id:
            node = node.parent
    if node is None or node.type != "type_arguments":
        return True
    generic = node.parent
    name = generic.child_by_field_name("name") if generic is not None else None
    return name is not None and name.type == "type_identifier" and name.text.decode() in _UTILITY_BASES


_GoPlaces = dict[int, tuple[dict[int, int], list[Any]] | None]


def _go_placed(node: Any, name_node: Any, places: _GoPlaces) -> tuple[int, list[Any]] | None:
    """Go `a, b := f()` / `var a, b = f()` / `a, b := A{}, B{}`: (the name's position, the values) for a
    name past the first, as go/types pairs them (a type written for all, `var a, b T`, holds instead; a type
    a pattern read from the first value, `var a, b = A{}, B{}`, is not b's); None for the first name (its
    own patterns read it) and anything else. Names and values are read once per declaration (`places`)."""
    if node.id not in places:
        places[node.id] = None
        if node.type == "short_var_declaration":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            names = left.named_children if left is not None else []
        elif node.type == "var_spec" and node.child_by_field_name("type") is None:
            right = node.child_by_field_name("value")
            names = [c for c in node.named_children if c.type == "identifier"]  # (the names come first)
        else:
            names, right = [], None
        if right is not None and len(names) > 1:
            values = [c for c in right.named_children if c.type != "comment"]
            places[node.id] = ({n.start_byte: i for i, n in enumerate(names)}, values)
    found = places[node.id]
    i = found[0].get(name_node.start_byte, 0) if found is not None else 0
    return (i, found[1]) if found is not None and i > 0 else None


def _go_literal_type(value: Any) -> str | None:
    """Go `T{...}` / `&T{...}`: the type written (`T`), what the value is; None for any other value."""
    literal = value.child_by_field_name("operand") if value.type == "unary_expression" else value
    typ = literal.child_by_field_name("type") if literal is not None and literal.type == "composite_literal" else None
    return _text(typ) if typ is not None else None


def _bind_go_placed(facts: TypeFacts, function_id: str | None, name: str, placed: tuple[int, list[Any]]) -> None:
    """The name at position i: the i-th value where names and values pair, else the call's result `[i]`
    (its row, `_item_rows`), else no known type."""
    i, values = placed
    if len(values) > i and len(values) > 1:  # (read as `b := B{}` is)
        value = values[i] if values[i].type not in _FUNCTION_VALUES else None
        written = _go_literal_type(value) if value is not None else None
        if written is not None and function_id is not None:
            facts.add_stated(function_id, name, written)
        elif written is not None:
            facts.add_go_module_stated(name, written)
        elif function_id is not None:
            facts.add_local(function_id, name, value)
        elif value is not None:
            facts.add_module(name, value)
        else:
            facts.add_bound(None, name, None)
        return
    item = len(values) == 1 and values[0].type == "call_expression"
    facts.add_bound(function_id, name, _step(facts.scoped(chain_of(values[0]), values[0]), f"[{i}]") if item else None)


def _row_chains(pattern: Any, rows: Any) -> list[tuple[str, Chain | None]]:
    """Python `for k, v in [(K(..), "a"), (K(..), "b")]` (a literal list or tuple of tuples, as many items
    as plain names): each name with the one chain its position has in every row, as a checker joins a
    literal's items (`list[tuple[K, str]]`), or None (a literal, different values): pyparsing's `for expr,
    delim, body in [(pp.python_quoted_string, "'''", "''a"), ...]`. Names bound to None are bound still."""
    names = pattern.named_children
    if any(n.type != "identifier" for n in names):
        return []
    found: list[Chain | None] | None = None
    for row in rows.named_children:
        if row.type == "comment":
            continue
        items = row.named_children if row.type == "tuple" else []
        if len(items) != len(names):
            found = None
            break
        chains = [chain_of(item, arms=False) for item in items]
        found = chains if found is None else [a if a == b else None for a, b in zip(found, chains, strict=True)]
    return [(_text(n), found[i] if found else None) for i, n in enumerate(names)]


def _in_init(top: _Open) -> bool:
    return bool(top.type_qualname and top.symbol_id and top.qualname.endswith(".__init__"))


def _in_method(top: _Open, facts: TypeFacts) -> bool:
    """A method of the class itself (not a function nested in one, whose `self` a checker does not read)."""
    return bool(top.kind == "method" and top.symbol_id and facts.classes.get(top.symbol_id) == top.type_qualname)


class _MaybeNarrowed:
    """TypeScript: the call sites whose receiver a narrowing may pick a union's parts of, read when asked."""

    def __init__(self) -> None:
        self.sites: dict[int, tuple[Any, str]] = {}  # ref index -> (receiver node, the name narrowed)
        self.memo: dict[int, Any] = {}  # (`ts_maybe_narrowed`'s, for the file)
        self.assigned: dict[Any, Any] = {}  # (`guarded_assignment`'s, for the file)

    def guarded(self, index: int) -> tuple[Any, Any] | None:
        """`if (!G.g(x)) x = v;` before the call `x.m()`: (the guard call, v); see ts_assigned.py."""
        site = self.sites.get(index)
        if site is None or site[0].type != "identifier":
            return None
        return guarded_assignment(site[0], site[1], self.memo, self.assigned)

    def at(self, index: int) -> bool:
        site = self.sites.get(index)
        return site is not None and ts_maybe_narrowed(site[0], site[1], self.memo)


def _first_names(
    typed: Sequence[tuple[int, str | None, str | None, Chain | None, int]], refs: list[Reference]
) -> list[tuple[int, str, int]]:
    """TypeScript: (ref index, the receiver's first name, where it is used) of the typed receivers read from a
    name (not `this`, not a call's result)."""
    out: list[tuple[int, str, int]] = []
    for index, _fid, _cls, chain, at in typed:
        qualifier = refs[index].qualifier or ""
        first = chain[1] if chain is not None and not chain[0] else qualifier.partition(".")[0]
        if first and first not in {"this", "?"} and (chain is None or not chain[0]):
            out.append((index, first, at))
    return out


def _add_receiver_types(
    refs: list[Reference],
    typed: Sequence[tuple[int, str | None, str | None, Chain | None, int]],
    facts: TypeFacts,
    chained: bool,
    scopes: _CallbackScopes,
    *,
    values: bool = False,
    flow: dict[int, Chain] | None = None,
    narrowed: _MaybeNarrowed | None = None,
    renamed: dict[int, str] | None = None,
    fallbacks: dict[int, str] | None = None,
) -> None:
    """After the sweep (an `__init__` may follow the methods using its attributes): receiver types.
    `values`: a class-named receiver is the value of that name (TypeScript: `K.init()` where K is both an
    interface and a `const K: Maker<K>` calls the const's method; a class's value is the class).
    `flow`: Python receivers whose reaching assignment's value (`x = f().g()`) is read before the name's.
    `narrowed`: TypeScript receivers a narrowing may pick a union's parts of: their type is marked `!` (the
    graph then keeps no certain answer where the parts disagree). `renamed`: Go receivers whose first name is
    a local of a block, as the facts name it (`go_blocks`). `fallbacks`: TypeScript `(a ?? K).m()`, the class K
    whose value is the other side (the receiver is `A|^K`: tsc's union property, each side's `m`)."""
    roots = facts.typed_roots()
    for index, fid, class_qualname, chain, at in typed:
        function_id = scopes.at(fid if fid is not None else "", at) or None  # ("": module level)
        ref = refs[index]
        qualifier = (renamed.get(index) if renamed else None) or ref.qualifier or ""
        reaching = flow.get(index) if flow else None
        if reaching is not None and qualifier not in facts.declared.get(function_id or "", ()):
            # (a local declared with a type keeps it for every use: `hook: K | None = ...; hook = getattr(...)`)
            typ = facts.expr(reaching, function_id)
            if typ is not None:
                refs[index] = msgspec.structs.replace(ref, receiver_type=typ)
                continue
        if qualifier == "super":
            typ = facts.super_type(class_qualname)
            if typ is not None:
                refs[index] = msgspec.structs.replace(ref, receiver_type=typ)
            continue
        typ = (
            facts.receiver_type(qualifier, function_id, class_qualname)
            if qualifier.partition(".")[0] in roots
            else None
        )
        class_named = not facts.package_scope and qualifier.rpartition(".")[2][:1].isupper()  # (Go: exported)
        if (
            typ is None
            and class_named
            and _CLASS_NAME.fullmatch(qualifier)
            and not facts.local_binds(function_id, qualifier)
        ):
            # `View.as_view()`, `flask.Blueprint.m()`: a class-named receiver, looked up on the class and its
            # bases (the graph keeps it only if the name resolves to a class). Not where a parameter or local
            # of the function has that name: it shadows the class (`def f(Loader=None): Loader.m()`).
            typ = "^" + qualifier if values else qualifier
        if typ is None and chained:
            # What the file cannot settle, the graph may: a method's result, a fixture, an imported instance.
            found = chain or _plain_chain(qualifier)
            typ = facts.expr(found, function_id) if found is not None else None
        if typ is None and values and _CLASS_NAME.fullmatch(qualifier) and "." not in qualifier:
            typ = facts.arms_type(qualifier, function_id)  # (`c ? a() : b()`: both arms, the graph compares)
        fallback = fallbacks.get(index) if fallbacks else None
        if typ is not None and fallback is not None and typ != fallback and _CLASS_NAME.fullmatch(typ):
            typ = None if facts.local_binds(function_id, fallback) else f"{typ}|^{fallback}"
        if typ is not None and narrowed is not None and (guarded := narrowed.guarded(index)) is not None:
            typ = _guarded_arms(facts, guarded, function_id) or typ
        if typ is not None and not typ.startswith("{"):  # (`{<byte>`: a local object literal, no type to read)
            marked = "!" + typ if narrowed is not None and narrowed.at(index) else typ
            refs[index] = msgspec.structs.replace(ref, receiver_type=marked)


def _class_fallback(node: Any) -> str | None:
    """TypeScript `(a ?? K)` / `(a || K)` with K named like a class: K (its value is the other side's type)."""
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    if node.type != "binary_expression":
        return None
    op, left, right = (node.child_by_field_name(f) for f in ("operator", "left", "right"))
    if op is None or op.type not in ("??", "||") or left is None or right is None or left.type in ("null", "undefined"):
        return None
    return _text(right) if right.type == "identifier" and _text(right)[:1].isupper() else None


def _guarded_arms(facts: TypeFacts, guarded: tuple[Any, Any], function_id: str | None) -> str | None:
    """`if (!Long.isLong(x)) x = Long.fromValue(x)`: `^Long#isLong()is;^Long#fromValue()`, the guard's narrowed
    type (its class's `isLong()is` row, a class of this file) and the value's, as a conditional's arms (the
    graph keeps the one class both give, or the base of the two: the compiler's union of the paths, reduced)."""
    if guarded[0] is None:  # `if (!(x instanceof K)) return;`: a K after it
        return _text(guarded[1])
    guard, value = (chain_of(node) for node in guarded)
    kept = facts.expr(guard, function_id) if guard is not None else None
    given = facts.expr(value, function_id) if value is not None else None
    if kept is None or given is None or not kept.endswith("()") or ";" in kept + given or "{" in kept + given:
        return None
    owner, _, method = kept.lstrip("^").partition("#")
    if "#" in method or not facts.attrs.get(owner, {}).get(method + "is"):
        return None  # (a guard this file does not declare a type predicate of: the paths are not known)
    return f"{kept}is;{given}"


def _py_flow(node: Any, name: str, memo: dict[tuple[int, str], Any], depth: int = 0) -> str | Chain | None:
    """Python: what the assignment reaching `node` (the local `name`) gives: a class (`x = K()`), or a chain
    to evaluate after the sweep (`x = x.unbind()`: its root read where that assignment is, the same way, up
    to MAX_DEPTH assignments back). None when no plain assignment reaches it on every path."""
    value = py_assigned(node, name, memo)
    if value is None:
        return None
    if value.type == "augmented_assignment":
        return _py_augmented(value, name, memo, depth)
    made = constructor_type(value)
    if made is not None:
        return "=" + made  # (the graph tells a class's instance from a capitalised factory's result)
    chain = chain_of(value)
    if chain is None:
        return None
    called, root, steps = chain
    if called or root in ("self", "cls") or depth >= MAX_DEPTH:
        return chain
    root_node = _chain_root(value)
    earlier = _py_flow(root_node, root, memo, depth + 1) if root_node is not None else None
    if earlier is None:
        return chain  # the root's own type (a parameter, a name bound once) is read after the sweep
    if isinstance(earlier, str):
        return join(earlier, steps)
    return None if len(earlier[2]) + len(steps) > MAX_STEPS else (earlier[0], earlier[1], earlier[2] + steps)


def _py_augmented(stmt: Any, name: str, memo: dict[tuple[int, str], Any], depth: int) -> str | Chain | None:
    """`x += y`: what the in-place dunder of the binding reaching the statement gives (`__iadd__`, which the
    graph reads as `__add__` where the class has no `__iadd__`, as a checker falls back)."""
    op = stmt.child_by_field_name("operator")
    dunder = IN_PLACE.get(op.type) if op is not None else None
    left = stmt.child_by_field_name("left")
    if dunder is None or left is None or depth >= MAX_DEPTH:
        return None
    earlier = _py_flow(left, name, memo, depth + 1)
    step = dunder + "()"
    if isinstance(earlier, str):
        return join(earlier, (step,))
    if earlier is None or len(earlier[2]) >= MAX_STEPS:
        return None  # (a parameter or a name bound elsewhere: its own reading, before the statement, is not known)
    return earlier[0], earlier[1], (*earlier[2], step)


def _chain_root(node: Any) -> Any:
    """The identifier a chain (`a.b(x).c`, `await a.b()`) starts from, as `chain_of` reads it."""
    for _ in range(2 * MAX_STEPS + 4):
        if node is None or node.type == "identifier":
            return node
        if node.type == "attribute":
            node = node.child_by_field_name("object")
        elif node.type == "call":
            node = node.child_by_field_name("function")
        elif node.named_child_count == 1 and node.type in ("await", "parenthesized_expression"):
            node = node.named_children[0]
        elif node.type == "subscript":
            node = node.child_by_field_name("value")
        elif (operated := operator_step(node)) is not None:  # `a + b`: the operand chain_of follows
            node = operated[1]
        else:
            return None
    return None


_TYPED_LANGS = frozenset({"python", "go", "typescript", "tsx"})
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function"})
_FUNCTIONS = ("function", "method")
# Array methods whose callback's first parameter is an element: `xs.forEach((x) => ...)` (the graph checks
# that the receiver is an array `K[]`; a class's own method of that name is read from its signature).
ELEMENT_CALLBACKS = frozenset({"forEach", "map", "filter", "some", "every", "find", "findIndex", "flatMap"})


def _later(bind: Callable[..., None], *args: Any) -> Callable[[str], None]:
    """`bind(scope, *args)` for a scope known after the sweep (`ts_locals`)."""
    return lambda scope: bind(scope, *args)


def _in_callback(bind: Callable[[str], None]) -> Callable[[str], None]:
    """`bind(scope)` when the module-level local is inside a callback (scope "@..."); a module-level name
    outside every callback is a module variable, not a local (scope "")."""
    return lambda scope: bind(scope) if scope else None


def _module_callback_local(caps: dict[str, list[Any]], facts: TypeFacts, ts_locals: list[Any]) -> None:
    """`it('...', () => { const x = new K(); x.m() })` at module level: `x` is bound in the callback's scope
    (function id "", see `_CallbackScopes`) once the scopes are known, as a function's callback local is."""
    local_node = caps["bind.local"][0]
    if local_node.type != "variable_declarator":  # (a parameter of a module-level callback: typed by its callee)
        return
    name, stated, value = _text(caps["name"][0]), caps.get("type"), caps.get("value")
    if stated:
        bind = _later(facts.add_ts_stated, name, _text(stated[0]))
    elif value and value[0].type in _FUNCTION_VALUES:  # (a function is a symbol of its own)
        return
    else:
        bind = _later(facts.add_local, name, value[0] if value else None)
    ts_locals.append(("", local_node.start_byte, _in_callback(bind)))


def _bind_ts(
    facts: TypeFacts, sub: str, top: _Open | None, caps: dict[str, list[Any]], scope: str | None = None
) -> None:
    """TypeScript bindings the sweep meets: destructuring, `for ... of`, parameter properties (and Python's
    `for x in xs`); `scope`: the callback scope a TypeScript local is bound in (default: the function)."""
    fid = scope or (top.symbol_id if top else None) or ""
    if sub == "prop":  # `constructor(private s: Scheduler)`: a field of the class
        if top is not None and top.type_qualname:
            facts.add_ts_field(top.type_qualname, _text(caps["name"][0]), _text(caps["type"][0]))
        return
    if sub == "rows":  # Python `for k, v in [(a, b), ...]`
        for name, chain in _row_chains(caps["pattern"][0], caps["value"][0]):
            facts.add_local_chain(fid, name, chain)
        return
    base = chain_of(caps["value"][0])
    if sub == "element":
        # Python's `for x in xs` iterates (a dict gives its keys, not `d[k]`'s values): the step `for`
        python_for = caps["bind.element"][0].type in ("for_statement", "for_in_clause")
        left = None if python_for else caps["bind.element"][0].child_by_field_name("left")
        # `for (const [k, v] of m)`: v is an element's second item (`of[1]`: a Map's value, the graph reads it)
        if left is not None and left.type == "array_pattern":
            facts.entries.append((fid, _text(caps["name"][0]), _step(base, "of[1]")))  # (`settle_entries`)
            return
        facts.add_local_chain(fid, _text(caps["name"][0]), _step(base, "for" if python_for else "[]"))
        return
    for child in caps["pattern"][0].named_children:  # `const { a, b: c } = value`
        if child.type == "shorthand_property_identifier_pattern":
            facts.add_local_chain(fid, _text(child), _step(base, _text(child)))
        elif child.type == "pair_pattern":
            key, local = child.child_by_field_name("key"), child.child_by_field_name("value")
            if key is not None and local is not None and local.type == "identifier":
                facts.add_local_chain(fid, _text(local), _step(base, _text(key)))


def _this_types(
    refs: list[Reference],
    facts: TypeFacts,
    scopes: _CallbackScopes,
    binds: list[tuple[str, int, str]],
    this_refs: list[tuple[int, str, int]],
) -> None:
    """`function f(this: K) { this.m() }`: the receiver of `this.m()` is a K."""
    for fid, at, written in binds:
        typ = ts_type(written)
        if typ is not None and typ != "Self":
            facts.this_types[scopes.at(fid, at)] = typ
    for index, fid, at in this_refs:
        typ = facts.this_type(scopes.at(fid, at))
        if typ is not None:
            refs[index] = msgspec.structs.replace(refs[index], receiver_type=typ)


_FUNCTION_NODES = frozenset(
    {
        "function_declaration",
        "generator_function_declaration",
        "method_definition",
        "arrow_function",
        "function_expression",
        "function",
    }
)


def _returns_from(node: Any, top: _Open) -> bool:
    """True when a `return` belongs to the function `top` itself, not to a callback or nested arrow in it."""
    holder = node.parent
    while holder is not None and holder.type not in _FUNCTION_NODES:
        holder = holder.parent
    return holder is not None and holder.end_byte == top.end_byte


def _own_param(node: Any) -> bool:
    """False for a parameter of a function *type* (`f: (r: K) => void` binds no `r`) or of a callback (a scope
    of its own, see `_CallbackScopes`)."""
    if node.type not in ("required_parameter", "optional_parameter") or node.parent is None:
        return True
    holder = node.parent.parent
    if holder is None:
        return True
    if holder.type in ("function_type", "constructor_type"):
        return False
    return not (holder.type in _FUNCTION_VALUES and holder.parent is not None and holder.parent.type == "arguments")


def _step(chain: Chain | None, step: str) -> Chain | None:
    return None if chain is None else (chain[0], chain[1], (*chain[2], step))


class _CallbackScopes:
    """TypeScript callbacks (`f((a, b) => ...)`) as scopes of their own inside the function that holds them:
    a callback's parameters are typed by the callee's signature (`&f#i.j`, `<x>#m&i.j`) and seen only
    inside it (and by what is nested in it); everything else it reads is the function's."""

    def __init__(self) -> None:
        self._by_fn: dict[str, list[tuple[int, int, str]]] = {}  # function id -> (start, end, scope id)
        # function id -> (starts, ends, enclosing index or -1, scope ids), sorted by start: built on first use
        self._index: dict[str, tuple[list[int], list[int], list[int], list[str]]] = {}

    def at(self, function_id: str, byte: int) -> str:
        """The innermost callback scope of `function_id` around `byte` (the function itself if none).

        Callbacks nest or are apart: the innermost around `byte` is the last one starting at or before it or
        one of those around that one (a bisection and a walk out, at most the callbacks' nesting: the
        depth bound of `depth.py` caps it; a scan of every callback made many siblings quadratic)."""
        index = self._index.get(function_id)
        if index is None:
            if function_id not in self._by_fn:
                return function_id
            index = self._index[function_id] = _nesting(self._by_fn[function_id])
        starts, ends, outer, scopes = index
        i = bisect_right(starts, byte) - 1
        while i >= 0 and byte >= ends[i]:
            i = outer[i]
        return scopes[i] if i >= 0 else function_id

    def bind(
        self,
        facts: TypeFacts,
        found: list[tuple[str, dict[str, list[Any]]]],
        nested: list[tuple[str, str, int]],
        path: str,
        locals_: Sequence[tuple[str, int, Callable[[str], None]]] = (),
    ) -> None:
        """`fid` "" is a callback at module level (its scope has no function around it). `locals_`: TypeScript
        locals, each bound in the innermost scope around it before the callbacks' parameters are typed (a
        callee's receiver may be one: `const s = new Stream(); s.each((x) => ...)`)."""
        for fid, caps in found:
            fn = caps["fn"][0]
            self._by_fn.setdefault(fid, []).append((fn.start_byte, fn.end_byte, f"{fid}@{fn.start_byte}"))
        self._index.clear()
        for fid, caps in found:
            fn = caps["fn"][0]
            scope = f"{fid}@{fn.start_byte}"
            around = self.at(fid, fn.start_byte - 1)  # (the scope around starts before it)
            if around:
                facts.outer[scope] = around
            facts.classes[scope] = facts.classes.get(fid)
        for sid, fid, start in nested:
            facts.outer[sid] = self.at(fid, start)
        for fid, at, bind_local in locals_:
            bind_local(self.at(fid, at))
        contexts: dict[int, str] = {}
        for fid, caps in found:  # in document order: a callback's receiver may be an outer callback's parameter
            fn = caps["fn"][0]
            if "declared" in caps:  # `const d: D = {m: (a) => ...}`: D's member m's parameters (no m: D's own)
                step = f"{_text(caps['key'][0])}&p." if caps["key"] else "&p."
                self._bind_params(facts, fid, fn, base=caps["declared"][0], step=step, suffix="")
                continue
            args = [a for a in caps["args"][0].named_children if a.type != "comment"]
            # (`f({m: (a) => ...})`: a member of an object literal passed as argument i, typed by the member of
            # the parameter's declared type: the step `i#m&p.` reads f's row `&i`, then the member's `&p.j`)
            literal = caps.get("literal")
            passed = literal[0] if literal else fn
            i = next(k for k, a in enumerate(args) if a.id == passed.id)
            callee = _text(caps["callee"][0])
            qual = caps.get("qual")
            if qual is None:
                base: str | None = "&" + callee
                step = f"{i}"
            elif qual[0].type == "identifier" and _text(qual[0]) in facts.module_aliases:
                base = "&" + _text(qual[0]) + "." + callee  # `core.make(...)`, `import * as core`
                step = f"{i}"
            else:
                chain = chain_of(qual[0])
                base = facts.expr(chain, self.at(fid, qual[0].start_byte) or None) if chain is not None else None
                step = f"{callee}&{i}"
            call = caps["bind.callback"][0]
            if literal:
                step += f"#{_text(caps['key'][0])}&p."
                if any(a.type == "spread_element" for a in args[:i]):
                    base = None  # (after a spread the argument's position is not known)
                suffix = ""  # (no type parameter of the callee is read through a member)
            else:
                step += "."
                if call.start_byte not in contexts:
                    contexts[call.start_byte] = self._context(facts, fid, call, args, path)
                suffix = contexts[call.start_byte]
            self._bind_params(facts, fid, fn, base=base, step=step, suffix=suffix)

    @staticmethod
    def _bind_params(facts: TypeFacts, fid: str, fn: Any, *, base: str | None, step: str, suffix: str) -> None:
        """The callback `fn`'s parameters: each its own stated type, else `base#<step><j><suffix>`."""
        params = fn.child_by_field_name("parameters")
        single = fn.child_by_field_name("parameter")
        names = [(single, None)] if single is not None else ([] if params is None else _callback_params(params))
        for j, (node, written) in enumerate(names):
            if node is None:
                continue
            if written is not None:  # `(x: K) => ...`: the parameter's own type
                expr = ts_type(written)
            else:
                expr = join(base, (step + str(j) + suffix,)) if base is not None else None
            if node.type == "object_pattern":  # `({gen}: K) => ...`, `({gen}) => ...`: members of either
                facts.add_ts_pattern(f"{fid}@{fn.start_byte}", node, stated_base(written) if written else expr)
            else:
                facts.add_callback_param(f"{fid}@{fn.start_byte}", _text(node), expr)

    def _context(self, facts: TypeFacts, fid: str, call: Any, args: list[Any], path: str) -> str:
        """What the call at `call` instantiates its callee's type parameters with (`ts_call_context`), stored
        as rows of the file; the suffix `%<byte>@<path>` a callback parameter's step names them by."""
        if "#" in path or "%" in path or any(a.type == "spread_element" for a in args):
            return ""  # (arguments after a spread have no known position)
        found = ts_call_context(call, args, lambda chain, at: facts.expr(chain, self.at(fid, at) or None))
        if all(expr == "?" for expr in found.values()):
            return ""  # (nothing to instantiate with: `xs.forEach((x) => ...)`, `operate((a, b) => ...)`)
        for key, expr in found.items():
            facts.contexts[f"%{call.start_byte}.{key}"] = expr
        return f"%{call.start_byte}@{path}"


def _nesting(spans: list[tuple[int, int, str]]) -> tuple[list[int], list[int], list[int], list[str]]:
    """Nested or disjoint spans by start (the outer first at a tie), each with the index of the span around it."""
    ordered = sorted(spans, key=lambda s: (s[0], -s[1]))
    outer: list[int] = []
    open_: list[int] = []  # indexes of the spans around the current one
    for i, (start, _end, _scope) in enumerate(ordered):
        while open_ and ordered[open_[-1]][1] <= start:
            open_.pop()
        outer.append(open_[-1] if open_ else -1)
        open_.append(i)
    return [s[0] for s in ordered], [s[1] for s in ordered], outer, [s[2] for s in ordered]


_DECLARED_PARAM = re.compile(r"&(?:p\.)?\d+")  # `&i`, `&p.j` (not a callback's `&i.j`)


def _unlisted_overloads(symbols: list[Symbol], facts: TypeFacts) -> None:
    """No `&i` / `&p.j` rows for an overloaded function or member (two definitions of one name): tsc gives
    an object literal passed to it, or written for it, no contextual parameter types from either."""
    seen: dict[str, int] = {}
    for sym in symbols:
        if sym.kind in _FUNCTIONS or sym.kind == "field":
            seen[sym.qualname] = seen.get(sym.qualname, 0) + 1
    for sym in symbols:
        rows = facts.callbacks.get(sym.id) if seen.get(sym.qualname, 0) > 1 else None
        for key in [k for k in rows or () if _DECLARED_PARAM.fullmatch(k)]:
            del rows[key]  # type: ignore[union-attr]


def _literal_callback(caps: dict[str, list[Any]]) -> dict[str, list[Any]] | None:
    """A function written as a member of an object literal (`@bind.member`) as a callback's captures: the
    literal passed to a call (`f({m: (a) => ...})`, `o.f(1, {m})`, `new K({m})`: `args`, `callee`, `qual`,
    `literal`, `bind.callback`) or the value of a variable of a declared type (`declared`); None otherwise."""
    literal = caps["bind.member"][0].parent
    holder = literal.parent if literal is not None and literal.type == "object" else None
    if holder is not None and holder.type == "variable_declarator":
        declared = declared_literal_type(literal)
        return {**caps, "declared": [declared]} if declared is not None else None
    call = holder.parent if holder is not None and holder.type == "arguments" else None
    if call is None:
        return None
    found = {**caps, "args": [holder], "literal": [literal], "bind.callback": [call]}
    callee = call.child_by_field_name("function" if call.type == "call_expression" else "constructor")
    if callee is not None and callee.type == "identifier" and call.type in ("call_expression", "new_expression"):
        return {**found, "callee": [callee]}
    if callee is None or callee.type != "member_expression" or call.type != "call_expression":
        return None
    prop, qual = callee.child_by_field_name("property"), callee.child_by_field_name("object")
    if prop is None or prop.type != "property_identifier" or qual is None:
        return None
    return {**found, "callee": [prop], "qual": [qual]}


def _contextual(node: Any) -> str | None:
    """`Def#code&p.`: the parameters of a method written in an object literal of a declared type (`const def:
    Def = {code(cxt) {...}}`) are the declared member's (`ts_patterns.py`); None for any other function."""
    if node.type != "method_definition":
        return None
    found = literal_member(node)
    typ = declared_literal_type(found[0]) if found is not None else None
    return f"{typ}#{found[1]}&p." if typ is not None and found is not None else None


def _function_type_params(annotation: Any) -> Any:
    """The parameter list of a function type written as a member's type (`: (cxt: K) => void`), else None."""
    fn = annotation.named_children[0] if annotation.named_child_count else None
    return fn.child_by_field_name("parameters") if fn is not None and fn.type == "function_type" else None


def _function_type_result(annotation: Any) -> str | None:
    """The written result of a function type that is a member's type (`: () => K`), else None."""
    fn = annotation.named_children[0] if annotation.named_child_count else None
    result = fn.child_by_field_name("return_type") if fn is not None and fn.type == "function_type" else None
    if result is None or result.type == "predefined_type" or "|" in _text(result):
        return None  # (`=> void`, `=> string`: nothing to call on; `=> A | B`: no one class)
    return _text(result)


def _callback_params(params: Any) -> list[tuple[Any, str | None]]:
    """The positional parameters of a parameter list: (name node or None for a pattern, written type)."""
    out: list[tuple[Any, str | None]] = []
    for child in params.named_children:
        if child.type not in ("required_parameter", "optional_parameter"):
            continue
        pattern = child.child_by_field_name("pattern")
        if pattern is None or pattern.type == "this":
            continue
        typed = child.child_by_field_name("type")
        named = pattern.type in ("identifier", "object_pattern")
        out.append((pattern if named else None, _text(typed) if typed is not None else None))
    return out


_CLASS_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?")


def _ts_base_args(node: Any) -> list[str] | None:
    """`class K extends Base<A, B>`: the type arguments' texts (None: no `extends` passing any)."""
    heritage = next((c for c in node.named_children if c.type == "class_heritage"), None)
    extends = next((c for c in heritage.named_children if c.type == "extends_clause"), None) if heritage else None
    args = extends.child_by_field_name("type_arguments") if extends is not None else None
    return [_text(a) for a in args.named_children if a.type != "comment"] if args is not None else None


_TYPE_LIKE = frozenset({"class", "struct", "interface", "trait", "enum", "type"})
_LEAF_KINDS = frozenset({"variable", "constant", "field", "type", "macro"})


def _plain_chain(qualifier: str) -> Chain | None:
    """`a.b.c` as a chain (no calls); JavaScript names may hold `$` (`$from`, `errors$`)."""
    root, *steps = qualifier.split(".")
    names = [root, *steps]
    # (Go: a block's local is `name~<byte>` in the facts, `go_blocks`)
    return (
        (False, root, tuple(steps))
        if all(n.replace("$", "_").replace("~", "_").isidentifier() for n in names)
        else None
    )


def _as_dict(sym: Symbol) -> dict[str, Any]:
    return {f: getattr(sym, f) for f in sym.__struct_fields__}


def _join(prefix: str | None, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def _text(node: Any) -> str:
    data: bytes = node.text
    return data.decode("utf-8", "replace")


def _qualifier(node: Any) -> str:
    """The receiver a name is reached through, when it is a plain (dotted) name; '?' otherwise."""
    if node.end_byte - node.start_byte > 80:
        return "?"
    if node.type == "identifier":  # the common case: a plain name, nothing to check or normalize
        return node.text.decode("utf-8", "replace")  # type: ignore[no-any-return]
    text = _text(node)
    if text.startswith("super(") and text.endswith(")"):
        return "super"  # Python's super().method(): looked up in the base classes
    if _NOT_A_NAME.search(text):
        return "?"
    name = "".join(text.split()).replace("::", ".").replace("->", ".")
    name = name.replace("?.", ".").replace("!.", ".").rstrip("!")  # TypeScript `a?.b`, `a!.b`, `a!`
    return name if _A_NAME.fullmatch(name) else "?"  # `a - b!` (how tree-sitter reads `a - b!.f()`): no name


def _signature(params: Any, ret: Any) -> str | None:
    if params is None and ret is None:
        return None
    text = " ".join(_text(params).split()) if params is not None else ""
    if ret is not None:
        rtext = " ".join(_text(ret).split())
        text = f"{text}{rtext}" if rtext.startswith(":") else f"{text} -> {rtext}" if text else rtext
    if len(text) > MAX_SIGNATURE:
        text = text[: MAX_SIGNATURE - 1] + "…"
    return text
