"""Resolve references into edges and rank files: the queryable code graph.

`CodeIndex` is the read API (stdlib sqlite3 on the read path); `IndexWriter` builds and updates.
"""

from importlib.metadata import PackageNotFoundError, version

from .index import CodeIndex, IndexNotBuilt
from .lock import IndexBusy
from .results import FileDeps, Hop, Impact, ImportLink, IndexStatus, RankedFile

try:
    __version__ = version("ctxops-code-graph")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.0.0"

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
