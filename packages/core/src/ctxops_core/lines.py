# ruff: noqa: PTH118
# os.path on the hook path: `ctx hook` asks this on every agent event.
"""Which of ctxops's lines are switched on in a repository: ``map``, ``memory``, ``guard``.

Every installed line is on unless the user says otherwise, in order:

1. ``CTXOPS_LINES`` in the environment: a comma-separated list (``map,guard``; empty or ``none`` = none);
2. ``.meta/config.toml``::

       [lines]
       enabled = ["map", "memory"]

A line that is off is wired but inert: its hooks answer nothing and ``ctx mcp`` does not list its tools
(capture still records events, which adds nothing to the agent's context). ``ctx bench`` uses this to run
one line at a time with exactly the wiring ``ctx init`` writes.
"""

from __future__ import annotations

import os

LINES = ("map", "memory", "guard")
ENV = "CTXOPS_LINES"
# Which `ctxops.mcp_tools` entry points belong to which line; core's and the ledger's tools are shared and
# listed only when every line is on.
MCP_CONTRIBUTIONS = {"code": "map", "memory": "memory", "guard": "guard"}


class LinesError(ValueError):
    """A lines setting names something that is not a line."""


def parse(names: list[str] | str, *, source: str) -> frozenset[str]:
    """Line names from a list or a comma-separated string; ``LinesError`` names the bad entry."""
    items = names.split(",") if isinstance(names, str) else names
    found: set[str] = set()
    for item in items:
        if not isinstance(item, str):
            raise LinesError(f"{source}: line names are strings, got {item!r}")
        name = item.strip().lower()
        if not name or name == "none":
            continue
        if name == "all":
            found.update(LINES)
            continue
        if name not in LINES:
            raise LinesError(f"{source}: {item!r} is not a line (one of {', '.join(LINES)}, all or none)")
        found.add(name)
    return frozenset(found)


def _from_config(root: str) -> frozenset[str] | None:
    from ctxops_contracts.shared.confine import read_config_text

    try:
        text = read_config_text(os.path.join(root, ".meta", "config.toml"))
    except (OSError, ValueError):
        return None  # no config, or one the config readers report: every line stays on
    if "[lines]" not in text:
        return None  # the common case: decided without importing tomllib (~20-60 ms on the hook path)
    import tomllib

    try:
        table = tomllib.loads(text).get("lines")
    except tomllib.TOMLDecodeError:
        return None
    if not isinstance(table, dict) or "enabled" not in table:
        return None
    enabled = table["enabled"]
    if not isinstance(enabled, list | str):
        raise LinesError(f".meta/config.toml [lines] enabled must be a list of line names, got {enabled!r}")
    return parse(enabled, source=".meta/config.toml [lines] enabled")


def enabled(root: str | None) -> frozenset[str]:
    """The lines switched on for ``root`` (all of them unless the environment or the config says less)."""
    value = os.environ.get(ENV)
    if value is not None:
        return parse(value, source=ENV)
    found = _from_config(root) if root else None
    return frozenset(LINES) if found is None else found


def switched_on(root: str | None) -> frozenset[str]:
    """The lines on for a hook; a malformed setting leaves every line on (hooks never break the agent)."""
    try:
        return enabled(root)
    except LinesError:
        return frozenset(LINES)


def is_on(root: str | None, line: str) -> bool:
    """Whether ``line`` is on (:func:`switched_on`)."""
    return line in switched_on(root)


def config_block(names: frozenset[str] | set[str]) -> str:
    """The ``[lines]`` table that switches on exactly ``names``."""
    ordered = ", ".join(f'"{name}"' for name in LINES if name in names)
    return f"[lines]\nenabled = [{ordered}]\n"
