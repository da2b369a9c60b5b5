"""Python `@overload`: which overload a call picks by its first argument's class, as a checker picks it.

A checker tries a function's overloads in the order written and takes the first whose parameter accepts the
argument. This reads the first positional argument of `f(arg)` at the call (`argument_of`: a literal, a
constructor such as `time(12, 34)`, or a local bound to one) and, in the file defining f, which overload each
known argument class picks (`pick`). Only classes whose bases the checker's stubs fix are known (builtins'
scalars, `datetime`'s, `decimal.Decimal`): a parameter this cannot decide for such a class (a repository
class, a protocol, a type variable) stops the walk, so an answer is never a guess.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# Argument class -> the parameter classes that accept it: its bases in typeshed, and the numeric promotions a
# checker applies (an `int` is accepted where a `float` or `complex` is written).
ACCEPTED_BY: dict[str, frozenset[str]] = {
    "builtins.bool": frozenset({"builtins.bool", "builtins.int", "builtins.float", "builtins.complex"}),
    "builtins.int": frozenset({"builtins.int", "builtins.float", "builtins.complex"}),
    "builtins.float": frozenset({"builtins.float", "builtins.complex"}),
    "builtins.complex": frozenset({"builtins.complex"}),
    "builtins.str": frozenset({"builtins.str"}),
    "builtins.bytes": frozenset({"builtins.bytes"}),
    "datetime.datetime": frozenset({"datetime.datetime", "datetime.date"}),
    "datetime.date": frozenset({"datetime.date"}),
    "datetime.time": frozenset({"datetime.time"}),
    "datetime.timedelta": frozenset({"datetime.timedelta"}),
    "decimal.Decimal": frozenset({"decimal.Decimal"}),
}
BUILTINS = frozenset(k.partition(".")[2] for k in ACCEPTED_BY if k.startswith("builtins."))
_ANY = frozenset({"object", "Any", "typing.Any", "t.Any", "builtins.object"})
# Parameter heads no scalar above is an instance of (str and bytes are sequences: those stay undecided)
_CONTAINERS = frozenset(
    {"list", "List", "dict", "Dict", "tuple", "Tuple", "set", "Set", "frozenset", "FrozenSet", "Mapping",
     "MutableMapping", "Sequence", "MutableSequence", "Iterable", "Iterator", "Collection", "Generator",
     "AbstractSet", "MutableSet", "OrderedDict", "defaultdict", "deque"}
)  # fmt: skip
_SEQUENCE_LIKE = frozenset({"Sequence", "Iterable", "Collection"})
_LITERALS = {"integer": "builtins.int", "float": "builtins.float", "true": "builtins.bool", "false": "builtins.bool"}
_NAMES = ("identifier", "attribute")


def is_overload(definition: Any) -> bool:
    """A function definition decorated `@overload` / `@typing.overload`."""
    parent = definition.parent
    if parent is None or parent.type != "decorated_definition":
        return False
    named = (d.named_children[0] for d in parent.named_children if d.type == "decorator" and d.named_child_count)
    return any(d.type in _NAMES and d.text.rpartition(b".")[2] == b"overload" for d in named)


def argument_of(call: Any) -> str | None:
    """What the first positional argument of a call is, as written: a class (`builtins.int` for a literal),
    `=name` for a call of `name` (a constructor, decided in the calling file), `$name` for a local; None for
    anything else (no argument, a keyword or unpacked one, an expression)."""
    args = call.child_by_field_name("arguments")
    if args is None or args.type != "argument_list":
        return None
    first = next((a for a in args.named_children if a.type != "comment"), None)
    if first is None:
        return None
    if first.type in _LITERALS:
        return _LITERALS[first.type]
    if first.type in ("string", "concatenated_string"):
        return "builtins.bytes" if first.text[:3].lstrip(b"rRfFuU")[:1] in (b"b", b"B") else "builtins.str"
    if first.type == "identifier":
        return "$" + _decoded(first.text)
    if first.type == "call":
        fn = first.child_by_field_name("function")
        if fn is not None and fn.type in _NAMES and fn.text.count(b".") <= 1:
            return "=" + _decoded(fn.text)
    return None


def _decoded(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def _accepts(written: str, arg: str, canonical: Callable[[str], str | None]) -> bool | None:
    """Whether a parameter annotated `written` accepts an instance of the known class `arg` (None: unknown)."""
    members = _members(written.strip().strip("'\""))
    if members is None:
        return None
    verdicts = []
    for member in members:
        head = member.partition("[")[0].strip()
        if head == "None":
            verdicts.append(False)
            continue
        if head in _ANY:
            return True
        short = head.rpartition(".")[2]
        if short in _CONTAINERS and (short not in _SEQUENCE_LIKE or arg not in ("builtins.str", "builtins.bytes")):
            verdicts.append(False)
            continue
        known = canonical(head)
        if known is None or (known not in ACCEPTED_BY and known not in _ANY):
            return None  # (a repository class, a protocol, a type variable: not decided here)
        if known in _ANY or known in ACCEPTED_BY[arg]:
            return True
        verdicts.append(False)
    return False if all(v is False for v in verdicts) else None


def _members(written: str) -> list[str] | None:
    """The members of a union as written (`A | B`, `Union[A, B]`, `Optional[A]`); None when unreadable."""
    if written.startswith(("Optional[", "typing.Optional[", "t.Optional[")) and written.endswith("]"):
        return [written.partition("[")[2][:-1], "None"]
    if written.startswith(("Union[", "typing.Union[", "t.Union[")) and written.endswith("]"):
        return _split(written.partition("[")[2][:-1], ",")
    return _split(written, "|")


def _split(text: str, sep: str) -> list[str] | None:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts if all(parts) else None


def pick(params: list[str | None], arg: str, canonical: Callable[[str], str | None]) -> int | None:
    """The index of the overload a call with an `arg` instance picks: the first whose first parameter
    (`params`, as written, in order; None: none stated) accepts it, if every one before it surely does not."""
    for i, written in enumerate(params):
        verdict = _accepts(written, arg, canonical) if written is not None else None
        if verdict is None:
            return None
        if verdict:
            return i
    return None
