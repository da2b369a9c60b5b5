"""TypeScript narrowing by assignment (issue 24): `if (!Long.isLong(x)) x = Long.fromValue(x); x.isZero()`.
After such an `if`, the compiler types a parameter `x` as the union of its two paths: the guard's type (the
condition false: `isLong(x)` held) and the assigned value's (the condition true). Read only where those two
paths are all there is: the `if` has no else, its body is that one assignment, it precedes the call in an
enclosing block of the same function, and the function assigns `x` nowhere else. The same walk reads an
early exit `if (!(x instanceof K)) return;` (or `throw`): after it `x` is a K, where `x` is never assigned."""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Any

from .type_exprs import _TS_FUNCTIONS, _parent

_PREDICATE = re.compile(r"([A-Za-z_$][\w$]*)\s+is\s+(\S.*)", re.S)  # (`asserts x is K`: not read)

_DEPTH = 64  # the walk up from a call stops here (nesting beyond is hostile; answered "not found")
_ASSIGNS = frozenset({"assignment_expression", "augmented_assignment_expression", "update_expression"})


def predicate_type(result: str) -> str | None:
    """`: value is Long` -> `Long` (a type guard's narrowed type, as written); None for anything else."""
    found = _PREDICATE.fullmatch(result.strip().lstrip(":").strip())  # (stripped first: no regex over runs of blanks)
    return found.group(2) if found and found.group(1) not in ("asserts", "this") else None


def guarded_assignment(node: Any, name: str, parents: dict[int, Any], memo: dict[Any, Any]) -> tuple[Any, Any] | None:
    """For the receiver `node` (the identifier `name`, a parameter of the function around it): the guard
    call (`Long.isLong(x)`) and the assigned value (`Long.fromValue(x)`) of the `if` that decides its type
    there; (None, the class K) after an early exit `if (!(x instanceof K)) return;`; else None. `parents` is
    `ts_maybe_narrowed`'s memo (a node's parent, read once); `memo` (one per file) keeps each block's guarded
    ifs and each function's assignments."""
    child, parent = node, _parent(node, parents)
    found: Any = None
    for _ in range(_DEPTH):
        if parent is None:
            return None
        if parent.type in _TS_FUNCTIONS:
            break
        if found is None and parent.type == "statement_block":
            starts, ifs = _guarded_ifs(parent, memo).get(name, ((), ()))
            # the last one before the call, by bisection: a block of n such ifs and n calls stays linear-ish
            at = bisect_left(starts, child.start_byte)
            if at:
                found = ifs[at - 1]
        child, parent = parent, _parent(parent, parents)
    else:
        return None
    if found is None or parent is None or name not in _param_names(parent):
        return None
    return found if _assignments(parent, memo).get(name, 0) == (found[0] is not None) else None


def _guarded_ifs(block: Any, memo: dict[Any, Any]) -> dict[str, tuple[list[int], list[tuple[Any, Any]]]]:
    """A block's statements `if (!G.g(x)) x = v;` (or `{ x = v; }`), by x: their starts (in order) and, at
    the same index, (the guard call, v)."""
    found = memo.get(("ifs", block.id))
    if found is None:
        found = {}
        for statement in block.named_children:
            if statement.type == "if_statement" and (got := _guarded(statement)) is not None:
                starts, ifs = found.setdefault(got[0], ([], []))
                starts.append(statement.start_byte)
                ifs.append((got[1], got[2]))
        memo[("ifs", block.id)] = found
    return found


def _guarded(statement: Any) -> tuple[str, Any, Any] | None:
    if statement.child_by_field_name("alternative") is not None:
        return None
    cond = statement.child_by_field_name("condition")
    if cond is not None and cond.type == "parenthesized_expression" and cond.named_child_count == 1:
        cond = cond.named_child(0)
    if cond is None or cond.type != "unary_expression" or cond.child(0).type != "!":
        return None
    call = cond.child_by_field_name("argument")
    if call is not None and call.type == "parenthesized_expression" and call.named_child_count == 1:
        return _early_exit(call.named_child(0), statement.child_by_field_name("consequence"))
    if call is None or call.type != "call_expression":
        return None
    callee, args = call.child_by_field_name("function"), call.child_by_field_name("arguments")
    if callee is None or callee.type != "member_expression" or args is None or args.named_child_count != 1:
        return None
    guarded = args.named_child(0)
    body = statement.child_by_field_name("consequence")
    if body is not None and body.type == "statement_block" and body.named_child_count == 1:
        body = body.named_child(0)
    if guarded is None or guarded.type != "identifier" or body is None or body.type != "expression_statement":
        return None
    assign = body.named_child(0)
    if assign is None or assign.type != "assignment_expression":
        return None
    left, value = assign.child_by_field_name("left"), assign.child_by_field_name("right")
    if left is None or left.type != "identifier" or left.text != guarded.text or value is None:
        return None
    return guarded.text.decode("utf-8", "replace"), call, value


def _early_exit(test: Any, body: Any) -> tuple[str, Any, Any] | None:
    """`if (!(x instanceof K)) return;` (or `throw`, alone or in a block): (x, None, K)."""
    if body is not None and body.type == "statement_block" and body.named_child_count == 1:
        body = body.named_child(0)
    if body is None or body.type not in ("return_statement", "throw_statement") or test.type != "binary_expression":
        return None
    op, left, right = (test.child_by_field_name(f) for f in ("operator", "left", "right"))
    if op is None or op.type != "instanceof" or left is None or left.type != "identifier" or right is None:
        return None
    if right.type not in ("identifier", "member_expression"):
        return None
    return left.text.decode("utf-8", "replace"), None, right


def _param_names(function: Any) -> set[str]:
    params = function.child_by_field_name("parameters")
    names: set[str] = set()
    for param in params.named_children if params is not None else ():
        pattern = param.child_by_field_name("pattern")
        if pattern is not None and pattern.type == "identifier":
            names.add(pattern.text.decode("utf-8", "replace"))
    return names


def _assignments(function: Any, memo: dict[Any, Any]) -> dict[str, int]:
    """How many times the function (and the functions it holds: a closure may assign it too) assigns each
    name (`x = ...`, `x += ...`, `x++`), memoized by function."""
    key = ("assigns", function.id)
    found = memo.get(key)
    if found is None:
        found = {}
        todo = [function.child_by_field_name("body")]
        while todo:
            cur = todo.pop()
            if cur is None:
                continue
            if cur.type in _ASSIGNS:
                target = cur.child_by_field_name("left") or cur.child_by_field_name("argument")
                if target is not None and target.type == "identifier":
                    label = target.text.decode("utf-8", "replace")
                    found[label] = found.get(label, 0) + 1
            todo.extend(cur.named_children)
        memo[key] = found
    return found
