"""Suggestions for a query with no matches: a case-insensitive hit, a close name, a fuzzy match."""

from __future__ import annotations

from collections.abc import Iterable


def suggest(query: str, names: Iterable[str], *, limit: int = 3) -> list[str]:
    """Up to ``limit`` names close to ``query``, best first.

    Order of preference: the same name in another case; names containing the query (or contained in
    it) case-insensitively; then difflib's close matches on the lowercased names.
    """
    import difflib  # only an empty answer pays for it

    if not query:
        return []
    pool = {n for n in names if n}
    if not pool:
        return []
    q = query.lower()
    by_lower: dict[str, list[str]] = {}
    for name in pool:
        by_lower.setdefault(name.lower(), []).append(name)
    out: list[str] = []

    def push(candidates: Iterable[str]) -> None:
        for c in candidates:
            if c != query and c not in out and len(out) < limit:
                out.append(c)

    push(sorted(by_lower.get(q, [])))
    if len(q) >= 3:
        contains = sorted((n for n in pool if q in n.lower()), key=lambda n: (len(n), n))
        push(contains[:limit])
    close = difflib.get_close_matches(q, list(by_lower), n=limit * 2, cutoff=0.7)
    for c in close:
        push(sorted(by_lower[c]))
    return out
