"""Secret redaction, one boundary for every line: ``redact(text)``, ``redact_value(json_value)``, ``redact_path``,
``redact_label`` (titles, tags), and ``redact_record`` (a payload or record whose fields repeat a secret).

The engine lives in contracts (standard library only, patterns cached through ``shared.regex``) so the
memory line (hook capture, the guard, memories), the ledger line (proxy bodies, transcript attribution)
and core all hide secrets the same way before anything touches disk. ``engine`` holds the layers,
``formats`` the provider token shapes, ``context`` assignments/flags/URLs/headers/prose, ``names`` the
judgement of a name or a value. Import the submodule you need (``from ctxops_contracts.redaction.engine
import redact``) or these names; both keep the hook path free of typing, re and json imports.
"""

from __future__ import annotations

from .engine import KEY_MARKER, LABELS, SECRET, redact, redact_label, redact_path, redact_value, window
from .record import hide_found, redact_record

__all__ = [
    "KEY_MARKER",
    "LABELS",
    "SECRET",
    "hide_found",
    "redact",
    "redact_label",
    "redact_path",
    "redact_record",
    "redact_value",
    "window",
]
