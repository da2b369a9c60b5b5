"""Decide which memories go back into an agent's context, in layers under a token budget.

Library API (stable): ``build_injection(root, task, session_id=, agent=, files_in_play=, budget=)`` returns
an ``Injection`` (text, memory ids, tokens, omitted); ``record_injection`` counts and records it;
``write_digest(root, session_id)`` writes a session digest; ``hook.handle(agent, payload_bytes)`` is the
whole hook. Names load on first use, so the hook command imports only what it runs.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    __version__: str

_LAZY = {
    "DEFAULT_BUDGET": "build",
    "Injection": "build",
    "build_injection": "build",
    "record_injection": "build",
    "write_digest": "digest",
}
__all__ = ["DEFAULT_BUDGET", "Injection", "__version__", "build_injection", "record_injection", "write_digest"]


def __getattr__(name: str) -> Any:
    if name == "__version__":  # importlib.metadata costs ~50 ms: not paid by hook commands importing this package
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("ctxops-memory-inject")
        except PackageNotFoundError:  # running from a source tree without an install
            return "0.0.0"
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
