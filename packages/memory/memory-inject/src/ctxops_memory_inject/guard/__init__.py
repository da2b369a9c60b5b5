"""The context guard: long tool outputs reach the model as short summaries that keep every failing test
id and error location, with the full (redacted) text saved under ``.meta/outputs/`` one call away
(``ctx out show ID``); unchanged re-reads are answered briefly; savings are counted and recorded.

Entry points for the composed hook (core's ``ctx hook``) and ``python -m ctxops_memory_inject.guard``:
:func:`handle` (agent name and payload bytes, as core's ``ctx hook`` calls it), :func:`handle_event`
(a parsed payload), :func:`handle_post_tool_use`, :func:`handle_pre_tool_use`; ``gate.passes`` decides a
small output before the handlers are imported. The names load on first use (``hook``), so importing
``ctxops_memory_inject.guard.gate`` does not import the handlers.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .hook import GuardOutcome, handle, handle_event, handle_post_tool_use, handle_pre_tool_use

_FROM_HOOK = frozenset({"GuardOutcome", "handle", "handle_event", "handle_post_tool_use", "handle_pre_tool_use"})
__all__ = ["GuardOutcome", "handle", "handle_event", "handle_post_tool_use", "handle_pre_tool_use"]


def __getattr__(name: str) -> object:
    if name in _FROM_HOOK:
        from . import hook

        value = getattr(hook, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
