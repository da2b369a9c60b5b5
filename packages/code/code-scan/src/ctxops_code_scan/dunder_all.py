"""Python: the names a module's `__all__` lists, which is what `from mod import *` brings.

Read only when every module-level binding of `__all__` is readable: `__all__ = [...]` or `(...)` of string
literals, `+` of such parts, `+=` of them, and `other.__all__` (another module's list, which the graph
reads). Anything else (`lcat(...)`, a comprehension, `.extend`, a binding in a function or an `if`) makes the
module's `__all__` unknown and no row is written: the graph then takes every public name, as for a module
without `__all__`. Rows are the `types` table's (owner, name, expr): `*all` for a listed name, `*all*` for
another module's list (expr the name bound to that module).
"""

from __future__ import annotations

from typing import Any

ALL_NAME = "*all"
ALL_OF = "*all*"


def _parts(node: Any) -> list[tuple[str, str]] | None:
    """The rows one right-hand side gives, or None when any part of it is not readable. Iterative, so a
    10,000-term `+` chain costs one visit per node and no recursion depth."""
    rows: list[tuple[str, str]] = []
    todo = [node]
    while todo:
        n = todo.pop()
        kind = n.type
        if kind == "parenthesized_expression" and n.named_child_count == 1:
            todo.append(n.named_children[0])
        elif kind == "binary_operator":
            op = n.child_by_field_name("operator")
            if op is None or op.type != "+":
                return None
            todo.extend((n.child_by_field_name("right"), n.child_by_field_name("left")))
        elif kind in ("list", "tuple"):
            for item in n.named_children:
                name = _plain_string(item)
                if name is None:
                    return None
                rows.append((ALL_NAME, name))
        elif kind == "attribute":
            obj, attr = n.child_by_field_name("object"), n.child_by_field_name("attribute")
            if obj is None or attr is None or obj.type != "identifier" or attr.text != b"__all__":
                return None
            rows.append((ALL_OF, obj.text.decode("utf-8", "replace")))
        else:
            return None
    return rows


def _plain_string(node: Any) -> str | None:
    """The text of a plain string literal naming an identifier (no prefix, no interpolation), else None."""
    if node.type != "string":
        return None
    content = [c for c in node.named_children if c.type not in ("string_start", "string_end")]
    start = node.children[0].text if node.children else b""
    if len(content) != 1 or content[0].type != "string_content" or start not in (b"'", b'"'):
        return None
    text = content[0].text.decode("utf-8", "replace")
    return text if text.isidentifier() else None


def dunder_all_rows(root: Any) -> list[tuple[None, str, str]]:
    """The `types` rows of a module's readable `__all__` (see the module's docstring); [] when it has none
    or it is unknown."""
    rows: list[tuple[str, str]] = []
    bound = False
    for stmt in root.named_children:
        if stmt.type != "expression_statement" or stmt.named_child_count != 1:
            if stmt.type in _BLOCKS and _mentions_all(stmt):
                return []  # (bound in an `if`, a `try`, a loop: not read)
            continue
        expr = stmt.named_children[0]
        if expr.type not in ("assignment", "augmented_assignment"):
            if (expr.text or b"").startswith(b"__all__"):
                return []  # (`__all__.extend(...)`, `__all__.append(...)`)
            continue
        left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
        if left is None or left.type != "identifier" or left.text != b"__all__":
            continue
        op = expr.child_by_field_name("operator")
        if right is None or (expr.type == "augmented_assignment" and (op is None or op.type != "+=")):
            return []
        got = _parts(right)
        if got is None:
            return []
        if expr.type == "assignment":
            rows = []
        rows.extend(got)
        bound = True
    return [(None, name, expr) for name, expr in dict.fromkeys(rows)] if bound else []


# Statements whose body binds module-level names (a function's or a class's body binds its own).
_BLOCKS = frozenset({"if_statement", "try_statement", "for_statement", "while_statement", "with_statement"})


def _mentions_all(node: Any) -> bool:
    """Whether a block's text names `__all__` at all (a cheap check on its bytes)."""
    return b"__all__" in (node.text or b"")
