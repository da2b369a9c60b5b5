"""Secret redaction: the engine moved to ``ctxops_contracts.redaction`` so every line shares one boundary.

These names stay importable from here for the callers and tests that use them.
"""

from __future__ import annotations

from ctxops_contracts.redaction.engine import (
    KEY_MARKER,
    LABELS,
    SECRET,
    redact,
    redact_path,
    redact_value,
    window,
)
from ctxops_contracts.redaction.record import hide_found, redact_record

__all__ = [
    "KEY_MARKER",
    "LABELS",
    "SECRET",
    "hide_found",
    "redact",
    "redact_path",
    "redact_record",
    "redact_value",
    "window",
]
