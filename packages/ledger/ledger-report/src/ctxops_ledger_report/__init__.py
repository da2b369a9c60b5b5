"""Reports, costs, budgets and alerts over the token ledger."""

__all__ = ["__version__"]


def __getattr__(name: str) -> str:
    """``__version__`` from the installed metadata, read on first use (importlib.metadata costs ~20 ms, and the
    status line's path imports this package)."""
    if name != "__version__":
        raise AttributeError(name)
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ctxops-ledger-report")
    except PackageNotFoundError:  # running from a source tree without an install
        return "0.0.0"
