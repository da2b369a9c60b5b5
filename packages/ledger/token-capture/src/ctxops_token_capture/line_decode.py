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
    return decode_at(raw, where, -1, decoder, needle_pattern(needles), report=report)


def decode_at(
    raw: bytes,
    path: object,
    offset: int,
    decoder: msgspec.json.Decoder[T],
    needles: re.Pattern[bytes],
    *,
    report: IngestReport,
) -> T | None:
    """:func:`decode_line` for the line at ``offset`` of ``path`` (named ``path:offset`` only when refused;
    ``offset`` -1: ``path`` is the whole name), with ``needles`` compiled (:func:`needle_pattern`)."""
    # Many lines carry nothing a usage record needs; one scan for the needles skips them without decoding.
    if needles.search(raw) is None:
        stripped = raw.strip()
        if stripped and not (stripped.startswith(b"{") and stripped.endswith(b"}")):
            report.refuse("invalid_json", _where(path, offset), "not a JSON object (truncated or corrupt line)")
        return None
    try:
        return decoder.decode(raw)  # JSON allows the whitespace around it (a CR before the newline)
    except msgspec.ValidationError as exc:
        report.refuse("rejected", _where(path, offset), f"unexpected shape: {exc}")
    except (msgspec.DecodeError, UnicodeDecodeError) as exc:  # msgspec < 0.20 raises the latter on bad UTF-8
        repaired = _repaired(raw.strip())
        if repaired is not None:
            try:
                return decoder.decode(repaired)
            except (msgspec.ValidationError, msgspec.DecodeError, UnicodeDecodeError):
                pass
        report.refuse("invalid_json", _where(path, offset), f"invalid JSON: {exc}")
    return None


def _where(path: object, offset: int) -> str:
    return str(path) if offset < 0 else f"{path}:{offset}"


def needle_pattern(needles: tuple[bytes, ...]) -> re.Pattern[bytes]:
    """One regex finding any of ``needles`` (compiled once per tuple)."""
    return _needles(needles)


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
