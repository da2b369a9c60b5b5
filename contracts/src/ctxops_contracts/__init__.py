"""Record types, JSON Schemas and protocols shared by every ctxops package.

The exports are loaded on first use (module ``__getattr__``, PEP 562): ``import ctxops_contracts.ids`` or
``.versioning`` must not import msgspec, because the hook capture command runs on every agent event and
msgspec (with ``typing_extensions``) costs more than Python's own start-up. ``from ctxops_contracts import
AgentEvent`` works as before and loads the modules it needs.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing itself is not imported here (the hook path); type checkers treat this as True
if TYPE_CHECKING:
    from typing import Any

    from .codec import ContractError, convert, decode, decode_lines, encode, encode_line, to_builtins
    from .ids import is_ulid, new_ulid, ulid_timestamp_ms
    from .protocols import CodeTieSource, Embedder, EventSink, MemoryRepository, PriceBook, SymbolIndex, TokenCounter
    from .records import (
        ALL_RECORDS,
        PERSISTED_RECORDS,
        AgentEvent,
        Attribution,
        CodeTie,
        ContextRecord,
        Edge,
        FileRecord,
        MemoryEntry,
        QueryHit,
        QueryResult,
        Reference,
        Symbol,
        UsageRecord,
    )
    from .versioning import SCHEMA_MAJOR, SCHEMA_VERSION, UnsupportedSchemaVersion, check_schema_version

    __version__: str

_MODULE_OF = {
    **dict.fromkeys(
        ("ContractError", "convert", "decode", "decode_lines", "encode", "encode_line", "to_builtins"), "codec"
    ),
    **dict.fromkeys(("is_ulid", "new_ulid", "ulid_timestamp_ms"), "ids"),
    **dict.fromkeys(
        ("CodeTieSource", "Embedder", "EventSink", "MemoryRepository", "PriceBook", "SymbolIndex", "TokenCounter"),
        "protocols",
    ),
    **dict.fromkeys(
        (
            "ALL_RECORDS",
            "PERSISTED_RECORDS",
            "AgentEvent",
            "Attribution",
            "CodeTie",
            "ContextRecord",
            "Edge",
            "FileRecord",
            "MemoryEntry",
            "QueryHit",
            "QueryResult",
            "Reference",
            "Symbol",
            "UsageRecord",
        ),
        "records",
    ),
    **dict.fromkeys(
        ("SCHEMA_MAJOR", "SCHEMA_VERSION", "UnsupportedSchemaVersion", "check_schema_version"), "versioning"
    ),
}


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is not None:
        from importlib import import_module

        value = getattr(import_module(f"{__name__}.{module}"), name)
        globals()[name] = value  # later lookups skip this function
        return value
    if name == "__version__":
        # importlib.metadata costs ~25 ms, too much for the hook capture path.
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("ctxops-contracts")
        except PackageNotFoundError:  # running from a source tree without an install
            return "0.0.0"
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "ALL_RECORDS",
    "PERSISTED_RECORDS",
    "SCHEMA_MAJOR",
    "SCHEMA_VERSION",
    "AgentEvent",
    "Attribution",
    "CodeTie",
    "CodeTieSource",
    "ContextRecord",
    "ContractError",
    "Edge",
    "Embedder",
    "EventSink",
    "FileRecord",
    "MemoryEntry",
    "MemoryRepository",
    "PriceBook",
    "QueryHit",
    "QueryResult",
    "Reference",
    "Symbol",
    "SymbolIndex",
    "TokenCounter",
    "UnsupportedSchemaVersion",
    "UsageRecord",
    "__version__",
    "check_schema_version",
    "convert",
    "decode",
    "decode_lines",
    "encode",
    "encode_line",
    "is_ulid",
    "new_ulid",
    "to_builtins",
    "ulid_timestamp_ms",
]
