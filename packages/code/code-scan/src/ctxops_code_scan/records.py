"""Scanner-local records: an import statement, and everything one file yields."""

from __future__ import annotations

from ctxops_contracts import FileRecord, Reference, Symbol
from msgspec import Struct, field


class Import(Struct, frozen=True, kw_only=True):
    """One imported module or name, as written (relative forms made repo-relative).

    `module` is in the language's own notation (Python dotted, JS repo path, Go import path, Java dotted,
    Rust `::` path, C include path); `name` is the imported member (None: the whole module); `alias` the
    local binding the file's code uses (None: nothing bound, e.g. a side-effect import).
    """

    path: str
    lang: str
    module: str
    name: str | None = None
    alias: str | None = None
    line: int = 1


class ScanResult(Struct, frozen=True, kw_only=True):
    """What scanning one file produced. `file.parse_status` says how far to trust the rest."""

    file: FileRecord
    symbols: list[Symbol] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    imports: list[Import] = field(default_factory=list)
    # Type expressions (type_exprs.py) the code graph evaluates: (owner symbol id, attribute name, expression).
    types: list[tuple[str | None, str | None, str]] = field(default_factory=list)


class Skipped(Struct, frozen=True, kw_only=True):
    """A file left out of the index on purpose, with the rule that excluded it."""

    path: str
    reason: str  # ignored | binary | generated | vendored | minified | too-large | symlink-outside | unreadable ...
    size: int = 0
