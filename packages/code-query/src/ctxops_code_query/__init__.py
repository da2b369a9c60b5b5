"""cq and its MCP server: answers about code in a few hundred tokens."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("ctxops-code-query")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.0.0"

__all__ = ["__version__"]
