"""Memories as reviewable Markdown under .meta/memory/, indexed for search (DuckDB BM25, optional LanceDB)."""

from importlib.metadata import PackageNotFoundError, version

from .index import Filters
from .store import AddResult, EntryNotFound, InvalidTransition, MemoryStore, SearchResult, new_entry

try:
    __version__ = version("ctxops-memory-store")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.0.0"

__all__ = [
    "AddResult",
    "EntryNotFound",
    "Filters",
    "InvalidTransition",
    "MemoryStore",
    "SearchResult",
    "__version__",
    "new_entry",
]
