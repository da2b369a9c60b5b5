"""Record every model call's token usage from transcripts, a proxy and SDK wrappers."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("ctxops-token-capture")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.0.0"

__all__ = ["__version__"]
