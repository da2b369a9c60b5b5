"""A bound on bracket nesting, decided in linear time before a file is parsed (hostile input, issue 21).

tree-sitter's parse is linear, but the extraction over its tree is not on deep nesting: `Node.parent` costs
the node's depth, tags-query patterns stay open through a node's subtree, and per-scope lookups grow with
the scopes around. A file nested deeper than `MAX_DEPTH` brackets (the deepest real file measured: 27,
`docs/benchmarks.md`) keeps everything up to that depth; what lies deeper is blanked (spaces, newlines kept,
so every line and byte offset is unchanged) and the file is reported `partial` with the reason.
"""

from __future__ import annotations

import re
from functools import cache
from itertools import accumulate
from operator import sub

MAX_DEPTH = 128
# Python's blocks nest by indentation, not brackets: the indentation levels of its lines are bounded too.
MAX_INDENT = 48

# Strings and comments first (their brackets do not nest), then one bracket. Every alternative either
# matches what it scanned or fails at its first characters: one pass over the bytes, no backtracking
# (loops unrolled, `"[^"\\]*(?:\\.[^"\\]*)*"`: a run of plain characters is one step, not one per character).
# The first group is a string that holds code (a Python f-string, a JavaScript template: `${f(g(...))}`):
# its openers are all counted as depth (an attacker's code in one cannot hide behind a `)` in its text).
_C_COMMENTS = rb"//[^\n]*|/\*[^*]*(?:\*(?!/)[^*]*)*(?:\*/|\Z)"
_C_LIKE = (
    _C_COMMENTS + rb'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"?'
    rb"|'(?:\\(?:u\{[0-9a-fA-F]{0,6}\}|x[0-9a-fA-F]{2}|[0-7]{1,3}|.)|[^'\\\n])'"  # a char literal, not `'a`
)
_JS_HOLDING = rb"`[^`\\]*(?:\\.[^`\\]*)*`?"
_JS = (
    rb"(" + _JS_HOLDING + rb")|" + _C_COMMENTS + rb'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"?'
    rb"|'[^'\\\n]*(?:\\.[^'\\\n]*)*'?"
)
_GO = _C_LIKE + rb"|`[^`]*`?"
_PY_STRING = (
    rb'"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*(?:"""|\Z)'
    rb"|'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*(?:'''|\Z)"
    rb'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"?'
    rb"|'[^'\\\n]*(?:\\.[^'\\\n]*)*'?"
)
# (the lookbehinds after the first letter: a pattern that starts with a literal is searched for quickly)
_PY_HOLDING = rb"(?:[fF](?<![\w][fF])[rR]?|[rR](?<![\w][rR])[fF])(?:" + _PY_STRING + rb")"
_PY = rb"(" + _PY_HOLDING + rb")|#[^\n]*|" + _PY_STRING
_PY_PLAIN = rb"#[^\n]*|" + _PY_STRING
_SKIP = {
    "python": _PY,
    "javascript": _JS,
    "typescript": _JS,
    "tsx": _JS,
    "go": _GO,
}
_BRACKET = rb"|[()\[\]{}]"
_OPEN = frozenset(b"([{")
_CLOSE = frozenset(b")]}")
_DELTA = [0] * 256
for _c in b"([{":
    _DELTA[_c] = 1
for _c in b")]}":
    _DELTA[_c] = -1
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"()[]{}")
_NOT_OPENERS = bytes(c for c in range(256) if c not in b"([{")
_BLANK = bytes(b if b in b"\n" else 0x20 for b in range(256))
_INDENT = re.compile(rb"^[ \t]*(?=[^ \t\r\n#])", re.M)  # a line's indentation, when it holds code
_HOLDS_CODE = {"python": re.compile(rb"(?:[fF][rR]?|[rR][fF])[\"']"), "javascript": re.compile(rb"\$\{")}


def _holds_code(lang: str) -> re.Pattern[bytes] | None:
    return _HOLDS_CODE.get("javascript" if lang in ("typescript", "tsx") else lang)


@cache
def _skip(lang: str) -> re.Pattern[bytes]:
    return re.compile(_SKIP.get(lang, _C_LIKE), re.S)


@cache
def _tokens(lang: str) -> re.Pattern[bytes]:
    return re.compile(_SKIP.get(lang, _C_LIKE) + _BRACKET, re.S)


def max_depth(source: bytes, lang: str) -> int:
    """The deepest bracket nesting outside strings and comments (a stray closer counts from zero again), plus
    the most openers one string that holds code has (each counted as one level deeper)."""
    return _code_depth(_strip(lang).sub(b"", source)) + _inner(source, lang)


def _code_depth(code: bytes) -> int:
    brackets = code.translate(None, _NOT_BRACKETS)
    if not brackets:
        return 0
    # depth after each bracket = prefix sum minus the lowest prefix sum so far (that is the clamp at zero)
    sums: list[int] = list(accumulate(map(_DELTA.__getitem__, brackets), initial=0))
    deepest: int = max(map(sub, sums, accumulate(sums, min)))
    return deepest


