"""Memories as reviewable Markdown under .meta/memory/, indexed for search."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("ctxops-memory-store")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.0.0"

__all__ = ["__version__"]
