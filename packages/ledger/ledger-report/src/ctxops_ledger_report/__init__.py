"""Reports, costs, budgets and alerts over the token ledger."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("ctxops-ledger-report")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.0.0"

__all__ = ["__version__"]
