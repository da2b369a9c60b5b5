"""Resolve references into edges and rank files: the queryable code graph.

`CodeIndex` is the read API (stdlib sqlite3 on the read path); `IndexWriter` builds and updates.
"""

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
    "IndexNotBuilt",
    "IndexStatus",
    "RankedFile",
    "__version__",
]


def __getattr__(name: str) -> str:
    # The version is looked up on first use: importlib.metadata costs tens of ms on a read path that has none.
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("ctxops-code-graph")
        except PackageNotFoundError:  # running from a source tree without an install
            return "0.0.0"
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
