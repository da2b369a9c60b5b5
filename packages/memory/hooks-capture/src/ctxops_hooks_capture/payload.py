"""Reading a hook payload in bounded time, whatever its size, and without quoting it in errors.

Parsing costs by the number of JSON tokens more than by bytes: a 50 MB string parses in ~60 ms, a list of
five million short strings in over a second. A payload up to ``FULL_PARSE_LIMIT`` bytes, or with at most
``TOKEN_LIMIT`` structural characters (counted in C), is parsed whole; any other is parsed from its first
``PREFIX_LIMIT`` bytes, closed where its last complete value ends: the fields agents put first (ids, cwd,
event name, tool name and input) survive, the bulk does not, and the time stays flat.

Error messages say what is wrong and where, never the bytes themselves: payloads carry secrets, and error
messages go to a log file.
"""

from __future__ import annotations

from ctxops_contracts.shared.regex import compile as re_compile
from ctxops_contracts.shared.regex import lazy

from . import jsontext

TYPE_CHECKING = False  # typing is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    from typing import Any

FULL_PARSE_LIMIT = 2 * 1024 * 1024
PREFIX_LIMIT = 256 * 1024
TOKEN_LIMIT = 400_000
_STRUCTURE = lazy(r'[\[\]{},:"]')
# A JSON string from its opening quote. The lookbehind (a quote after a backslash is inside a string,
# never an opening one) keeps a search linear: after one unterminated string every later quote is escaped.
_STRING = lazy(r'(?<!\\)"[^"\\]*+(?:\\.[^"\\]*+)*+"')
MAX_DEPTH = 200
_CLOSE = {"{": "}", "[": "]"}


class PayloadError(ValueError):
    """The input is not a JSON object the adapter can read (empty, malformed, not an object)."""


def parse_payload(data: bytes | str) -> tuple[dict[str, Any], int]:
    """The JSON object in ``data`` and how many bytes of it were left unread (0 when parsed whole).

    Invalid UTF-8 is replaced rather than refused.
    """
    raw = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
    if not raw.strip():
        raise PayloadError("empty input: the agent sent no JSON payload")
    left_out = 0
    if len(raw) > FULL_PARSE_LIMIT and _tokens(raw) > TOKEN_LIMIT:
        text = raw[:PREFIX_LIMIT].decode("utf-8", "replace")
        left_out = len(raw) - PREFIX_LIMIT
        closed = close_prefix(text)
        if closed is None:
            raise PayloadError(f"payload of {len(raw)} bytes has no complete JSON value in its first {PREFIX_LIMIT}")
        text = closed
    else:
        text = raw.decode("utf-8", "replace")  # binary bytes inside strings become U+FFFD
    try:
        try:
            value = jsontext.parse(text)
        except RecursionError:  # nested too deep for the parser: keep what the depth limit allows
            closed = close_prefix(text[:PREFIX_LIMIT])
            if closed is None:
                raise PayloadError(f"payload of {len(raw)} bytes is nested too deeply to read") from None
            value = jsontext.parse(closed)
            left_out = max(left_out, 1)
    except ValueError as exc:
        line, column = getattr(exc, "lineno", None), getattr(exc, "colno", None)
        where = f" at line {line} column {column}" if line is not None else ""
        reason = getattr(exc, "msg", None) or type(exc).__name__
        raise PayloadError(f"malformed JSON payload of {len(raw)} bytes: {reason}{where}") from None
    if not isinstance(value, dict):
        raise PayloadError(f"payload must be a JSON object, got {type(value).__name__}")
    return value, left_out


def _tokens(raw: bytes) -> int:
    """About how many JSON tokens ``raw`` holds (each ``bytes.count`` runs in C at memory speed)."""
    return raw.count(b'"') // 2 + raw.count(b",") + raw.count(b"[") + raw.count(b"{")


def close_prefix(text: str) -> str | None:
    """``text`` (the start of a JSON document) cut after its last complete value and closed, or None.

    A string cut in the middle is kept up to the cut and closed, so a huge prompt keeps its first part.
    """
    stack: list[str] = []
    best: tuple[int, int] | None = None  # (cut position, stack depth) of the last safe cut
    expecting_value = False
    cut_in_string = False
    pos = 0
    find = _STRUCTURE.search
    while (found := find(text, pos)) is not None:
        start = found.start()
        token = found.group()
        if token == '"':
            string = _STRING.match(text, start)
            if string is None:
                pos = start
                cut_in_string = True
                break  # a string the cut fell inside
            if expecting_value:
                best = (string.end(), len(stack))
            expecting_value = False
            pos = string.end()
            continue
        pos = found.end()
        if token in "{[":
            if len(stack) >= MAX_DEPTH:
                break  # nested deeper than any agent payload: cut here
            stack.append(token)
            best = (pos, len(stack))  # an empty container just opened is complete once closed
            expecting_value = token == "["
        elif token in "}]":
            if not stack:
                return None
            stack.pop()
            best = (pos, len(stack))
            expecting_value = False
        elif token == ",":
            best = (start, len(stack))
            expecting_value = bool(stack) and stack[-1] == "["
        else:  # ":"
            expecting_value = True
    if not stack and best is not None and best[0] == len(text.rstrip()):
        return text
    tail = text[pos:]
    quote = tail.find('"')
    if cut_in_string and expecting_value and quote >= 0 and stack and best is not None:
        # a string value cut mid-way: keep it, closed (a dangling escape is dropped first)
        body = tail[quote + 1 :]
        body = body[: len(body) - (len(body) - len(body.rstrip("\\"))) % 2]
        body = re_compile(r"\\u[0-9a-fA-F]{0,3}$").sub("", body)
        cut = text[: pos + quote + 1] + body + '"'
        return cut + "".join(_CLOSE[c] for c in reversed(stack))
    if best is None:
        return None
    cut_at, depth = best
    return text[:cut_at] + "".join(_CLOSE[c] for c in reversed(stack[:depth]))
