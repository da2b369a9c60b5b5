"""Encoding and strict decoding of records, with version checks and errors that name the field."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

import msgspec

from .versioning import check_schema_version

T = TypeVar("T", bound=msgspec.Struct)

_encoder = msgspec.json.Encoder()


class ContractError(ValueError):
    """Data does not match a record type; the message names the record, the field and the problem."""

    def __init__(self, record: str, detail: str, *, where: str | None = None) -> None:
        self.record = record
        self.detail = detail
        self.where = where
        prefix = f"{where}: " if where else ""
        super().__init__(f"{prefix}invalid {record}: {detail}")


def encode(record: msgspec.Struct) -> bytes:
    """JSON bytes for one record."""
    return _encoder.encode(record)


def encode_line(record: msgspec.Struct) -> bytes:
    """One JSONL line (newline-terminated) for one record."""
    return _encoder.encode(record) + b"\n"


def to_builtins(record: msgspec.Struct) -> Any:
    """Plain dicts/lists/strings for one record (datetimes as RFC 3339 strings)."""
    return msgspec.to_builtins(record)


def _check_version(type_: type[msgspec.Struct], raw: Any, where: str | None) -> None:
    if "schema_version" not in type_.__struct_fields__ or not isinstance(raw, dict):
        return
    found = raw.get("schema_version")
    if found is None:
        return  # absent: the reader's own version is assumed (the field has a default)
    if not isinstance(found, str):
        raise ContractError(type_.__name__, "`schema_version` must be a string like '1.0'", where=where)
    check_schema_version(found, where=where or type_.__name__)


def decode(type_: type[T], data: bytes | str, *, where: str | None = None) -> T:
    """Decode JSON into ``type_``; raise ContractError or UnsupportedSchemaVersion."""
    try:
        raw = msgspec.json.decode(data)
    except msgspec.DecodeError as exc:
        raise ContractError(type_.__name__, f"not valid JSON ({exc})", where=where) from None
    return convert(type_, raw, where=where)


def convert(type_: type[T], raw: Any, *, where: str | None = None) -> T:
    """Validate already-parsed data (dicts from JSON, TOML, YAML front matter) into ``type_``."""
    _check_version(type_, raw, where)
    try:
        return msgspec.convert(raw, type_)
    except msgspec.ValidationError as exc:
        raise ContractError(type_.__name__, str(exc), where=where) from None


def decode_lines(type_: type[T], lines: Iterable[bytes], *, where: str = "") -> Iterator[T | ContractError]:
    """Decode JSONL lines, yielding a ContractError in place of each bad line rather than stopping."""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            yield decode(type_, line, where=f"{where}:{number}" if where else f"line {number}")
        except ContractError as exc:
            yield exc
