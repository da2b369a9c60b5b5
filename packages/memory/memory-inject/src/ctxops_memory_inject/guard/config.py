# ruff: noqa: PTH116, PTH118, SIM105
# os.path on the hook path: pathlib is not imported there (startup time); nor contextlib (suppress).
"""The guard's settings: the ``[guard]`` table of ``.meta/config.toml``, read with tomllib (cached as JSON).

```toml
[guard]
enabled = true            # the whole guard
min_chars = 3000          # outputs shorter than this pass untouched
read_max_lines = 400      # a Read returning more lines gets an outline plus the requested region
read_region_lines = 120   # how much of the requested region a large Read keeps
search_max_hits = 10      # grep/rg/Grep floods: hits shown (cq grep's cap), the rest counted per file
search_max_paths = 40     # find/Glob path lists: paths shown before "... and N more"
max_outputs = 200         # saved originals kept under .meta/outputs/ (oldest removed first)
max_output_bytes = 2000000  # a saved original is cut at this size (the cut is marked)
wrap_bash = true          # PreToolUse: run recognised commands so a failing exit still reaches PostToolUse
read_dedupe = true        # answer an unchanged re-read with "unchanged since step N"
accounting = "background" # token counts: "background" (a detached process), "inline" or "off"

[guard.tools]             # per tool: false turns the guard off for it
Read = false

[guard.commands]          # per command family (pytest, jest, tsc, git-diff, search, generic, ...)
git-diff = false
"""

from __future__ import annotations

import os

from ctxops_contracts.shared import jsonlite
from ctxops_contracts.shared.confine import read_regular
from ctxops_contracts.shared.files import atomic_write

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


DEFAULTS: dict[str, Any] = {
    "enabled": True,
    "min_chars": 3000,
    "read_max_lines": 400,
    "read_region_lines": 120,
    "search_max_hits": 10,
    "search_max_paths": 40,
    "max_outputs": 200,
    "max_output_bytes": 2_000_000,
    "wrap_bash": True,
    "read_dedupe": True,
    "accounting": "background",
}
ACCOUNTING_MODES = ("background", "inline", "off")


class GuardConfig:
    """Settings with defaults; unknown keys are ignored, wrong types fall back to the default (logged)."""

    def __init__(self, table: dict[str, Any] | None = None) -> None:
        table = table or {}
        values = dict(DEFAULTS)
        for key, default in DEFAULTS.items():
            if key not in table:
                continue
            value = table[key]
            if type(value) is not type(default) or (key == "accounting" and value not in ACCOUNTING_MODES):
                _warn("guard config: %s = %r is not valid; using %r", key, value, default)
                continue
            values[key] = value
        self.enabled: bool = values["enabled"]
        self.min_chars: int = values["min_chars"]
        self.read_max_lines: int = values["read_max_lines"]
        self.read_region_lines: int = values["read_region_lines"]
        self.search_max_hits: int = values["search_max_hits"]
        self.search_max_paths: int = values["search_max_paths"]
        self.max_outputs: int = values["max_outputs"]
        self.max_output_bytes: int = values["max_output_bytes"]
        self.wrap_bash: bool = values["wrap_bash"]
        self.read_dedupe: bool = values["read_dedupe"]
        self.accounting: str = values["accounting"]
        self.tools: dict[str, bool] = _switches(table.get("tools"))
        self.commands: dict[str, bool] = _switches(table.get("commands"))

    def tool_on(self, tool: str) -> bool:
        return self.enabled and self.tools.get(tool, True)

    def family_on(self, family: str) -> bool:
        return self.enabled and self.commands.get(family, True)


def _warn(message: str, *args: object) -> None:
    import logging

    logging.getLogger(__name__).warning(message, *args)


def _switches(value: object) -> dict[str, bool]:
    if not isinstance(value, dict):
        return {}
    return {str(k): bool(v) for k, v in value.items() if isinstance(v, bool)}


def load_config(root: str) -> GuardConfig:
    """The ``[guard]`` table of ``<root>/.meta/config.toml``; defaults when absent or unreadable.

    tomllib (with typing) costs more than the rest of the hook, so the parsed table is cached as JSON in
    ``.meta/.state/guard/config.json`` keyed by the file's size and mtime, and parsed again only when
    the file changes.
    """
    path = os.path.join(root, ".meta", "config.toml")
    try:
        stat = os.stat(path)
    except OSError:
        return GuardConfig()
    key = [stat.st_size, stat.st_mtime_ns]
    cache = os.path.join(root, ".meta", ".state", "guard", "config.json")
    try:
        cached = jsonlite.loads(read_regular(cache, 1_000_000))
        if cached.get("key") == key:
            table = cached.get("guard")
            return GuardConfig(table if isinstance(table, dict) else None)
    except (OSError, ValueError, AttributeError):
        pass
    table = _parse(path)
    try:
        atomic_write(cache, jsonlite.dumps({"key": key, "guard": table}), fsync=False)
    except OSError:  # no cache: the next call parses again
        pass
    return GuardConfig(table)


def _parse(path: str) -> dict[str, Any] | None:
    try:
        raw = read_regular(path, 1_000_000)  # a symlink to /dev/zero or a FIFO is refused, not read
    except OSError:
        return None
    import tomllib

    try:
        data = tomllib.loads(raw.decode("utf-8", "replace"))
    except tomllib.TOMLDecodeError as exc:
        _warn("guard config: %s is not valid TOML (%s); using defaults", path, exc)
        return None
    table = data.get("guard")
    return table if isinstance(table, dict) else None
