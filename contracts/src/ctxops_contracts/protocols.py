"""The seams between packages: small structural interfaces that any implementation can satisfy."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol, runtime_checkable

from .records import AgentEvent, MemoryEntry, Reference, Symbol


@runtime_checkable
class EventSink(Protocol):
    """Where captured agent events go (hooks-capture writes JSONL; tests may collect in memory)."""

    def append(self, event: AgentEvent) -> None: ...


@runtime_checkable
class MemoryRepository(Protocol):
    """Durable memories: add, read, search; the text files are the truth."""

    def add(self, entry: MemoryEntry) -> MemoryEntry: ...

    def get(self, entry_id: str) -> MemoryEntry | None: ...

    def search(self, query: str, *, limit: int = 10) -> list[MemoryEntry]: ...


@runtime_checkable
class Embedder(Protocol):
    """Text to fixed-size vectors. ``name`` identifies model and version so stale vectors are detected."""

    name: str
    dimensions: int

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


@runtime_checkable
class TokenCounter(Protocol):
    """Counts tokens the way a model family does (or estimates it, and says so through ``exact``)."""

    name: str
    exact: bool

    def count(self, text: str) -> int: ...


@runtime_checkable
class SymbolIndex(Protocol):
    """Read access to a code index: what another line (or a third party) needs to ask of the code map.

    Graph walks (callers, impact) return richer, index-specific types and stay on the implementation.
    """

    def definitions(self, name: str) -> list[Symbol]: ...

    def symbols_in_file(self, path: str) -> list[Symbol]: ...

    def references(self, name: str) -> list[Reference]: ...


@runtime_checkable
class CodeTieSource(Protocol):
    """What the memory line asks of the code map to tie a memory to the symbols it names (core passes one in;
    the memory line never imports the code line).

    ``symbols_named(text)``: ``(symbol id, repository-relative path)`` of the definitions the text names
    unambiguously; ``existing(ids)``: which of these symbol ids the code map still defines.
    """

    def symbols_named(self, text: str) -> list[tuple[str, str]]: ...

    def existing(self, ids: Sequence[str]) -> set[str]: ...


class Price(Protocol):
    """USD per million tokens for one model at one date."""

    input: float
    output: float
    cache_write_5m: float
    cache_write_1h: float
    cache_read: float


@runtime_checkable
class PriceBook(Protocol):
    """Prices by model and date; ``None`` for a model it does not know (never a guess)."""

    def price(self, model: str, at: datetime) -> Price | None: ...
