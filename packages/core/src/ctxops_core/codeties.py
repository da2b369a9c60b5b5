# ruff: noqa: PTH112, PTH118
"""Core composes the memory line with the code map: memories tied to the symbols they name (issue 23).

The memory line ties a memory to the files its text names by itself (``ctxops_memory_store.ties``); the
symbols it names need the code map, which the memory line may not import. Core registers a factory there
(``install``): for a repository with a code index, a ``CodeTieSource`` (``ctxops_contracts``) that finds the
definitions the text names unambiguously and tells which tied symbol ids the code map still defines.

Nothing is built for it: a repository without a code index ties paths only, and a missing, locked or old
index gives no symbols (the memory is still written).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # collections.abc is not imported on `ctx mem add`'s path; type checkers treat this as True
if TYPE_CHECKING:
    from collections.abc import Sequence

MAX_NAMES = 12  # identifiers of one memory looked up
MAX_DEFINITIONS = 2  # a name with more definitions than this is ambiguous: not tied


class CodeMapTies:
    """``CodeTieSource`` over the code index of ``root`` (its lean read path for lookups)."""

    def __init__(self, root: str) -> None:
        self.root = root

    def symbols_named(self, text: str) -> list[tuple[str, str]]:
        from ctxops_code_graph import reader
        from ctxops_code_graph.schema import INDEX_FORMAT

        from .hook_cmd import identifiers

        names = [n for n in identifiers(text)[:MAX_NAMES] if "/" not in n and not _looks_like_file(n)]
        snapshot = reader.current_snapshot(self.root)
        if not names or snapshot is None:
            return []
        found: list[tuple[str, str]] = []
        con = reader.connect(snapshot)
        try:
            if reader.meta(con).get("format") != INDEX_FORMAT:
                return []
            for name in names:
                rows = reader.definition_rows(con, name, limit=MAX_DEFINITIONS + 1)
                if not rows or len(rows) > MAX_DEFINITIONS:
                    continue
                for row in rows:  # reader.SYMBOL_SELECT: id, name, qualname, kind, lang, path, ...
                    pair = (str(row[0]), str(row[5]))
                    if pair not in found:
                        found.append(pair)
        finally:
            con.close()
        return found

    def existing(self, ids: Sequence[str]) -> set[str]:
        from ctxops_code_graph import CodeIndex

        with CodeIndex(self.root) as index:  # brought up to date first: a symbol renamed a minute ago is gone
            return {i for i in ids if index.symbol(i) is not None}


def _looks_like_file(name: str) -> bool:
    tail = name.rsplit(".", 1)[-1]
    return "." in name and tail.isalpha() and tail.islower() and len(tail) <= 4 and tail in _EXTENSIONS


_EXTENSIONS = frozenset({"py", "js", "ts", "tsx", "jsx", "go", "rs", "java", "rb", "md", "toml", "yaml", "yml", "json"})


def source_for(root: str) -> CodeMapTies | None:
    """The code map's tie source for ``root``: only where a code index exists and the map line is on."""
    from .lines import switched_on

    if "map" not in switched_on(root) or not os.path.isdir(os.path.join(root, ".meta", "index")):
        return None
    try:
        from ctxops_code_graph import reader
    except ModuleNotFoundError:
        return None
    return CodeMapTies(root) if reader.current_snapshot(root) is not None else None


def install() -> None:
    """Register ``source_for`` with the memory line (when both lines are installed)."""
    try:
        from ctxops_memory_store import ties
    except ModuleNotFoundError:
        return
    ties.source_factory = source_for
