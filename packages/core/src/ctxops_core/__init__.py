"""ctx: compose the code map, memory and ledger lines and wire them into agents."""

from __future__ import annotations


def __getattr__(name: str) -> str:
    # Computed on first use: `ctx hook` runs on every agent event and must not pay for package metadata.
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("ctxops")
        except PackageNotFoundError:  # running from a source tree without an install
            return "0.0.0"
    raise AttributeError(name)


__all__ = ["__version__"]
