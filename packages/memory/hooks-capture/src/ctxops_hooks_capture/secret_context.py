"""Context rules: moved to ``ctxops_contracts.redaction.context`` (re-exported here)."""

from __future__ import annotations

from ctxops_contracts.redaction.context import (
    RULES,
    entropy,
    is_key_begin,
    is_key_end,
    private_keys,
    read_value,
    scan,
)

__all__ = ["RULES", "entropy", "is_key_begin", "is_key_end", "private_keys", "read_value", "scan"]
