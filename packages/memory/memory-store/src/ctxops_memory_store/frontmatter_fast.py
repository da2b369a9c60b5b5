"""The front matter the store writes, read without ``tomllib`` (issue 23, item 4).

``tomllib`` compiles its regular expressions on import, ~8-15 ms of every fresh process that parses a file:
the hook after a `git pull` (the pulled files), ``ctx mem show``, ``ctx mem add`` (the file it wrote). What
``frontmatter.render`` writes (tomli-w, fixed keys) is a small subset of TOML: ``key = value`` lines with bare
keys; basic strings, booleans, integers, offset date-times, empty arrays, and arrays written one item a line
(strings, or inline tables of strings and integers). ``parse`` reads exactly that subset, giving what
``tomllib.loads`` gives (a test compares them on many rendered entries), and None for anything else, which
the caller then hands to ``tomllib`` (so its error messages, and every other form, stay tomllib's). Linear in
the text: one pass, no regex.
"""

from __future__ import annotations

from datetime import UTC

TYPE_CHECKING = False  # typing is not imported on the hook's path; type checkers treat this name as True
if TYPE_CHECKING:
    from typing import Any

BARE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
DIGITS = frozenset("0123456789")
ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}
_BAD = object()


def parse(text: str) -> dict[str, Any] | None:
    """``tomllib.loads(text)`` for the subset the store writes; None for anything else."""
    out: dict[str, Any] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        key, sep, rest = line.partition(" = ")
        if not sep or not key or not BARE.issuperset(key) or key in out:
            return None
        if rest == "[":  # one item a line, each ending in a comma, then "]"
            items: list[Any] = []
            while True:
                if i >= len(lines):
                    return None
                item = lines[i]
                i += 1
                if item == "]":
                    break
                if not item.startswith("    ") or not item.endswith(","):
                    return None
                value = _item(item[4:-1])
                if value is _BAD:
                    return None
                items.append(value)
            out[key] = items
            continue
        value = _scalar(rest)
        if value is _BAD:
            return None
        out[key] = value
    return out


def _item(text: str) -> Any:
    if text.startswith("{ ") and text.endswith(" }"):
        return _inline_table(text[2:-2])
    found = _string(text, 0)
    return _BAD if found is None or found[1] != len(text) else found[0]


def _inline_table(text: str) -> Any:
    table: dict[str, Any] = {}
    pos = 0
    while True:
        sep = text.find(" = ", pos)
        if sep < 0:
            return _BAD
        key = text[pos:sep]
        if not key or not BARE.issuperset(key) or key in table:
            return _BAD
        pos = sep + 3
        if text.startswith('"', pos):
            found = _string(text, pos)
            if found is None:
                return _BAD
            table[key], pos = found
        else:
            end = text.find(", ", pos)
            end = len(text) if end < 0 else end
            value = _integer(text[pos:end])
            if value is None:
                return _BAD
            table[key], pos = value, end
        if pos == len(text):
            return table
        if not text.startswith(", ", pos):
            return _BAD
        pos += 2


def _scalar(text: str) -> Any:
    if text.startswith('"'):
        found = _string(text, 0)
        return _BAD if found is None or found[1] != len(text) else found[0]
    if text == "true":
        return True
    if text == "false":
        return False
    if text == "[]":
        return []
    number = _integer(text)
    if number is not None:
        return number
    stamp = _datetime(text)
    return _BAD if stamp is None else stamp


def _integer(text: str) -> int | None:
    digits = text[1:] if text.startswith("-") else text
    if not digits or not DIGITS.issuperset(digits) or (len(digits) > 1 and digits[0] == "0"):
        return None
    return int(text)


def _datetime(text: str) -> Any:
    """``YYYY-MM-DD HH:MM:SS[.ffffff]`` with ``Z`` or ``+HH:MM``/``-HH:MM`` (what tomli-w writes), else None."""
    if len(text) not in (20, 25, 27, 32) or text[10] not in " T":
        return None
    head, tail = text[:19], text[19:]
    if any(head[n] != c for n, c in ((4, "-"), (7, "-"), (13, ":"), (16, ":"))):
        return None
    if not DIGITS.issuperset(head[:4] + head[5:7] + head[8:10] + head[11:13] + head[14:16] + head[17:19]):
        return None
    if tail.startswith("."):
        if not DIGITS.issuperset(tail[1:7]) or len(tail) < 7:
            return None
        tail = tail[7:]
    if tail != "Z" and not (
        len(tail) == 6 and tail[0] in "+-" and tail[3] == ":" and DIGITS.issuperset(tail[1:3] + tail[4:6])
    ):
        return None
    from datetime import datetime, timedelta, timezone

    try:
        parsed = datetime.fromisoformat(text[:10] + "T" + text[11:].replace("Z", "+00:00"))
    except ValueError:
        return None
    offset = parsed.utcoffset()
    if offset is None:
        return None
    # tomllib's zone objects: UTC for ``Z`` and a zero offset alike, else a fixed offset
    return parsed.replace(tzinfo=UTC if offset == timedelta(0) else timezone(offset))


def _string(text: str, pos: int) -> tuple[str, int] | None:
    """The basic string opening at ``text[pos]`` (a ``"``) and the index after it; None when not valid TOML."""
    out: list[str] = []
    i = pos + 1
    n = len(text)
    while i < n:
        char = text[i]
        if char == '"':
            return "".join(out), i + 1
        if char == "\\":
            code = text[i + 1 : i + 2]
            if code in ESCAPES:
                out.append(ESCAPES[code])
                i += 2
                continue
            width = 4 if code == "u" else 8 if code == "U" else 0
            digits = text[i + 2 : i + 2 + width]
            if not width or len(digits) != width or not frozenset("0123456789abcdefABCDEF").issuperset(digits):
                return None
            value = int(digits, 16)
            if 0xD800 <= value <= 0xDFFF or value > 0x10FFFF:
                return None
            out.append(chr(value))
            i += 2 + width
            continue
        if (char < " " and char != "\t") or char == "\x7f":
            return None
        out.append(char)
        i += 1
    return None
