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


def rank(documents: dict[str, tuple[dict[str, float], float]], query_terms: Iterable[str]) -> list[tuple[str, float]]:
    """(doc id, score) for documents matching any query term, best first (ties by id)."""
    terms = set(query_terms)
    if not documents or not terms:
        return []
    n = len(documents)
    avgdl = sum(length for _, length in documents.values()) / n or 1.0
    freq = {t: sum(1 for tf, _ in documents.values() if t in tf) for t in terms}
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