def _inner(source: bytes, lang: str) -> int:
    """The most openers one string that holds code has (0: none can hold code)."""
    holds = _holds_code(lang)
    if holds is None or not holds.search(source):
        return 0
    opens = b"{" if lang == "python" else b"${"
    return max((_code_openers(t, opens) for t in _skip(lang).findall(source) if t), default=0)


def _deeper(source: bytes, lang: str, limit: int) -> bool:
    """`max_depth(source, lang) > limit`, most often in one pass over the bytes."""
    if sum(map(source.count, (b"(", b"[", b"{"))) <= limit:
        return False
    code = _strip(lang).sub(b"", source)
    deepest = _code_depth(code)
    if deepest > limit:
        return True
    # (the openers all strings and comments have together bound what one of them has: most files stop here)
    if deepest + _openers(source) - _openers(code) <= limit:
        return False
    return deepest + _inner(source, lang) > limit


@cache
def _strip(lang: str) -> re.Pattern[bytes]:
    """Strings and comments, all alike (quicker than `_skip`: its f-strings start at a letter)."""
    return re.compile(_PY_PLAIN if lang == "python" else _SKIP.get(lang, _C_LIKE), re.S)


def _code_openers(string: bytes, opens: bytes) -> int:
    """The openers from a string's first `{` (Python) or `${` (JS) on: its code starts there (text before it is
    text; a template read out of step, code between two templates' backticks, mostly holds no `${`)."""
    start = string.find(opens)
    return 0 if start < 0 else _openers(string[start:])


def _openers(text: bytes) -> int:
    return len(text.translate(None, _NOT_OPENERS))


def cap_depth(source: bytes, lang: str, limit: int = MAX_DEPTH) -> tuple[bytes, int]:
    """`source` with everything nested deeper than `limit` brackets blanked, and the bytes blanked (0: none).

    The bracket that opens depth `limit + 1` is blanked with what it holds and its closer, so what is left
    is `f(   )`, `{   }`: still well-formed around the cut."""
    if not _deeper(source, lang, limit):
        return source, 0
    out: list[bytes] = []
    kept = 0  # source[kept:] not yet copied
    depth = 0
    cut = -1  # where the blanked run started, -1 outside one
    blanked = 0
    for match in _tokens(lang).finditer(source):
        start = match.start()
        c = source[start]
        if match.end() - start != 1:  # a string or comment
            held = match.group(1) if match.re.groups else None
            if held and depth + _code_openers(held, b"{" if lang == "python" else b"${") > limit:
                end = match.end()
                if cut < 0:
                    out += (source[kept:start], source[start:end].translate(_BLANK))
                    blanked += end - start
                    kept = end
            continue
        if c in _OPEN:
            depth += 1
            if depth == limit + 1:
                cut = start
        elif c in _CLOSE and depth > 0:
            depth -= 1
            if depth == limit and cut >= 0:
                out += (source[kept:cut], source[cut : start + 1].translate(_BLANK))
                blanked += start + 1 - cut
                kept, cut = start + 1, -1
    if cut >= 0:  # never closed: blanked to the end
        out += (source[kept:cut], source[cut:].translate(_BLANK))
        blanked += len(source) - cut
        kept = len(source)
    out.append(source[kept:])
    return b"".join(out), blanked


def cap_indent(source: bytes, limit: int = MAX_INDENT) -> tuple[bytes, int]:
    """Python: `source` with every line indented deeper than `limit` levels blanked, and the bytes blanked.

    A level is a width deeper than the line before it that is still open (continuation lines count too, so
    this over-counts; the deepest of 15,051 real files measured 16). Lines are counted only when the file
    holds more than `limit` distinct indentation widths, which the levels can never exceed."""
    if not re.search(rb"^[ \t]{%d}" % (limit + 1), source, re.M):
        return source, 0  # (each level is one character deeper at least: no line this deep, no level this deep)
    widths = [len(w) for w in _INDENT.findall(source)]
    if len(set(widths)) <= limit:
        return source, 0
    out: list[bytes] = []
    stack = [0]
    blanked = 0
    for line in source.splitlines(keepends=True):
        found = _INDENT.match(line)
        if found is not None:
            width = found.end()
            while stack[-1] > width:
                stack.pop()
            if width > stack[-1]:
                stack.append(width)
        if len(stack) - 1 > limit:  # (a comment or blank line inside the cut region goes with it)
            blank = line.translate(_BLANK)
            if found is not None and len(stack) - 2 == limit:  # the cut's first line: `0` keeps a block well-formed
                blank = blank[: found.end()] + b"0" + blank[found.end() + 1 :]
            out.append(blank)
            blanked += len(line)
        else:
            out.append(line)
    return b"".join(out), blanked
