"""PageRank over the file graph: hubs first, optionally personalized toward some files."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Mapping


def pagerank(
    nodes: Iterable[str],
    edges: Iterable[tuple[str, str, float]],
    personalization: Mapping[str, float] | None = None,
    *,
    damping: float = 0.85,
    iterations: int = 40,
    tolerance: float = 1e-9,
) -> dict[str, float]:
    """Weighted PageRank; an edge a->b means a depends on b, so b gains rank. Sums to 1.

    `edges` is read once, as it comes (a generator streaming from the store is fine): the graph is held
    as arrays of indices and weights (~16 bytes an edge), not as tuples of names (~300 bytes an edge at
    419k file edges)."""
    names = sorted(set(nodes))
    if not names:
        return {}
    index = {n: i for i, n in enumerate(names)}
    n = len(names)
    out_weight = [0.0] * n
    srcs, dsts, weights = array("l"), array("l"), array("d")
    for src, dst, weight in edges:
        i, j = index.get(src), index.get(dst)
        if i is None or j is None or i == j or weight <= 0:
            continue
        srcs.append(i)
        dsts.append(j)
        weights.append(weight)
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
    # Incoming edges grouped by target (a stable counting sort: each target's sources keep the order they
    # came in, so every sum adds the same terms in the same order), each edge's share of its source's rank
    # divided once rather than on every iteration.
    starts = array("l", [0]) * (n + 1)
    for j in dsts:
        starts[j + 1] += 1
    for j in range(n):
        starts[j + 1] += starts[j]
    fill = array("l", starts)
    by_src, share = array("l", [0]) * len(dsts), array("d", [0.0]) * len(dsts)
    for source, target, w in zip(srcs, dsts, weights, strict=True):
        slot = fill[target]
        fill[target] = slot + 1
        by_src[slot] = source
        share[slot] = w / out_weight[source]
    del srcs, dsts, weights, fill
    dangling_nodes = [i for i in range(n) if out_weight[i] == 0.0]
    for _ in range(iterations):
        dangling = sum(rank[i] for i in dangling_nodes)
        new = [0.0] * n
        for j in range(n):
            acc = 0.0
            for slot in range(starts[j], starts[j + 1]):
                acc += rank[by_src[slot]] * share[slot]
            new[j] = damping * (acc + dangling * teleport[j]) + (1.0 - damping) * teleport[j]
        delta = sum(abs(a - b) for a, b in zip(new, rank, strict=True))
        rank = new
        if delta < tolerance:
            break
    return {names[i]: rank[i] for i in range(n)}


def summed(rows: Iterable[tuple[str, str, str, float]]) -> Iterator[tuple[str, str, float]]:
    """File edges ordered by (src, dst, kind) to one weight per (src, dst), summed in that order, streamed."""
    key: tuple[str, str] | None = None
    total = 0.0
    for src, dst, _kind, weight in rows:
        if key is not None and (src, dst) == key:
            total += weight
            continue
        if key is not None:
            yield key[0], key[1], total
        key, total = (src, dst), 0.0 + weight
    if key is not None:
        yield key[0], key[1], total
