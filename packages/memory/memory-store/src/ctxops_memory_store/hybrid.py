"""Hybrid search: BM25 fused with a model embedder's cosines by weighted reciprocal-rank fusion (issue 23).

Each list contributes ``weight / (K + rank)`` for every entry it ranks (rank 1 first). Ranks, not scores:
BM25's scores are unbounded and a model's cosines sit in a narrow band (e5 between 0.7 and 0.9), so no
common scale has to be guessed. BM25 keeps the larger weight (``BM25_WEIGHT`` against ``VECTOR_WEIGHT``):
an entry both lists rank high leads, an entry only the vectors find (a paraphrase: "puppy" for "dog") can
enter the top results, and a keyword query's exact hit is not pushed down by near-misses of meaning
(tuned on ``bench/memory_hybrid.py --set tune``, reported on ``--set report``: docs/benchmarks.md).

The vectors come from ``embed_cache`` (computed once per text) and are searched by brute force with
numpy: 10,000 entries x 256 dimensions is a 2.5M-multiply product, ~2 ms.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .embed_cache import EmbeddingCache
from .vector import embed_query

K = 10
BM25_WEIGHT = 1.0
VECTOR_WEIGHT = 0.5
DEPTH = 100  # how far down each list is read


def fuse(ranked: Sequence[tuple[Sequence[str], float]], *, k: int = K, depth: int = DEPTH) -> list[tuple[str, float]]:
    """Weighted reciprocal-rank fusion of ``(ids best first, weight)`` lists; best first, ties by id."""
    scores: dict[str, float] = {}
    for ids, weight in ranked:
        for rank, entry_id in enumerate(ids[:depth], start=1):
            scores[entry_id] = scores.get(entry_id, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


class VectorSearch:
    """Cosine of a query to a set of texts (entries), from the embedding cache; the matrix is kept while the
    set is unchanged (a warm process: the MCP server, a benchmark)."""

    def __init__(self, cache: EmbeddingCache) -> None:
        self.cache = cache
        self._key: tuple[str, ...] | None = None
        self._items: Sequence[tuple[str, str]] | None = None
        self._ids: list[str] = []
        self._matrix: Any = None

    def _load(self, items: Sequence[tuple[str, str]]) -> None:
        if items is self._items:  # the same list as last time (the store keeps it while nothing changed)
            return
        key = tuple(f"{i}\x1f{t}" for i, t in items)
        if key == self._key:
            self._items = items
            return
        self._ids = [i for i, _ in items]
        texts = [t for _, t in items]
        try:
            self._matrix = self.cache.matrix(texts)
        except ImportError:  # no numpy (the hashing embedder in a bare install): lists of floats
            self._matrix = self.cache.vectors(texts)
        self._key, self._items = key, items

    def search(self, query: str, items: Sequence[tuple[str, str]], limit: int = DEPTH) -> list[tuple[str, float]]:
        """(id, cosine) of the ``limit`` items (``(id, text)``) nearest to ``query``, most similar first."""
        if not items or not query.strip():
            return []
        self._load(items)
        vector = embed_query(self.cache.embedder, query)
        if isinstance(self._matrix, list):
            scores = [sum(a * b for a, b in zip(row, vector, strict=False)) for row in self._matrix]
            order = sorted(range(len(scores)), key=lambda n: (-scores[n], self._ids[n]))[:limit]
            return [(self._ids[n], float(scores[n])) for n in order]
        import numpy as np

        # einsum, not ``@``: a matrix-vector product through BLAS wakes its thread pool, which on a busy
        # machine costs ~100 ms of spinning for a ~2 ms product (10,000 x 256, measured: docs/benchmarks.md)
        sims = np.einsum("ij,j->i", self._matrix, np.asarray(vector, dtype=np.float32))
        top = min(limit, len(self._ids))
        best = np.argpartition(-sims, top - 1)[:top] if top < len(self._ids) else np.arange(len(self._ids))
        order = sorted(best.tolist(), key=lambda n: (-float(sims[n]), self._ids[n]))
        return [(self._ids[n], float(sims[n])) for n in order]


def hybrid_rank(
    lexical: Iterable[tuple[str, float]],
    semantic: Iterable[tuple[str, float]],
    *,
    keep: Callable[[str], bool] = lambda _: True,
    bm25_weight: float | None = None,
    vector_weight: float | None = None,
    k: int | None = None,
) -> list[tuple[str, float]]:
    """BM25's and the vectors' rankings fused; entries ``keep`` refuses (filters) are dropped first."""
    words = [i for i, _ in lexical if keep(i)]
    meaning = [i for i, _ in semantic if keep(i)]
    weights = (
        BM25_WEIGHT if bm25_weight is None else bm25_weight,
        VECTOR_WEIGHT if vector_weight is None else vector_weight,
    )
    return fuse([(words, weights[0]), (meaning, weights[1])], k=K if k is None else k)
