# ruff: noqa: PTH113, PTH118
# os.path, as the hook that imports it (no pathlib).
"""Exact cl100k counts of plain lines without loading the tokenizer (issue 23, item 4).

A line the token table has never seen (a memory a `git pull` just brought, shown by the next prompt) made
the hook load the encoding: 20-25 ms of CPU, a fifth of the hook. cl100k is byte-pair encoding applied to
each piece of a pre-tokenizing split, independently; for plain text both steps are small. The split is
cl100k's own pattern with its letter and digit classes read as ASCII (``PIECES``): exact for ASCII text and
for the punctuation ``OTHER`` holds (the block's own " — " and "…", quotes, arrows: characters that are no
letter, digit or space in either reading). Each piece's merges need only the ranks of its own substrings,
looked up in the token table's ``ranks`` (the encoding's vocabulary as ``bpe-openai`` ships it, written by
``precount`` after checking it against the loaded tokenizer). The merge is tiktoken's: the adjacent pair of
lowest rank first, leftmost on a tie.

``count`` answers None (the caller loads the tokenizer) for anything else: another character, a line or a
piece longer than ``MAX_LINE`` / ``MAX_PIECE`` (the lookups grow with a piece's length squared), no ranks.
Tests compare it with the tokenizer on every line of a corpus and on random text.
"""

from __future__ import annotations

from ctxops_contracts.shared import regex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

ENCODING = "cl100k_base"
MAX_LINE = 4_000  # characters: longer lines are rare and the tokenizer's
MAX_PIECE = 40  # bytes: a piece's substrings are looked up at once (780 at most)
# Non-ASCII characters counted here: Unicode punctuation and symbols (categories P and S), never a letter, a
# digit or white space, so the ASCII classes of ``PIECES`` read them as cl100k's Unicode classes do.
OTHER = frozenset("—–…‘’“”•→←⇒·×§°±€£")

# cl100k's split (tiktoken's pattern; bpe-openai's emulates its look-ahead), \p{L} and \p{N} as ASCII classes.
PIECES = regex.lazy(
    r"'(?i:[sdmt]|ll|ve|re)|[^\r\nA-Za-z0-9]?[A-Za-z]+|[0-9]{1,3}| ?[^\sA-Za-z0-9]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    regex.ASCII,
)


def pieces(text: str) -> list[bytes] | None:
    """The pre-tokenized pieces of ``text`` (UTF-8), or None when it is not one this module counts."""
    if len(text) > MAX_LINE or not (text.isascii() or all(c in OTHER for c in text if c > "\x7f")):
        return None
    out = [m.encode("utf-8") for m in PIECES.findall(text)]
    return None if any(len(p) > MAX_PIECE for p in out) else out


def substrings(parts: Iterable[bytes]) -> set[bytes]:
    """Every substring of two bytes or more of the pieces: all the ranks their merges may ask for."""
    return {p[i:j] for p in parts for i in range(len(p)) for j in range(i + 2, len(p) + 1)}


def merged(piece: bytes, rank: Callable[[bytes], int | None]) -> int:
    """How many tokens byte-pair encoding leaves of ``piece`` (tiktoken's ``_byte_pair_merge``)."""
    if len(piece) < 2 or rank(piece) is not None:
        return 1 if piece else 0
    never = 1 << 62
    starts = list(range(len(piece) + 1))  # the parts' boundaries

    def pair(n: int) -> int:  # rank of parts n and n + 1 together
        if n + 2 >= len(starts):
            return never
        found = rank(piece[starts[n] : starts[n + 2]])
        return never if found is None else found

    ranks = [pair(n) for n in range(len(starts) - 1)]
    while len(starts) > 2:
        best, at = never, -1
        for n, value in enumerate(ranks[:-1]):
            if value < best:
                best, at = value, n
        if at < 0:
            break
        del starts[at + 1]
        del ranks[at + 1]
        ranks[at] = pair(at)
        if at > 0:
            ranks[at - 1] = pair(at - 1)
    return len(starts) - 1


def count(text: str, lookup: Callable[[set[bytes]], dict[bytes, int] | None]) -> int | None:
    """The exact cl100k count of ``text``, ranks from ``lookup`` (substrings -> their ranks, None when it has
    none); None when this module does not count it."""
    parts = pieces(text)
    if parts is None:
        return None
    known = lookup(substrings(parts))
    if known is None:
        return None
    return sum(merged(p, known.get) for p in parts)


# -- the ranks (precount: the tokenizer is loaded there) ---------------------------------------------


def vocabulary(tokenizer: object, encoding: str = ENCODING) -> dict[bytes, int] | None:
    """The encoding's tokens and their ranks, from the ``.tiktoken`` file ``bpe-openai`` ships (the one its
    tokenizer is built from), checked against the loaded ``tokenizer``: every token that is text on its own
    decodes from its rank (the others are parts of a UTF-8 character); None when the file is missing or a
    token disagrees (the hook then keeps loading the tokenizer)."""
    import base64
    import gzip
    import importlib.util
    import os

    spec = importlib.util.find_spec("bpe_openai")
    for location in (spec.submodule_search_locations or []) if spec else []:
        path = os.path.join(location, "data", f"{encoding}.tiktoken.gz")
        if not os.path.isfile(path):
            continue
        out: dict[bytes, int] = {}
        with gzip.open(path, "rb") as fh:
            for line in fh:
                token, _, number = line.partition(b" ")
                out[base64.b64decode(token)] = int(number)
        decode = tokenizer.decode  # type: ignore[attr-defined]
        for data, rank in out.items():
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                continue  # part of a character: no text of its own to compare
            if decode([rank]) != text:
                return None
        return out if len(out) > 256 else None
    return None
