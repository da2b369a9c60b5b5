"""Resolve references into edges and rank files: the queryable code graph."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("ctxops-code-graph")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.0.0"

__all__ = ["__version__"]
