"""Events caused by ctxops itself (its CLIs run by the agent, its own files) are not captured."""

from __future__ import annotations

import re

_OWN_COMMAND = re.compile(
    r"(?:^|[;&|(]\s*|\bexec\s+|\benv\s+(?:\S+=\S+\s+)*)"
    r"(?:(?:uv\s+run|uvx|pipx\s+run)\s+(?:--\S+\s+)*)?"
    r"(?:ctx|cq)(?:\s|$)"
    r"|\bpython[\d.]*\s+-m\s+ctxops_"
)


def is_own_command(command: str | None) -> bool:
    """True when a shell command runs a ctxops CLI (``ctx``, ``cq``, ``python -m ctxops_...``)."""
    return bool(command and _OWN_COMMAND.search(command.strip()))


def is_own_path(relative_path: str) -> bool:
    """True for files ctxops owns: everything under ``.meta/`` (events, index, logs, memory entries)."""
    return relative_path == ".meta" or relative_path.startswith(".meta/")
