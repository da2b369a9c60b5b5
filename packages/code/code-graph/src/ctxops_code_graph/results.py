"""Small frozen answer types of the read API, built from the contract records."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ctxops_contracts import Edge, FileRecord, Symbol

MAX_VENDORED_SHOWN = 10  # vendored directories listed by `describe` (the count by reason covers the rest)


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
    # Directories left out as vendored, with why (first ones by path): `cq status` names the config key.
    vendored_dirs: list[tuple[str, str]] = field(default_factory=list)

    def describe(self, *, stale_hint: str = "reindex to refresh them") -> list[str]:
        """Human-readable lines: revision, files by language, counts, skips, size, problems, freshness."""
        langs = ", ".join(f"{lang} {n}" for lang, n in self.files_by_language.items()) or "none"
        skipped = ", ".join(f"{reason} {n}" for reason, n in self.skipped_by_reason.items()) or "none"
        conf = ", ".join(f"{k} {v}" for k, v in self.edges_by_confidence.items()) or "none"
        moved = self.revision and self.revision != self.indexed_revision
        lines = [
            f"revision {self.indexed_revision or '(not a git repository)'}"
            + (f" (working tree now {self.revision})" if moved else "")
            + (f", updated {self.updated_at}" if self.updated_at else ""),
            f"files {self.files}: {langs}",
            f"symbols {self.symbols}, references {self.references}, edges {self.edges} ({conf})",
            f"skipped: {skipped}",
            *(
                f'  {path}/ left out, {reason} (index it: code.include_vendored = ["{path}"] in .meta/config.toml)'
                for path, reason in self.vendored_dirs[:MAX_VENDORED_SHOWN]
            ),
            f"size {self.index_bytes / 1e6:.1f} MB",
        ]
        if self.parse_problems:
            shown = ", ".join(f"{f.path} [{f.parse_status}{_why(f.error)}]" for f in self.parse_problems[:5])
            more = len(self.parse_problems) - 5
            lines.append(
                f"parse problems {len(self.parse_problems)}: {shown}" + (f" ... and {more} more" if more > 0 else "")
            )
        if self.stale_files:
            more = len(self.stale_files) - 5
            lines.append(
                f"stale {len(self.stale_files)}: {', '.join(self.stale_files[:5])}"
                + (f" ... and {more} more" if more > 0 else "")
                + f" ({stale_hint})"
            )
        else:
            lines.append("fresh: no stale files")
        return lines


@dataclass
class BuildReport:
    mode: str  # full | incremental | noop
    elapsed_s: float = 0.0
    scanned: int = 0
    changed: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)  # left for later: over the bound
    revision: str | None = None
    reason: str = ""
    timings: dict[str, float] = field(default_factory=dict)  # wall seconds per phase (full builds)
    cpu: dict[str, float] = field(default_factory=dict)  # CPU seconds per phase, worker processes included

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BuildReport:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)


def _why(error: str | None) -> str:
    """The reason's first clause (`: syntax errors`, `: nested deeper than 128 brackets`), as the skipped
    files' reasons are shown."""
    return f": {error.split(':', 1)[0].split(';', 1)[0]}" if error else ""
