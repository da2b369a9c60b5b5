"""Python generic identities: `def f(name, fn: C) -> C` with C a TypeVar returns what argument 1 is.

A checker solves C from the argument: `countedArray = replaced_by_pep8("countedArray", counted_array)` is
`counted_array`, so calling `countedArray(...)` calls it. The scan states both halves, the graph joins them
across files: the function's row `=arg` (the position k of the one parameter C types, when the result is
exactly C) and the caller's row `=name` with `callee(k)arg` for each plain name it passes at position k.
"""

from __future__ import annotations

import re
from typing import Any

IDENTITY_ROW = "=arg"  # a function's row: the position of the argument its result is
_WORD = re.compile(r"[A-Za-z_]\w*")
_MAX_ARGS = 8  # positions read in a call (a pep8 alias passes two)
_PARAM_TYPES = ("identifier", "typed_parameter", "default_parameter", "typed_default_parameter")


def _text(node: Any) -> str:
    data: bytes = node.text
    return data.decode("utf-8", "replace")


def is_typevar(value: Any) -> bool:
    """`TypeVar("C", ...)` / `typing.TypeVar(...)`: the value of a module-level name that is a type variable."""
    if value is None or value.type != "call":
        return False
    fn = value.child_by_field_name("function")
    if fn is None:
        return False
    if fn.type == "identifier":
        return _text(fn) == "TypeVar"
    attr = fn.child_by_field_name("attribute") if fn.type == "attribute" else None
    return attr is not None and _text(attr) == "TypeVar"


def own_typevars(fn: Any) -> set[str]:
    """A `def f[T, U](...)`'s own type parameters (PEP 695); a bounded `T: K` keeps its name."""
    params = fn.child_by_field_name("type_parameters")
    out: set[str] = set()
    if params is None:
        return out
    for child in params.named_children:
        head = child.named_children[0] if child.type == "type" and child.named_child_count else child
        if head.type == "identifier":
            out.add(_text(head))
    return out


def identity_position(params: Any, returns: str | None, typevars: set[str]) -> tuple[str, int] | None:
    """(type variable, position) when the stated result is exactly a type variable T and exactly one
    parameter mentions T, a positional one annotated exactly T; None otherwise (T solved from several
    arguments is their join; `list[T]` or `Callable[..., T]` is not the argument itself)."""
    tv = (returns or "").strip().strip("'\"").strip()
    if tv not in typevars:
        return None
    found: int | None = None
    position = 0
    positional = True
    for child in params.named_children:
        kind = child.type
        if kind == "comment":
            continue
        typ = child.child_by_field_name("type")
        mentions = typ is not None and any(w == tv for w in _WORD.findall(_text(typ)))
        head = child.named_children[0] if child.named_child_count else None
        splat = kind in ("list_splat_pattern", "dictionary_splat_pattern", "keyword_separator") or (
            head is not None and head.type in ("list_splat_pattern", "dictionary_splat_pattern")
        )
        if splat:
            positional = False  # (after `*` or `*args`: keyword-only)
        if mentions:
            if found is not None or splat or not positional or _text(typ).strip().strip("'\"").strip() != tv:
                return None
            found = position
        if kind in _PARAM_TYPES and not splat:
            position += 1
    return (tv, found) if found is not None else None


def passed_names(call: Any) -> list[tuple[str, int, str]]:
    """(callee, position, name) for each plain name a call `f(...)` passes by position (before any `*xs`,
    which moves the positions after it); the callee a plain name."""
    fn = call.child_by_field_name("function")
    args = call.child_by_field_name("arguments")
    if fn is None or fn.type != "identifier" or args is None or args.type != "argument_list":
        return []
    out: list[tuple[str, int, str]] = []
    listed = [a for a in args.named_children if a.type != "comment"]
    for k, arg in enumerate(listed[:_MAX_ARGS]):
        if arg.type in ("list_splat", "dictionary_splat", "keyword_argument"):
            break
        if arg.type == "identifier":
            out.append((_text(fn), k, _text(arg)))
    return out
