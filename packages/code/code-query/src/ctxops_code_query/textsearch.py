"""Words and BM25 for `cq search`: identifiers split into words, a light stemmer, Okapi BM25."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_STOP = """
a an and are as at be by code do does for from how i in into is it its of on or that the this to what when
where which who why with find function method class file files defined definition implements implementation
handle handles handling
"""
STOPWORDS = frozenset(_STOP.split())
_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "es", "ed", "s")
_BRITISH_IZE = re.compile(r"(?<=[a-z]{3})is(e|ed|es|ing|ation|ations|er|ers)$")


def _american(word: str) -> str:
    """British spellings meet American ones (colour/color, initialise/initialize): code and questions mix
    both. Applied to documents and queries alike, so a rare false merge costs nothing."""
    if word.endswith(("our", "ours")) and len(word) >= 6 and word.count("our") == 1:
        return word.replace("our", "or")
    m = _BRITISH_IZE.search(word)
    if m and not word.endswith(("wise", "wised")):
        return word[: m.start()] + "iz" + m.group(1)
    return word


def stem(word: str) -> str:
    """A deliberately small stemmer: enough to meet `parse`, `parses`, `parsing`, `parsed`."""
    word = _american(word)
    base = word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "s" and word.endswith("ss"):
                break
            base = word[: -len(suffix)]
            if suffix == "ies":
                base += "y"
            elif suffix in ("ing", "ings", "ed") and len(base) >= 4 and base[-1] == base[-2]:
                base = base[:-1]  # running -> run
            break
    if base.endswith("e") and len(base) > 4:
        base = base[:-1]
    return base


def words(text: str) -> list[str]:
    """Lowercased, stemmed words of ``text``, identifiers split at case changes and underscores."""
    out: list[str] = []
    for raw in _WORD.findall(text):
        w = raw.lower()
        if len(w) < 2 or w in STOPWORDS:
            continue
        out.append(stem(w))
    return out


class BM25:
    """Okapi BM25 over a fixed list of documents (each a list of words), with an inverted index."""

    def __init__(self, docs: Sequence[Sequence[str]], *, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b
        self.n = len(docs)
        self.lengths = [len(d) for d in docs]
        self.avg = (sum(self.lengths) / len(docs)) if docs else 0.0
        self.postings: dict[str, list[tuple[int, int]]] = {}
        for i, d in enumerate(docs):
            for t, f in Counter(d).items():
                self.postings.setdefault(t, []).append((i, f))
        n = self.n
        self.idf = {t: math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5)) for t, p in self.postings.items()}

    def scores(self, query: Iterable[str]) -> list[float]:
        out = [0.0] * self.n
        if not self.avg:
            return out
        k1, b, avg, lengths = self.k1, self.b, self.avg, self.lengths
        for t in dict.fromkeys(query):
            posting = self.postings.get(t)
            if not posting:
                continue
            idf = self.idf[t]
            for i, f in posting:
                out[i] += idf * f * (k1 + 1) / (f + k1 * (1 - b + b * lengths[i] / avg))
        return out

    def top(self, query: Iterable[str], k: int) -> list[tuple[int, float]]:
        scored = [(i, s) for i, s in enumerate(self.scores(query)) if s > 0]
        scored.sort(key=lambda x: (-x[1], x[0]))
        return scored[:k]
