"""Tree-sitter extraction: one pass of a tags query over a parsed file, then a linear sweep.

The query (package data, `queries/<lang>.scm`) does the matching in C. Its captures follow one scheme:
`@def.<kind>` (a definition node) with `@name`, and optionally `@params`, `@return`, `@receiver`
(Go method receivers, C++ `Type::` qualifiers); `@scope.<kind>` (a naming scope that is not itself a
symbol: a Rust `impl`, a C++ namespace) with `@name`; `@ref.<role>` with `@name` and optionally
`@qual` (the receiver or module a name is reached through); `@import` (an import statement, read by
`imports.py`); `@bind.attr` (Python `self.x = value` with `@qual`, `@name`, `@value`, optional `@return`),
which only feeds the receiver types of `receiver_types.py`. The sweep then walks the matches in
document order with a stack of open scopes, which gives every symbol its qualified name and parent, and
every reference its enclosing symbol (and, in Python, the declared class of its receiver).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import msgspec
from ctxops_contracts import Reference, Symbol

from . import lang_rules
from .imports import read_import
from .languages import ts_language, ts_query
from .receiver_types import TypeFacts, constructor_type
from .records import Import
from .symbol_ids import IdAllocator
from .type_exprs import Chain, chain_of, fixture_params, is_fixture, is_fixture_file

MAX_SIGNATURE = 200
_NOT_A_NAME = re.compile("[()\\[\\]{}\n\"'`]")  # a qualifier with these is an expression, not a (dotted) name
_ORDER = {"def": 0, "scope": 0, "import": 1, "bind": 1, "ref": 2}
_NOT_TYPED = frozenset({"self", "cls", "this", "super", "?"})  # receivers resolved otherwise, or not at all
_SCOPES = frozenset({"impl", "namespace"})  # naming scopes that are not symbols


@dataclass
class Extraction:
    symbols: list[Symbol] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    imports: list[Import] = field(default_factory=list)
    types: list[tuple[str | None, str | None, str]] = field(default_factory=list)  # (owner, name, type expr)
    has_error: bool = False


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
def _main_captures(lang: str) -> dict[int, tuple[str, int]]:
    """Per query pattern, its main capture and sort order (learned on first sight; a pattern's main
    capture is never optional, so every match of the pattern has the same one)."""
    return {}


def _main_capture(caps: dict[str, list[Any]]) -> tuple[str, int]:
    for key in caps:
        if key.startswith(("def.", "ref.", "scope.", "bind.")) or key == "import":
            return key, _ORDER[key.split(".", 1)[0]]
    return "", 0


# (start, order, -end, pattern): matches in document order, outer before inner. A C key function, not a
# Python one (800k calls on the stdlib); the sort is stable, so equal keys keep the query's match order.
_sort_key = operator.itemgetter(0, 1, 2, 3)


@cache
def _parser(lang: str) -> Any:
    import tree_sitter

    return tree_sitter.Parser(ts_language(lang))


def extract(source: bytes, path: str, lang: str) -> Extraction:
    """Symbols, references and imports of one file in a tree-sitter language."""
    import tree_sitter

    tree = _parser(lang).parse(source)
    cursor = tree_sitter.QueryCursor(ts_query(lang))
    mains = _main_captures(lang)
    items: list[tuple[int, int, int, int, str, dict[str, list[Any]]]] = []
    for pattern, caps in cursor.matches(tree.root_node):
        found = mains.get(pattern)
        if found is None:
            found = mains[pattern] = _main_capture(caps)
        main, order = found
        if not main:
            continue
        node = caps[main][0]
        items.append((node.start_byte, order, -node.end_byte, pattern, main, caps))
    items.sort(key=_sort_key)

    out = Extraction(has_error=tree.root_node.has_error)
    ids = IdAllocator(lang, path)
    rules = lang_rules.rules_for(lang)
    stack: list[_Open] = []
    seen_defs: set[tuple[int, int]] = set()
    def_name_starts: set[int] = set()
    pending_parents: list[tuple[int, str]] = []  # (index in out.symbols, type qualname) resolved after the sweep
    type_ids: dict[str, str] = {}
    facts = TypeFacts() if lang in _TYPED_LANGS else None
    # (index in out.references, function id, class, the receiver as a chain when it is no plain name)
    typed_refs: list[tuple[int, str | None, str | None, Chain | None]] = []
    python = lang == "python"
    chained = lang in _TYPED_LANGS  # languages whose receivers may be chains of calls (type_exprs.py)
    if facts is not None and lang == "go":
        facts.package_scope = True
    fixture_file = python and is_fixture_file(path)

    for start, _order, neg_end, _pattern, main, caps in items:
        while stack and stack[-1].end_byte <= start:
            stack.pop()
        top = stack[-1] if stack else None
        head, _, sub = main.partition(".")
        if head == "ref":
            name_node = caps["name"][0]
            if name_node.start_byte in def_name_starts:
                continue
            qual = caps.get("qual")
            direct = chain = None
            if qual:
                qnode = qual[0]
                qualifier = _qualifier(qnode)
                if top is not None and top.receiver_var:
                    if qualifier == top.receiver_var:
                        qualifier = "self"
                    elif qualifier.startswith(top.receiver_var + "."):  # Go `e.x.Set()`: a field of the receiver
                        qualifier = "self" + qualifier[len(top.receiver_var) :]
                if facts is not None:
                    # `Client().get()`: the receiver is a constructor call, its class stated right there.
                    if qnode.type == "call":
                        direct = constructor_type(qnode)
                    if sub == "call":
                        if chained and qualifier == "?":
                            chain = chain_of(qnode)
                        if qualifier not in _NOT_TYPED or chain:
                            typed_refs.append(
                                (
                                    len(out.references),
                                    top.symbol_id if top else None,
                                    top.type_qualname if top else None,
                                    chain,
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
            if facts is not None and top is not None and top.symbol_id and top.kind in ("function", "method"):
                stated = caps.get("type")
                if stated:  # Go: the type is written (`x := &T{}`, `var x T`, a parameter `x *T`)
                    facts.add_stated(top.symbol_id, _text(caps["name"][0]), _text(stated[0]))
                else:
                    value = caps.get("value")
                    facts.add_local(top.symbol_id, _text(caps["name"][0]), value[0] if value else None)
            continue
        if head == "bind" and sub == "return":
            fid = top.symbol_id if top is not None and top.kind in ("function", "method") else None
            if facts is not None and fid and not _text(caps["bind.return"][0]).startswith("yield from"):
                facts.add_return(fid, caps["value"][0])
            continue
        if head == "bind":
            if facts is not None and top is not None and _in_init(top) and _text(caps["qual"][0]) == "self":
                ann, value = caps.get("return"), caps.get("value")
                facts.add_self_attr(
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
                facts.add_local(top.symbol_id, name, value[0] if value else None)
            continue
        if facts is not None and top is None and kind == "variable":
            value = caps.get("value")
            if value:
                facts.add_module(name, value[0])
            stated = caps.get("return")
            if stated and python:
                facts.add_module_stated(name, _text(stated[0]))
        if prefix:
            qualname = _join(top.qualname if top and top.kind in _SCOPES else None, prefix + "." + name)
            type_qualname: str | None = _join(top.qualname if top and top.kind in _SCOPES else None, prefix)
            if kind == "function":
                kind = "method"
        else:
            qualname = _join(top.qualname if top else None, name)
            type_qualname = top.type_qualname if top else None
        sid = ids.allocate(qualname, kind)
        parent_id = top.symbol_id if top else None
        if (top is not None and top.kind == "impl") or prefix:
            pending_parents.append((len(out.symbols), type_qualname or ""))
        def_name_starts.add(name_node.start_byte)
        params = caps.get("params")
        ret = caps.get("return")
        start_line = node.start_point[0] + 1
        signature = _signature(params[0] if params else None, ret[0] if ret else None)
        if facts is not None:
            if kind in ("function", "method") and params:
                facts.add_params(sid, params[0], signature)
                if python:
                    facts.add_function(sid, type_qualname, _text(ret[0]) if ret else None)
                    if fixture_file and (name.startswith("test") or is_fixture(node)):
                        facts.add_fixture_params(sid, fixture_params(params[0]))
                elif lang == "go" and ret:
                    facts.add_go_result(sid, _text(ret[0]))
                elif lang in ("typescript", "tsx"):
                    facts.add_ts_result(sid, type_qualname, _text(ret[0]) if ret else None)
            elif kind == "class" and params and lang == "python":
                facts.add_bases(qualname, _text(params[0]))
            elif kind == "field" and ret and top is not None:
                facts.add_field(top.qualname, name, _text(ret[0]))
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
        if kind not in _LEAF_KINDS:
            own_type = qualname if kind in _TYPE_LIKE else type_qualname
            receiver_var = caps.get("receiver_var")
            stack.append(
                _Open(node.end_byte, kind, qualname, sid, own_type, _text(receiver_var[0]) if receiver_var else None)
            )

    if facts is not None and typed_refs:
        _add_receiver_types(out.references, typed_refs, facts, chained)
    if facts is not None:
        out.types = facts.type_rows(type_ids)
    for index, type_qualname in pending_parents:
        parent = type_ids.get(type_qualname)
        if parent is not None:
            sym = out.symbols[index]
            out.symbols[index] = Symbol(**{**_as_dict(sym), "parent": parent})
    return out


def _in_init(top: _Open) -> bool:
    return bool(top.type_qualname and top.symbol_id and top.qualname.endswith(".__init__"))


def _add_receiver_types(
    refs: list[Reference],
    typed: Sequence[tuple[int, str | None, str | None, Chain | None]],
    facts: TypeFacts,
    chained: bool,
) -> None:
    """After the sweep (an `__init__` may follow the methods using its attributes): receiver types."""
    roots = facts.typed_roots()
    for index, function_id, class_qualname, chain in typed:
        ref = refs[index]
        qualifier = ref.qualifier or ""
        typ = (
            facts.receiver_type(qualifier, function_id, class_qualname)
            if qualifier.partition(".")[0] in roots
            else None
        )
        class_named = not facts.package_scope and qualifier.rpartition(".")[2][:1].isupper()  # (Go: exported)
        if typ is None and class_named and _CLASS_NAME.fullmatch(qualifier):
            # `View.as_view()`, `flask.Blueprint.m()`: a class-named receiver, looked up on the class and its
            # bases (the graph keeps it only if the name resolves to a class).
            typ = qualifier
        if typ is None and chained:
            # What the file cannot settle, the graph may: a method's result, a fixture, an imported instance.
            found = chain or _plain_chain(qualifier)
            typ = facts.expr(found, function_id) if found is not None else None
        if typ is not None:
            refs[index] = msgspec.structs.replace(ref, receiver_type=typ)


_TYPED_LANGS = frozenset({"python", "go", "typescript", "tsx"})
_CLASS_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?")
_TYPE_LIKE = frozenset({"class", "struct", "interface", "trait", "enum", "type"})
_LEAF_KINDS = frozenset({"variable", "constant", "field", "type", "macro"})


def _plain_chain(qualifier: str) -> Chain | None:
    """`a.b.c` as a chain (no calls)."""
    root, *steps = qualifier.split(".")
    return (False, root, tuple(steps)) if root.isidentifier() and all(s.isidentifier() for s in steps) else None


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
    return "".join(text.split()).replace("::", ".").replace("->", ".")


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
