"""Resolve references into edges and rank files: the queryable code graph.

`CodeIndex` is the read API (stdlib sqlite3 on the read path); `IndexWriter` builds and updates.
Everything is imported on first use, so `ctxops_code_graph.reader` (the lean path of a fresh `cq def`)
loads without the contracts.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported on the lean read path
if TYPE_CHECKING:
    from typing import Any

    from .health import IndexDamaged
    from .index import CodeIndex, IndexNotBuilt
    from .lock import IndexBusy
    from .results import FileDeps, Hop, Impact, ImportLink, IndexStatus, RankedFile

__all__ = [
    "CodeIndex",
    "FileDeps",
    "Hop",
    "Impact",
    "ImportLink",
    "IndexBusy",
    "IndexDamaged",
    "IndexNotBuilt",
    "IndexStatus",
    "RankedFile",
    "__version__",
    "rebuild_reason",
]


_RESULTS = frozenset({"FileDeps", "Hop", "Impact", "ImportLink", "IndexStatus", "RankedFile"})


def __getattr__(name: str) -> Any:
    # Answer types and the version load on first use: a definition lookup needs neither.
    if name in ("CodeIndex", "IndexNotBuilt", "rebuild_reason"):
        from . import index

        return getattr(index, name)
    if name == "IndexDamaged":
        from .health import IndexDamaged

        return IndexDamaged
    if name == "IndexBusy":
        from .lock import IndexBusy

        return IndexBusy
    if name in _RESULTS:
        from . import results

        return getattr(results, name)
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("ctxops-code-graph")
        except PackageNotFoundError:  # running from a source tree without an install
            return "0.0.0"
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
