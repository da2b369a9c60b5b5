"""TypeScript parameters the compiler types without a written type of their own (issue 24).

A destructured parameter of a declared type (`function f({gen, it: {self}}: Cxt)`): each bound name has the
member type of its key path (`Cxt#gen`, `Cxt#it#self`), as `const {gen} = cxt` reads it. A function written as
a member of an object literal whose type is declared (`const def: Def = {code(cxt) {...}}`): its parameters
are the declared member's (`Def#code&p.0`, the graph reads the member's `&p.<j>` row). Only what the compiler
decides without guessing: a named type, not a union; a key that is a plain name.
"""

from __future__ import annotations

from typing import Any

from .type_exprs import ts_type

# TypeScript's primitive and top types: no members a pattern or an object literal is read on
TS_PRIMITIVES = frozenset(
    {"string", "number", "boolean", "bigint", "symbol", "any", "unknown", "object", "void", "never", "undefined"}
)
# (what an object literal's member may be written as: `m() {}`, `m: () => ...`, `m: function () {}`)
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function"})


def pattern_names(pattern: Any) -> list[tuple[str, tuple[str, ...] | None]]:
    """Each name an object pattern binds, with its key path (None: a name whose value is not a member read,
    `...rest` or one inside an array pattern). A walk with a stack: linear in the pattern's size."""
    out: list[tuple[str, tuple[str, ...] | None]] = []
    todo: list[tuple[Any, tuple[str, ...] | None]] = [(pattern, ())]
    while todo:
        node, steps = todo.pop()
        if node.type == "identifier":
            out.append((_text(node), steps))
            continue
        if node.type in ("assignment_pattern", "object_assignment_pattern"):  # `{a = 1}`, `{a: b = 1}`
            left = node.child_by_field_name("left")
            if left is not None:
                todo.append((left, steps))
            continue
        if node.type == "shorthand_property_identifier_pattern":
            out.append((_text(node), None if steps is None else (*steps, _text(node))))
            continue
        if node.type == "pair_pattern":
            key, value = node.child_by_field_name("key"), node.child_by_field_name("value")
            if value is None:
                continue
            plain = key is not None and key.type == "property_identifier"
            todo.append((value, (*steps, _text(key)) if steps is not None and plain and key is not None else None))
            continue
        if node.type == "rest_pattern":
            todo.extend((c, None) for c in node.named_children)
            continue
        if node.type in ("object_pattern", "array_pattern"):
            inner = steps if node.type == "object_pattern" else None
            todo.extend((c, inner) for c in node.named_children)
    return out


def stated_base(written: str | None) -> str | None:
    """The declared type a pattern's members are read on: one named type (not a union, array, primitive or
    `this`)."""
    if written is None:
        return None
    typ = ts_type(written)
    if typ is None or typ == "Self" or typ in TS_PRIMITIVES or "|" in typ or typ.endswith(("[]", "{}")):
        return None
    return typ


def literal_member(fn: Any) -> tuple[Any, str] | None:
    """(the object literal, the member's name) when the function node `fn` is written as a member of one:
    `{m(a) {...}}` (a method definition) or `{m: (a) => ...}`; None otherwise."""
    parent = fn.parent
    if fn.type == "method_definition":
        name = fn.child_by_field_name("name")
        if parent is None or parent.type != "object" or name is None or name.type != "property_identifier":
            return None
        return parent, _text(name)
    if fn.type not in _FUNCTION_VALUES or parent is None or parent.type != "pair":
        return None
    key = parent.child_by_field_name("key")
    if key is None or key.type != "property_identifier" or parent.child_by_field_name("value") != fn:
        return None
    holder = parent.parent
    return (holder, _text(key)) if holder is not None and holder.type == "object" else None


def declared_literal_type(literal: Any) -> str | None:
    """The declared type of an object literal that is a variable's value: `const def: Def = {...}`."""
    holder = literal.parent
    if holder is None or holder.type != "variable_declarator" or holder.child_by_field_name("value") != literal:
        return None
    written = holder.child_by_field_name("type")
    return stated_base(_text(written)) if written is not None else None


def _text(node: Any) -> str:
    data: bytes = node.text
    return data.decode("utf-8", "replace")
