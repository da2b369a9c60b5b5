"""cq and its MCP server: answers about code in a few hundred tokens."""

from __future__ import annotations

__all__ = ["__version__"]


def __getattr__(name: str) -> str:
    # `importlib.metadata` costs ~15 ms to import; `cq def` must not pay it to print an answer.
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("ctxops-code-query")
        except PackageNotFoundError:  # running from a source tree without an install
            return "0.0.0"
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
