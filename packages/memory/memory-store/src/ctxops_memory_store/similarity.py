"""Content hashes (exact duplicates) and word-shingle similarity (near duplicates)."""

from __future__ import annotations

import hashlib
import re

_WORD = re.compile(r"\w+", re.UNICODE)


def normalize(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def content_hash(kind: str, title: str, body: str, scope: list[str]) -> str:
    """A short, stable hash of what an entry says (case, punctuation and spacing ignored)."""
    key = "\x1f".join([kind, normalize(title), normalize(body), *sorted(scope)])
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def shingles(text: str, size: int = 3) -> set[str]:
    """Word ``size``-grams (single words for very short texts)."""
    words = normalize(text).split()
    if len(words) < size:
        return set(words)
    return {" ".join(words[i : i + size]) for i in range(len(words) - size + 1)}


def jaccard(a: set[str], b: set[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)
