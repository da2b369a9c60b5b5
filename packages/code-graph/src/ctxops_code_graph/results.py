"""Small frozen answer types of the read API, built from the contract records."""

from __future__ import annotations

from dataclasses import dataclass, field

from ctxops_contracts import Edge, FileRecord, Symbol


@dataclass(frozen=True)
class Hop:
    """One edge of a callers/callees walk: `symbol` is the far end (the caller, or the callee)."""

    edge: Edge
    depth: int
    symbol: Symbol | None  # None when the far end is module-level code (the edge's src is a file path)


@dataclass(frozen=True)
class Impact:
    target: Symbol
    callers: list[Hop]
    files: list[str]  # every file holding the target or a transitive caller
    tests: list[str]  # test files among them
    test_symbols: list[Symbol]  # test functions that reach the target


@dataclass(frozen=True)
class ImportLink:
    module: str
    name: str | None
    line: int
    target: str | None  # the repository file it resolves to (None: outside the repository)


@dataclass(frozen=True)
class FileDeps:
    path: str
    imports: list[ImportLink]
    imported_by: list[str]


@dataclass(frozen=True)
class RankedFile:
    path: str
    score: float
    lang: str | None
    symbols: list[Symbol]  # its key top-level symbols, most referenced first


@dataclass(frozen=True)
class IndexStatus:
    root: str
    revision: str | None
    indexed_revision: str | None
    updated_at: str | None
    files: int
    files_by_language: dict[str, int]
    symbols: int
    references: int
    edges: int
    edges_by_confidence: dict[str, int]
    skipped_by_reason: dict[str, int]
    parse_problems: list[FileRecord]  # partial, error and fallback files
    stale_files: list[str]
    index_bytes: int
    store: dict[str, str] = field(default_factory=dict)  # where the files are
