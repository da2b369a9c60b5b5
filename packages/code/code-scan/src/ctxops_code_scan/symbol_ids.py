"""SCIP-like symbol ids: `<lang> <repo-relative path> <qualified name><suffix>`.

Ids hold no line numbers, so they do not change when unrelated lines move. Duplicate definitions in one
file (a function redefined under `if`, a property getter and setter) are told apart in order of
appearance: the first keeps the plain id, later ones get `(+1)`, `(+2)`, ...
"""

from __future__ import annotations

CALLABLE_KINDS = frozenset({"function", "method"})
TYPE_KINDS = frozenset({"class", "struct", "interface", "trait", "enum", "type"})


def suffix_for(kind: str) -> str:
    if kind in CALLABLE_KINDS:
        return "()."
    if kind in TYPE_KINDS:
        return "#"
    if kind == "module":
        return "/"
    if kind == "macro":
        return "!"
    return "."


def escape_path(path: str) -> str:
    """Paths with spaces or backticks are wrapped in backticks (SCIP's escaping), so ids stay splittable."""
    if " " in path or "`" in path:
        return "`" + path.replace("`", "``") + "`"
    return path


def symbol_id(lang: str, path: str, qualname: str, kind: str, duplicate: int = 0) -> str:
    suffix = suffix_for(kind)
    if duplicate:
        marker = f"(+{duplicate})"
        suffix = marker + "." if suffix == "()." else marker + suffix
    return f"{lang} {escape_path(path)} {qualname}{suffix}"


def first_definition(symbol_id: str) -> str:
    """The id of a name's first definition in its file, for any later duplicate (`f(+2).` -> `f().`,
    `K(+1)#` -> `K#`): a call resolved to every overload or redefinition of a function is one call.
    `(+N).` is read as a function's (a variable's duplicate has the same spelling)."""
    head, sep, tail = symbol_id.rpartition("(+")
    digits, close, rest = tail.partition(")")
    if not (sep and close and digits.isdigit() and rest in ("#", "/", "!", ".")):
        return symbol_id
    return head + ("()." if rest == "." else rest)


class IdAllocator:
    """Hands out ids for one file in document order, numbering duplicates deterministically."""

    def __init__(self, lang: str, path: str) -> None:
        self._lang = lang
        self._path = path
        self._seen: dict[str, int] = {}

    def allocate(self, qualname: str, kind: str) -> str:
        # Counted per qualified name across kinds, so a field and a method of one name cannot collide.
        count = self._seen.get(qualname, 0)
        self._seen[qualname] = count + 1
        return symbol_id(self._lang, self._path, qualname, kind, count)
