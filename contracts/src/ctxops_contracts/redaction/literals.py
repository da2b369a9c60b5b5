"""One pattern for many literal strings: a trie of them, escaped, so a search costs at most the length of
the longest string at each position whatever their number (an alternation of the strings would try each).

``re`` is imported by the caller's first call only (the hook path imports no ``re`` until a secret is found),
and the pattern is compiled with ``re`` directly: never through ``shared.regex``'s on-disk cache, which
would store the strings (they are secrets).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing and re are not imported on the hook path; type checkers treat this as True
if TYPE_CHECKING:
    import re
    from typing import Any

WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_END = ""  # a trie node's key marking that a string ends there


def _escape(text: str) -> str:
    """``re.escape`` for a literal inside the pattern."""
    return "".join(ch if ch in WORD_CHARS else "\\" + ch if ch.isascii() else ch for ch in text)


def _trie(values: list[str]) -> dict[str, Any]:
    root: dict[str, Any] = {}
    for value in values:
        node = root
        for ch in value:
            node = node.setdefault(ch, {})
        node[_END] = {}
    return root


def _chain(ch: str, child: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    """The literal from ``ch`` down a chain of single children (one literal in the pattern), its last
    character, and the node it ends at."""
    literal = ch
    while _END not in child and len(child) == 1:
        ch, child = next(iter(child.items()))
        literal += ch
    return literal, ch, child


def _alternatives(node: dict[str, Any], last: str, edges: bool) -> str:
    """The pattern of a trie node reached by ``last``: its children longest first, then its own end. With
    ``edges`` an end after a word character asks that no word character follow (``kafka123`` is not in
    ``kafka1234``)."""
    branches = []
    for ch, child in node.items():
        if ch == _END:
            continue
        literal, end, rest = _chain(ch, child)
        branches.append(_escape(literal) + _alternatives(rest, end, edges))
    if _END in node:
        branches.append("(?![A-Za-z0-9])" if edges and last in WORD_CHARS else "")
    if len(branches) == 1:
        return branches[0]
    return "(?:" + "|".join(branches) + ")"


def literal_pattern(values: list[str], *, edges: bool) -> re.Pattern[str]:
    """A pattern matching any of ``values`` (non-empty strings), longest first at a position. With ``edges`` a
    value that starts (ends) with a letter or digit matches only where none precedes (follows) it."""
    import re  # only a caller that has strings to hide pays for it

    root = _trie(values)
    branches = []
    for ch, child in root.items():
        # a value that starts with a word character starts a word (checked after the first character, so the
        # engine's fast first-character test still applies): ``kafka123`` is not in ``xkafka123``
        guard = "(?<![A-Za-z0-9].)" if edges and ch in WORD_CHARS else ""
        literal, end, node = _chain(ch, child)
        branches.append(_escape(literal[0]) + guard + _escape(literal[1:]) + _alternatives(node, end, edges))
    return re.compile("|".join(branches))
