"""Decide which memories go back into an agent's context, in layers under a token budget."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    __version__: str

__all__ = ["__version__"]


def __getattr__(name: str) -> str:
    # importlib.metadata costs ~50 ms: loaded on first use, not by the hook commands that import this package
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ctxops-memory-inject")
    except PackageNotFoundError:  # running from a source tree without an install
        return "0.0.0"
