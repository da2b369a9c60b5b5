"""Reading agents' JSON settings files, which some agents allow to carry comments (JSONC).

``ctx init`` parses a settings file to merge its entries in. Comments cannot survive a parse-and-dump
round trip, so a file that has comments is never rewritten: :class:`HasComments` is raised and the caller
prints the snippet to add by hand instead of losing the user's notes.
"""

from __future__ import annotations

import json
from typing import Any


class HasComments(ValueError):
    """The file carries ``//`` or ``/* */`` comments; rewriting it would drop them."""


class BadJson(ValueError):
    """The file is not valid JSON (nor JSONC); the message says where."""


def strip_comments(text: str) -> tuple[str, bool]:
    """``text`` without JSONC comments (strings left intact), and whether any comment was found."""
    out: list[str] = []
    i, n, found = 0, len(text), False
    in_string = False
    while i < n:
        ch = text[i]
        if in_string:
            out.append(ch)
            if ch == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if ch == '"':
                in_string = False
            i += 1
            continue
        if ch == '"':
            in_string = True
            out.append(ch)
            i += 1
        elif text.startswith("//", i):
            found = True
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            found = True
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        else:
            out.append(ch)
            i += 1
    return "".join(out), found


def load(text: str, *, path: str, allow_comments: bool) -> dict[str, Any]:
    """The top-level object of a settings file. Empty text is an empty object."""
    if not text.strip():
        return {}
    body, commented = strip_comments(text) if allow_comments else (text, False)
    try:
        value = json.loads(body)
    except json.JSONDecodeError as exc:
        if not allow_comments and strip_comments(text)[1]:
            raise BadJson(f"{path}: comments are not allowed in this file (line {exc.lineno})") from None
        raise BadJson(f"{path}: not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    if not isinstance(value, dict):
        raise BadJson(f"{path}: expected a JSON object at the top level, found {type(value).__name__}")
    if commented:
        raise HasComments(path)
    return value


def indent_of(text: str) -> int | str:
    """The indentation a JSON file already uses (first indented line: spaces or a tab); 2 when none."""
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            lead = line[: len(line) - len(stripped)]
            return "\t" if lead.startswith("\t") else len(lead)
    return 2


def dump(value: dict[str, Any], indent: int | str = 2) -> str:
    """The form ``ctx init`` writes: the file's own indentation (default two spaces), key order kept,
    non-ASCII kept, a final newline."""
    return json.dumps(value, indent=indent, ensure_ascii=False) + "\n"
