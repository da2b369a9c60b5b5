"""Turn source files into FileRecord, Symbol and Reference records with tree-sitter."""

__all__ = ["__version__"]


def __getattr__(name: str) -> str:
    # The version is looked up on first use: importlib.metadata costs tens of ms on a read path that has none.
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("ctxops-code-scan")
        except PackageNotFoundError:  # running from a source tree without an install
            return "0.0.0"
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
