"""What `cq` needs from a code index: the read operations of code-graph, as one protocol.

`graph_backend.GraphBackend` implements it over `ctxops_code_graph.CodeIndex`, whose read path is a
SQLite snapshot (no DuckDB). Keeping the seam explicit lets the commands, the renderer and the MCP
tools be reasoned about (and tested) apart from how the index is stored.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from ctxops_contracts import Edge, FileRecord, Reference, Symbol


@dataclass(frozen=True)
class Hop:
    """One symbol reached through ``edge``, ``depth`` hops away (``symbol`` None: module-level code)."""

    edge: Edge
    depth: int
    symbol: Symbol | None


@dataclass(frozen=True)
class ImpactReport:
    callers: list[Hop] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    tests: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class FileDeps:
    imports: list[str] = field(default_factory=list)  # repository files it imports
    external: list[str] = field(default_factory=list)  # modules outside the repository
    imported_by: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class RankedFile:
    path: str
    score: float
    symbols: list[Symbol] = field(default_factory=list)


class CodeIndex(Protocol):
    def revision(self) -> str | None: ...

    def generation(self) -> str:
        """Changes whenever the index content changes (the result cache's key)."""
        ...

    def stale_files(self) -> list[str]: ...

    def saved_files(self) -> list[str]:
        """Files saved since the index that this query reads directly (its answers include them)."""
        ...

    def freshen(self, wait: float | None) -> list[str]:
        """Check freshness and reindex what changed, waiting at most ``wait`` seconds for it."""
        ...

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

    def certain_uses(self, symbol_id: str, depth: int, kinds: tuple[str, ...]) -> list[Hop]:
        """Uses of a symbol (edges of ``kinds``) resolved for certain, up to ``depth`` hops."""
        ...

    def uncertain_references(self, name: str, roles: tuple[str, ...]) -> list[Reference]:
        """Uses of a bare name that no certain edge explains (the name-only candidates)."""
        ...

    def callees(self, symbol_id: str, depth: int) -> list[Hop]: ...

    def impact(self, symbol_id: str, depth: int) -> ImpactReport: ...

    def file_deps(self, path: str) -> FileDeps: ...

    def ranked_files(self, query: str | None, limit: int) -> list[RankedFile]: ...

    def names(self, near: str | None = None) -> Iterable[str]:
        """Every symbol name and qualified name (for suggestions)."""
        ...

    def files(self) -> list[FileRecord]: ...
