"""Does a call site pass as many arguments as a Python definition accepts? (ranking name-only candidates)

A candidate `x.close(1, 2)` for `def close(self)` is unlikely to be that method: a checker would reject the
call. Only the counts are compared (positional and keyword arguments together), from the signature as
indexed and the call as written; what cannot be read (an unpacked `*args` at the site, a call spread over
more than `MAX_LINES` lines) counts as matching.
"""

from __future__ import annotations

from collections.abc import Callable

from ctxops_code_scan.type_exprs import split_top_level

MAX_LINES = 12  # lines of a call's argument list read at most


def accepted(signature: str | None, *, drop_first: bool) -> tuple[int, int | None] | None:
    """(fewest, most) arguments a call may pass to a Python definition with `signature` (`(self, a, b=1)`);
    most is None with `*args` or `**kwargs`; `drop_first` leaves out `self`/`cls` (a call through a
    receiver). None when the signature cannot be read."""
    if not signature or not signature.startswith("("):
        return None
    inner = signature[1 : signature.rfind(")")] if ")" in signature else ""
    params = [p.strip() for p in split_top_level(inner, ",", "([{") if p.strip() and p.strip() != "/"]
    if drop_first and params and params[0].split(":", 1)[0].strip() in ("self", "cls"):
        params = params[1:]
    fewest, most, open_ended = 0, 0, False
    for p in params:
        if p == "*":
            continue  # keyword-only parameters follow: they count alike (the site's keywords are counted)
        if p.startswith("*"):
            open_ended = True
            continue
        most += 1
        if "=" not in p:
            fewest += 1
    return fewest, None if open_ended else most


def passed(line_of: Callable[[int], str | None], line: int, col: int, name: str) -> int | None:
    """How many arguments the call of `name` written at (line, col) passes; None when it cannot tell
    (not a call there, `*xs`/`**kw` unpacked, an argument list longer than MAX_LINES)."""
    text = line_of(line)
    if text is None or text[col : col + len(name)] != name:
        return None
    rest = text[col + len(name) :].lstrip()
    if not rest.startswith("("):
        return None
    buf, n = rest[1:], 0
    depth, quote, count, seen_arg = 0, "", 0, False
    while True:
        i = 0
        while i < len(buf):
            ch = buf[i]
            if quote:
                if ch == "\\":
                    i += 1
                elif ch == quote:
                    quote = ""
            elif ch in "'\"":
                quote, seen_arg = ch, True
            elif ch == "#":
                break
            elif ch in "([{":
                depth, seen_arg = depth + 1, True
            elif ch in ")]}":
                if depth == 0:
                    return count + (1 if seen_arg else 0)
                depth -= 1
            elif ch == "," and depth == 0:
                count, seen_arg = count + (1 if seen_arg else 0), False
            elif ch == "*" and depth == 0 and not seen_arg:
                return None  # `*xs` or `**kw`: as many as they hold
            elif not ch.isspace():
                seen_arg = True
            i += 1
        n += 1
        nxt = line_of(line + n) if n < MAX_LINES else None
        if nxt is None:
            return None
        buf = nxt
