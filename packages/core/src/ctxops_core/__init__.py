"""ctx: compose the code map, memory and ledger lines and wire them into agents."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("ctxops")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.0.0"

__all__ = ["__version__"]
