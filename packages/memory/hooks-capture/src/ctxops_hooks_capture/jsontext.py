"""Strict JSON in and compact JSON lines out, with the standard library only (msgspec is too slow to import here).

Through ``ctxops_contracts.shared.jsonlite``: ``json``'s own C code, without importing ``json`` (and ``re``).

Parsing refuses what msgspec's strict decoder refuses (``NaN``, ``Infinity``, numbers beyond float range),
so a payload that gets in can always be written back out as standard JSON. Output is UTF-8 without ASCII
escaping; a lone surrogate (a ``\\ud800`` escape in the input) becomes ``?`` so every line stays valid UTF-8.
"""

from __future__ import annotations

from ctxops_contracts.shared import jsonlite

TYPE_CHECKING = False  # typing is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    from typing import Any


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


_INFINITY = float("inf")


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (_INFINITY, -_INFINITY):
        raise ValueError(f"number out of range: {text[:40]}")
    return value


def parse(text: str) -> Any:
    """The value in ``text``; raises ValueError (``json.JSONDecodeError`` for malformed text)."""
    return jsonlite.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)


def dumps(value: Any) -> str:
    """Compact JSON text for ``value`` (non-ASCII kept as is)."""
    return jsonlite.dumps(value, ensure_ascii=False, allow_nan=False, compact=True)


def line(value: Any) -> bytes:
    """One newline-terminated JSONL line, always valid UTF-8."""
    return (dumps(value) + "\n").encode("utf-8", "replace")
