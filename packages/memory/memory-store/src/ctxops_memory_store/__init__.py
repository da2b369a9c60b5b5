"""Memories as reviewable Markdown under .meta/memory/, indexed for search (catalog BM25, DuckDB, optional LanceDB).

Names load on first use, so the inject hook, which needs only the catalog, imports nothing else.
"""

TYPE_CHECKING = False  # typing is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    from typing import Any

_LAZY = {
    "Filters": "index",
    "AddResult": "store",
    "EntryNotFound": "store",
    "InvalidTransition": "store",
    "MemoryStore": "store",
    "SearchResult": "store",
    "new_entry": "store",
}
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


def __getattr__(name: str) -> "Any":
    if name == "__version__":  # importlib.metadata costs more than the hook's own work: only on demand
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("ctxops-memory-store")
        except PackageNotFoundError:  # running from a source tree without an install
            return "0.0.0"
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
