"""TypeScript object shapes the compiler types without guessing (issue 24): a function's inline object result
(`f(): {high: Long; low: Long}`: `f().high` is a Long), a `const` local's object literal (`const d = {high:
Long.fromNumber(0)}`: `d.high` is what its initializer gives) and a type's member typed by a nested object type
(`type S = {documentation: {CommentProvider: K}}`: `s.documentation.CommentProvider` is a K)."""

from __future__ import annotations

import re
from typing import Any

from .type_exprs import Chain, chain_of, split_top_level, ts_type

_MEMBER = re.compile(r"(?:readonly\s+)?([A-Za-z_$][\w$]*)\s*:\s*(.+)", re.S)  # (`name?:` and methods: left out)
MAX_MEMBERS = 64  # a larger literal is read as no shape (bounded work per declaration)


def result_members(written: str) -> dict[str, str] | None:
    """`: { high: Long; low: Long }` -> {'high': 'Long', 'low': 'Long'} (members whose type `ts_type` reads);
    None when the text is no object type."""
    text = written.strip().lstrip(":").strip()
    if not (text.startswith("{") and text.endswith("}")):
        return None
    members: dict[str, str] = {}
    for part in split_top_level(text[1:-1].replace(";", ","), ",")[:MAX_MEMBERS]:
        found = _MEMBER.fullmatch(part)
        typ = ts_type(found.group(2)) if found else None
        if found and typ is not None and typ != "Self":
            members[found.group(1)] = typ
    return members


def literal_members(value: Any) -> dict[str, Chain | None] | None:
    """A `const` declaration's object literal `{high: Long.fromNumber(0), low}`: each property's value as a
    chain (None: a value not read); None when `value` is no literal of a `const`, or holds a spread or more than
    MAX_MEMBERS entries (its members then are not all known)."""
    if value is None or value.type != "object" or value.named_child_count > MAX_MEMBERS:
        return None
    declarator = value.parent
    declaration = declarator.parent if declarator is not None else None
    if declaration is None or declaration.type != "lexical_declaration" or declaration.child(0).type != "const":
        return None
    if declarator.type != "variable_declarator" or declarator.child_by_field_name("type") is not None:
        return None
    members: dict[str, Chain | None] = {}
    for child in value.named_children:
        if child.type == "pair":
            key, item = child.child_by_field_name("key"), child.child_by_field_name("value")
            if key is not None and key.type == "property_identifier" and item is not None:
                members[key.text.decode("utf-8", "replace")] = chain_of(item)
        elif child.type == "shorthand_property_identifier":
            name = child.text.decode("utf-8", "replace")
            members[name] = (False, name, ())
        elif child.type not in ("comment", "method_definition"):
            return None  # (a spread `...x`, a computed key: members not all known)
    return members


def repeated_members(counts: dict[str, int] | None) -> set[str]:
    """The member names a type declares more than once (in two of its nested object types, say)."""
    return {name for name, n in (counts or {}).items() if n > 1}


def group_rows(
    groups: dict[str, set[str]], counts: dict[str, dict[str, int]], class_ids: dict[str, str]
) -> list[tuple[str, str, str]]:
    """`(type id, member, "Self")` for each member typed by a nested object type: code-scan files the nested
    members under the type itself, so reading the member gives the type again (`S#documentation` is an S and
    `S#documentation#CommentProvider` the K), where every name is the type's once: a name two groups declare
    (`a: {Lock: A}; b: {Lock: B}`) has no row (repeated_members), so no group can read another's member wrongly."""
    rows: list[tuple[str, str, str]] = []
    for cls, names in groups.items():
        owner = class_ids.get(cls)
        twice = repeated_members(counts.get(cls))
        if owner is not None:
            rows.extend((owner, name, "Self") for name in sorted(names) if name not in twice)
    return rows
