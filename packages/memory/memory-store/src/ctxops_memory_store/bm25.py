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

    def add(self, doc_id: str, tf: dict[str, float], length: float) -> None:
        if doc_id in self.docs:
            self.remove(doc_id)
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
        for term in tf:
            postings = self.by_term.get(term)
            if postings is not None:
                postings.pop(doc_id, None)
                if not postings:
                    del self.by_term[term]

    def rank(self, query_terms: Iterable[str], top: int | None = None) -> list[tuple[str, float]]:
        """(doc id, score), best first; with ``top``, only that many (a partial sort: common terms can
        hold thousands of documents)."""
        n = len(self.docs)
        if not n:
            return []
        avgdl = self.total / n or 1.0
        scores: dict[str, float] = {}
        for term in set(query_terms):
            postings = self.by_term.get(term)
            if not postings:
                continue
            weight = idf(n, len(postings))
            for doc_id, f in postings.items():
                length = self.docs[doc_id][1]
                scores[doc_id] = scores.get(doc_id, 0.0) + weight * f * (K1 + 1) / (
                    f + K1 * (1 - B + B * length / avgdl)
                )
        if top is not None and top < len(scores):
            import heapq

            best = heapq.nsmallest(top, scores.items(), key=lambda kv: (-kv[1], kv[0]))
            return best
        return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
