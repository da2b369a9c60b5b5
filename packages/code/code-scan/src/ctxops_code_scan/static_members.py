"""TypeScript: a class with a static and an instance method of one name (`static clone(r: R)` beside
`clone()`, @mswjs/interceptors' FetchResponse, ethers' TypedDataEncoder).

Both get the qualified name `R.clone` (ids `R.clone().` and `R.clone(+1).`), so a lookup of the member by
name finds both. tsc tells them apart by the receiver: the class object (`R.clone(r)`, `this.m()` in a static
method) reaches the static one, an instance the other. Every static method of such a class gets a `types` row
(its id, `:static`, ""), which the code graph reads to keep only the matching kind; classes without such a
pair get no row (nothing else changes for them).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

STATIC = ":static"


def is_static(node: Any) -> bool:
    """True for a `static` class member (`static m() {}`; the keyword is a child token of the definition)."""
    return any(child.type == "static" for child in node.children)


def static_rows(methods: Iterable[tuple[str, str, str | None, bool]]) -> list[tuple[str, str, str]]:
    """The `:static` rows of the methods (id, qualname, parent id, static?) of classes with a namesake pair."""
    kinds: dict[tuple[str | None, str], set[bool]] = {}
    listed = list(methods)
    for _sid, qualname, parent, static in listed:
        kinds.setdefault((parent, qualname), set()).add(static)
    paired = {parent for (parent, _q), seen in kinds.items() if len(seen) == 2}
    return [(sid, STATIC, "") for sid, _q, parent, static in listed if static and parent in paired]
