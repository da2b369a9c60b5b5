"""Provider token formats: moved to ``ctxops_contracts.redaction.formats`` (re-exported here)."""

from __future__ import annotations

from ctxops_contracts.redaction.formats import FORMATS

__all__ = ["FORMATS"]
