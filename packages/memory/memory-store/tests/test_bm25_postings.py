"""The in-memory postings rank exactly like the reference BM25 (``bm25.rank``), cut or not, after any change."""

from __future__ import annotations

import random

from ctxops_memory_store import bm25

WORDS = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta"]


def _corpus(seed: int, size: int) -> dict[str, tuple[dict[str, float], float]]:
    rnd = random.Random(seed)
    docs: dict[str, tuple[dict[str, float], float]] = {}
    for n in range(size):
        words = rnd.choices(WORDS, k=rnd.randint(1, 6))
        tf: dict[str, float] = {}
        for w in words:
            tf[w] = tf.get(w, 0.0) + 1.0
        docs[f"d{n:04d}"] = (tf, float(len(words)))
    return docs


def _postings(docs: dict[str, tuple[dict[str, float], float]]) -> bm25.Postings:
    index = bm25.Postings()
    for doc_id, (tf, length) in docs.items():
        index.add(doc_id, tf, length)
    return index


def test_a_cut_ranking_is_the_full_rankings_head_ties_broken_by_id() -> None:
    docs = _corpus(7, 400)  # 400 documents of 8 words: many equal scores, so ties sit at every cut
    index = _postings(docs)
    for query in (["alpha"], ["beta", "gamma"], ["theta", "alpha", "eps"], ["nothing"]):
        full = bm25.rank(docs, query)
        assert index.rank(query) == full
        for top in (1, 5, 40, 100, 399, 1000):
            assert index.rank(query, top) == full[:top], (query, top)
    assert index.rank(["alpha"], 0) == []


def test_rankings_follow_adds_and_removals() -> None:
    docs = _corpus(11, 120)
    index = _postings(docs)
    assert index.rank(["alpha", "beta"], 10) == bm25.rank(docs, ["alpha", "beta"])[:10]
    long_doc = ({"alpha": 3.0, "beta": 1.0}, 40.0)  # moves the average length: every document's norm changes
    index.add("long", *long_doc)
    docs["long"] = long_doc
    assert index.rank(["alpha", "beta"], 10) == bm25.rank(docs, ["alpha", "beta"])[:10]
    for gone in ("d0003", "d0050", "long"):
        index.remove(gone)
        del docs[gone]
        assert index.rank(["alpha", "beta"], 10) == bm25.rank(docs, ["alpha", "beta"])[:10]
    index.add("d0004", {"zeta": 2.0}, 2.0)  # re-adding an id replaces it
    docs["d0004"] = ({"zeta": 2.0}, 2.0)
    assert index.rank(["zeta", "alpha"]) == bm25.rank(docs, ["zeta", "alpha"])
