"""BM25 over weighted terms, in Python: the fallback when the DuckDB index is locked or damaged.

It computes exactly what the SQL in ``index.py`` computes, so the fallback ranks the same way.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

K1 = 1.2
B = 0.75


def idf(n_docs: int, doc_freq: int) -> float:
    return math.log(1.0 + (n_docs - doc_freq + 0.5) / (doc_freq + 0.5))


def rank(
    documents: dict[str, tuple[dict[str, float], float]],
    query_terms: Iterable[str],
    *,
    corpus: tuple[int, float] | None = None,
    doc_freq: dict[str, int] | None = None,
) -> list[tuple[str, float]]:
    """(doc id, score) for documents matching any query term, best first (ties by id).

    ``corpus`` gives (document count, average length) and ``doc_freq`` the terms' document frequencies
    when ``documents`` are only some of the documents.
    """
    terms = set(query_terms)
    if not documents or not terms:
        return []
    if corpus is not None:
        n, avgdl = corpus[0], corpus[1] or 1.0
    else:
        n = len(documents)
        avgdl = sum(length for _, length in documents.values()) / n or 1.0
    freq = {t: sum(1 for tf, _ in documents.values() if t in tf) for t in terms}
    if doc_freq is not None:
        freq = {t: doc_freq.get(t, freq[t]) for t in terms}
    scores: dict[str, float] = {}
    for doc_id, (tf, length) in documents.items():
        score = 0.0
        for term in terms:
            f = tf.get(term)
            if f:
                score += idf(n, freq[term]) * f * (K1 + 1) / (f + K1 * (1 - B + B * length / avgdl))
        if score > 0:
            scores[doc_id] = score
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


class Postings:
    """An in-memory inverted index (term -> doc -> weighted frequency), updated one document at a time.

    Scores like ``rank`` and like the SQL in ``index.py`` (statistics over every document), but touches
    only the postings of the query's terms: a query over ten thousand memories costs a few postings lists.
    """

    def __init__(self) -> None:
        self.by_term: dict[str, dict[str, float]] = {}
        self.docs: dict[str, tuple[dict[str, float], float]] = {}
        self.total = 0.0
        self._norms: dict[str, float] | None = None  # doc -> K1 * (1 - B + B * length / avgdl); None: stale

    def add(self, doc_id: str, tf: dict[str, float], length: float) -> None:
        if doc_id in self.docs:
            self.remove(doc_id)
        self._norms = None  # the average length moved
        self.docs[doc_id] = (tf, length)
        self.total += length
        for term, freq in tf.items():
            self.by_term.setdefault(term, {})[doc_id] = freq

    def remove(self, doc_id: str) -> None:
        found = self.docs.pop(doc_id, None)
        if found is None:
            return
        tf, length = found
        self.total -= length
        self._norms = None
        for term in tf:
            postings = self.by_term.get(term)
            if postings is not None:
                postings.pop(doc_id, None)
                if not postings:
                    del self.by_term[term]

    def _length_norms(self) -> dict[str, float]:
        """Each document's length term of the BM25 denominator, computed once per change of the corpus (a
        query then costs one dict lookup per posting, not a tuple lookup and four operations)."""
        if self._norms is None:
            avgdl = self.total / len(self.docs) or 1.0
            self._norms = {d: K1 * (1 - B + B * length / avgdl) for d, (_, length) in self.docs.items()}
        return self._norms

    def rank(self, query_terms: Iterable[str], top: int | None = None) -> list[tuple[str, float]]:
        """(doc id, score), best first (ties by id); with ``top``, only that many (a partial selection:
        common terms can hold thousands of documents)."""
        n = len(self.docs)
        if not n:
            return []
        norms = self._length_norms()
        scores: dict[str, float] = {}
        get = scores.get
        for term in set(query_terms):
            postings = self.by_term.get(term)
            if not postings:
                continue
            weight = idf(n, len(postings))
            for doc_id, f in postings.items():  # the same operations in the same order as before: equal floats
                scores[doc_id] = get(doc_id, 0.0) + weight * f * (K1 + 1) / (f + norms[doc_id])
        if top is not None and top < len(scores):
            import heapq

            if top <= 0:
                return []
            # the top-th best score by a selection over bare floats (no key function: ~5x cheaper than
            # selecting (score, id) pairs), then everything at or above it ordered exactly: ties at the cut
            # are broken by id as in the full sort
            cut = heapq.nlargest(top, scores.values())[-1]
            best = [(d, s) for d, s in scores.items() if s >= cut]
            best.sort(key=lambda kv: (-kv[1], kv[0]))
            return best[:top]
        return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
