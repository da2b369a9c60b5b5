"""What `cq` needs from a code index: the read operations of code-graph, as one protocol.

`graph_backend.GraphBackend` implements it over `ctxops_code_graph`; the fast lookup path behind it
never imports DuckDB. Keeping the seam explicit lets the commands, the renderer and the MCP tools be
tested and reasoned about without caring how the index is stored.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from ctxops_contracts import Edge, FileRecord, Reference, Symbol


@dataclass(frozen=True)
class Hop:
    """One symbol reached from another through ``edge``, ``depth`` hops away."""

    symbol: Symbol | None
    edge: Edge
    depth: int


@dataclass(frozen=True)
class ImpactReport:
    callers: list[Hop] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    tests: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class FileDeps:
    imports: list[str] = field(default_factory=list)
    imported_by: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class IndexStatus:
    revision: str | None
    files: int
    symbols: int
    references: int
    edges: int
    languages: dict[str, int]
    skipped: dict[str, int]
    stale_files: list[str]
    index_bytes: int
    built_at: str | None = None
    extra: dict[str, str] = field(default_factory=dict)


class CodeIndex(Protocol):
    def revision(self) -> str | None: ...

    def generation(self) -> str:
        """Changes whenever the index content changes (cache key)."""
        ...

    def stale_files(self) -> list[str]: ...

    def definitions(self, name: str) -> list[Symbol]:
        """Plain name, qualified name (``A.b``) or ``path:NAME``."""
        ...

    def symbol(self, symbol_id: str) -> Symbol | None: ...

    def symbols_in_file(self, path: str) -> list[Symbol]: ...

    def all_symbols(self) -> Iterable[Symbol]:
        """Every symbol of the index (search builds its file documents from them)."""
        ...

    def references(self, name: str) -> list[Reference]: ...

    def callers(self, symbol_id: str, depth: int) -> list[Hop]: ...

    def callees(self, symbol_id: str, depth: int) -> list[Hop]: ...

    def impact(self, symbol_id: str, depth: int) -> ImpactReport: ...

    def file_deps(self, path: str) -> FileDeps: ...

    def ranked_files(self, query: str | None, limit: int) -> list[tuple[str, float]]: ...

    def names(self) -> Iterable[str]:
        """Every symbol name and qualified name (for suggestions)."""
        ...

    def files(self) -> list[FileRecord]: ...

    def status(self) -> IndexStatus: ...
