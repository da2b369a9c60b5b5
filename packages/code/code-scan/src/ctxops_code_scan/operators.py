"""Python operators as method calls: `a + b` is `a.__add__(b)`, as a type checker reads it.

A checker types `a + b` by what the left operand's class states `__add__` returns, and falls back to the
right operand's `__radd__` when the left's method does not accept the right (a builtin literal's: `"," +
Word(...)` is `Word.__radd__`). Here the step is chosen from the syntax alone: the left operand's dunder,
unless the left operand is a literal of a builtin type, then the right operand's reflected dunder. The
graph then looks the dunder up the operand's class and its bases (a class it cannot find gives nothing).
"""

from __future__ import annotations

from typing import Any

# operator -> (dunder, reflected dunder or None when a builtin left operand decides it itself)
_BINARY: dict[str, tuple[str, str | None]] = {
    "+": ("__add__", "__radd__"),
    "-": ("__sub__", "__rsub__"),
    "*": ("__mul__", "__rmul__"),
    "/": ("__truediv__", "__rtruediv__"),
    "//": ("__floordiv__", "__rfloordiv__"),
    "%": ("__mod__", "__rmod__"),
    "@": ("__matmul__", "__rmatmul__"),
    "|": ("__or__", "__ror__"),
    "&": ("__and__", "__rand__"),
    "^": ("__xor__", "__rxor__"),
    "<<": ("__lshift__", "__rlshift__"),
    ">>": ("__rshift__", "__rrshift__"),
    "**": ("__pow__", "__rpow__"),
    # comparisons reflect into each other; `==`/`!=` of a builtin accept any object (a bool, nothing to type)
    "<": ("__lt__", "__gt__"),
    ">": ("__gt__", "__lt__"),
    "<=": ("__le__", "__ge__"),
    ">=": ("__ge__", "__le__"),
    "==": ("__eq__", None),
    "!=": ("__ne__", None),
}
_UNARY = {"~": "__invert__", "-": "__neg__", "+": "__pos__"}
# augmented assignment -> the in-place dunder (where a class has none, a checker falls back to the binary one:
# code-graph's type_eval reads `__iadd__()` so)
IN_PLACE = {op + "=": "__i" + dunder[2:] for op, (dunder, _) in _BINARY.items() if op[-1] not in "<>=!"}
IN_PLACE["<<="] = "__ilshift__"
IN_PLACE[">>="] = "__irshift__"
# The steps an operator gives (`__add__()`, `__radd__()`, `__iadd__()`, `__neg__()`): an operator's result
DUNDER_STEPS = frozenset(
    {d + "()" for pair in _BINARY.values() for d in pair if d}
    | {d + "()" for d in _UNARY.values()}
    | {d + "()" for d in IN_PLACE.values()}
)
# Literals of builtin types: their own dunders do not take a repository class (`str.__add__(str)`), so a
# checker uses the right operand's reflected one. `%` of a string formats anything: a str, left alone.
_BUILTIN_LITERALS = frozenset(
    {"string", "concatenated_string", "integer", "float", "true", "false", "none", "list", "tuple", "dictionary", "set"}
)


def _is_literal(node: Any) -> bool:
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    if node.type == "unary_operator":  # `-1`
        arg = node.child_by_field_name("argument")
        return arg is not None and arg.type in ("integer", "float")
    return node.type in _BUILTIN_LITERALS


def operator_step(node: Any) -> tuple[str, Any] | None:
    """(`__add__()`, the operand whose class it is looked up in) for a Python operator expression; None for
    anything else, or where the syntax does not decide (two literals, `"%s" % x`, `1 == x`, `a < b < c`)."""
    kind = node.type
    if kind == "unary_operator":
        op, arg = node.child_by_field_name("operator"), node.child_by_field_name("argument")
        dunder = _UNARY.get(op.type) if op is not None else None
        if dunder is None or arg is None or _is_literal(arg):
            return None
        return dunder + "()", arg
    if kind == "binary_operator":
        op = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        symbol = op.type if op is not None else ""
    elif kind == "comparison_operator":
        operands = [c for c in node.named_children if c.type != "comment"]
        ops = node.children_by_field_name("operators")
        if len(operands) != 2 or len(ops) != 1:
            return None  # (`a < b < c` is `a < b and b < c`: a bool)
        left, right = operands
        symbol = ops[0].type
    else:
        return None
    pair = _BINARY.get(symbol)
    if pair is None or left is None or right is None:
        return None
    dunder, reflected = pair
    if not _is_literal(left):
        return dunder + "()", left
    if reflected is None or _is_literal(right) or (symbol == "%" and left.type in ("string", "concatenated_string")):
        return None
    return reflected + "()", right
