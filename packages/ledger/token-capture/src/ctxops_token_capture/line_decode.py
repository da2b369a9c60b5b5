"""Decode one transcript line when it can matter, refusing unreadable lines with a reason (never fatal)."""

from __future__ import annotations

import json
import re
from functools import cache
from typing import TypeVar

import msgspec

from .report import IngestReport

T = TypeVar("T")


def decode_line(
    raw: bytes, where: str, decoder: msgspec.json.Decoder[T], needles: tuple[bytes, ...], report: IngestReport
) -> T | None:
    """The decoded line, or None for a blank line, a line without any of ``needles``, or one refused."""
    # Many lines carry nothing a usage record needs; one scan for the needles skips them without decoding.
    if _needles(needles).search(raw) is None:
        stripped = raw.strip()
        if stripped and not (stripped.startswith(b"{") and stripped.endswith(b"}")):
            report.refuse("invalid_json", where, "not a JSON object (truncated or corrupt line)")
        return None
    stripped = raw.strip()
    try:
        return decoder.decode(stripped)
    except msgspec.ValidationError as exc:
        report.refuse("rejected", where, f"unexpected shape: {exc}")
    except (msgspec.DecodeError, UnicodeDecodeError) as exc:  # msgspec < 0.20 raises the latter on bad UTF-8
        repaired = _repaired(stripped)
        if repaired is not None:
            try:
                return decoder.decode(repaired)
            except (msgspec.ValidationError, msgspec.DecodeError, UnicodeDecodeError):
                pass
        report.refuse("invalid_json", where, f"invalid JSON: {exc}")
    return None


@cache
def _needles(needles: tuple[bytes, ...]) -> re.Pattern[bytes]:
    return re.compile(b"|".join(re.escape(needle) for needle in needles))


def _repaired(raw: bytes) -> bytes | None:
    """A line whose only fault is its text (invalid UTF-8, a lone surrogate escape), with that text replaced.

    One odd string in a working directory or a tool's output must not cost the call's tokens.
    """
    try:
        value = json.loads(raw.decode("utf-8", "replace"))
    except ValueError:
        return None
    return json.dumps(value, ensure_ascii=False).encode("utf-8", "replace")
