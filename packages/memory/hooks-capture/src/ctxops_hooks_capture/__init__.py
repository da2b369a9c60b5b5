"""Capture agent hook events (Claude Code, Codex, Gemini CLI, Cursor) as redacted AgentEvent JSONL.

The capture command (``python -m ctxops_hooks_capture <agent>``) runs on every agent event, so this
package imports nothing heavy: the standard library and the light contracts modules (``ids``,
``versioning``). msgspec, dataclasses and typing stay off that path; the reader side may use them.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    from typing import Any

AGENTS = ("claude-code", "codex", "codex-notify", "gemini", "cursor", "generic")


def __getattr__(name: str) -> Any:
    # Computed on first use: importlib.metadata costs ~25 ms, too much for a hook that runs on every event.
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("ctxops-hooks-capture")
        except PackageNotFoundError:  # running from a source tree without an install
            return "0.0.0"
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["AGENTS", "__version__"]
