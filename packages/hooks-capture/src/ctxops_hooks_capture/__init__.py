"""Capture agent hook events (Claude Code, Codex, Gemini CLI, Cursor) as redacted AgentEvent JSONL."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("ctxops-hooks-capture")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.0.0"

__all__ = ["__version__"]
