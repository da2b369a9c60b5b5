"""Record types, JSON Schemas and protocols shared by every ctxops package."""

from .codec import ContractError, convert, decode, decode_lines, encode, encode_line, to_builtins
from .ids import is_ulid, new_ulid, ulid_timestamp_ms
from .protocols import Embedder, EventSink, MemoryRepository, PriceBook, SymbolIndex, TokenCounter
from .records import (
    ALL_RECORDS,
    PERSISTED_RECORDS,
    AgentEvent,
    Attribution,
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

__all__ = [
    "ALL_RECORDS",
    "PERSISTED_RECORDS",
    "SCHEMA_MAJOR",
    "SCHEMA_VERSION",
    "AgentEvent",
    "Attribution",
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


def __getattr__(name: str) -> str:
    # Looked up on first use: importlib.metadata costs tens of ms, and the code map's read path needs none.
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("ctxops-contracts")
        except PackageNotFoundError:  # running from a source tree without an install
            return "0.0.0"
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
