"""Turn source files into FileRecord, Symbol and Reference records with tree-sitter."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("ctxops-code-scan")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.0.0"

__all__ = ["__version__"]
