"""Names and values: moved to ``ctxops_contracts.redaction.names`` (re-exported here)."""

from __future__ import annotations

from ctxops_contracts.redaction.names import (
    is_password_class,
    is_placeholder,
    is_secret_name,
    is_secret_value,
    looks_like_credential,
    words,
)

__all__ = ["is_password_class", "is_placeholder", "is_secret_name", "is_secret_value", "looks_like_credential", "words"]
