"""PageRank over the file graph: hubs first, optionally personalized toward some files."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping


def pagerank(
    nodes: Iterable[str],
    edges: Iterable[tuple[str, str, float]],
    personalization: Mapping[str, float] | None = None,
    *,
    damping: float = 0.85,
    iterations: int = 40,
    tolerance: float = 1e-9,
) -> dict[str, float]:
    """Weighted PageRank; an edge a->b means a depends on b, so b gains rank. Sums to 1."""
    names = sorted(set(nodes))
    if not names:
        return {}
    index = {n: i for i, n in enumerate(names)}
    n = len(names)
    out_weight = [0.0] * n
    incoming: dict[int, list[tuple[int, float]]] = defaultdict(list)
    for src, dst, weight in edges:
        i, j = index.get(src), index.get(dst)
        if i is None or j is None or i == j or weight <= 0:
            continue
        incoming[j].append((i, weight))
        out_weight[i] += weight
    if personalization:
        total = sum(max(v, 0.0) for k, v in personalization.items() if k in index)
        teleport = [0.0] * n
        if total > 0:
            for k, v in personalization.items():
                if k in index and v > 0:
                    teleport[index[k]] = v / total
        else:
            teleport = [1.0 / n] * n
    else:
        teleport = [1.0 / n] * n
    rank = list(teleport)
    # Each edge's share of its source's rank, divided once rather than on every iteration.
    in_lists = [[(i, w / out_weight[i]) for i, w in incoming.get(j, [])] for j in range(n)]
    dangling_nodes = [i for i in range(n) if out_weight[i] == 0.0]
    for _ in range(iterations):
        dangling = sum(rank[i] for i in dangling_nodes)
        new = [0.0] * n
        for j in range(n):
            acc = 0.0
            for i, share in in_lists[j]:
                acc += rank[i] * share
            new[j] = damping * (acc + dangling * teleport[j]) + (1.0 - damping) * teleport[j]
        delta = sum(abs(a - b) for a, b in zip(new, rank, strict=True))
        rank = new
        if delta < tolerance:
            break
    return {names[i]: rank[i] for i in range(n)}
