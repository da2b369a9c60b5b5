"""Decide which memories go back into an agent's context, in layers under a token budget."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("ctxops-memory-inject")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.0.0"

__all__ = ["__version__"]
