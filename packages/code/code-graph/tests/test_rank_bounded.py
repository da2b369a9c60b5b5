"""The file ranking of a full build holds the file graph as arrays, streamed from the store (issue 24 item 5):
its memory per edge is bounded, and its ranks are the ones the list-based ranking gave, bit for bit."""

from __future__ import annotations

import random
import tracemalloc
from collections.abc import Iterator

from ctxops_code_graph.builder import _ranks
from ctxops_code_graph.rank import pagerank, summed

FILES = [f"pkg{i % 40}/mod_{i}.py" for i in range(3_000)]


def _file_edges(n: int, seed: int = 7) -> list[tuple[str, str, str, float]]:
    """File edges as the store orders them (src, dst, kind), several kinds per pair, self-loops included."""
    rng = random.Random(seed)
    rows = {
        (rng.choice(FILES), rng.choice(FILES), rng.choice(("call", "import", "inherit"))): rng.choice((0.5, 1.0, 3.0))
        for _ in range(n)
    }
    return sorted((s, d, k, w) for (s, d, k), w in rows.items())


def test_streamed_ranks_are_the_list_ranks_exactly() -> None:
    rows = _file_edges(20_000)
    assert sorted(pagerank(FILES, summed(iter(rows))).items()) == _ranks(FILES, rows)
    personal = {FILES[3]: 2.0, FILES[9]: 1.0}
    assert pagerank(FILES, summed(iter(rows)), personal) == pagerank(FILES, list(summed(iter(rows))), personal)


def test_ranking_a_streamed_graph_holds_a_few_bytes_an_edge() -> None:
    rows = _file_edges(30_000)
    n = len(list(summed(iter(rows))))

    def stream() -> Iterator[tuple[str, str, str, float]]:
        # Fresh tuples of fresh strings, as a database cursor hands them over: none held once consumed.
        for s, d, k, w in rows:
            yield "".join(s), "".join(d), "".join(k), w * 1.0

    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        ranks = pagerank(FILES, summed(stream()), iterations=3)  # the memory is the graph, not the rounds
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert len(ranks) == len(FILES)
    # Arrays of indices, weights and shares: ~40 bytes an edge at most; tuples of names held ~390 (measured before).
    assert peak / n < 60, (peak, n)
