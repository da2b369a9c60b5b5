"""The first query on a repository without a usable index: answered now, from a provisional scan, while
the full build runs in a detached process and commits.

`start_build` starts `python -m ctxops_code_graph index ROOT` in its own session (unless a build already
holds the writer lock). `ProvisionalIndex` answers `def` (ripgrep finds the files that mention the name,
tree-sitter extracts their definitions: the same symbols the index will hold) and `brief` (one file,
extracted on the spot); commands that need the graph (refs, callers, impact, deps, map, search) say the
index is being built. Every provisional answer is marked: its revision reads `provisional`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ctxops_contracts import FileRecord, Symbol

from .errors import EnvironmentProblem

log = logging.getLogger(__name__)

PROVISIONAL = "provisional"
CANDIDATE_FILES = 60  # files scanned for a definition: those ripgrep lists first (sorted by path)
_DEFINING = (
    r"(def|class|func|function|fn|type|struct|interface|enum|trait|const|let|var|module|namespace)\b"
    r"[^\n]*\b{name}\b"
)


def start_build(root: Path) -> bool:
    """Start the full build in a detached process; False when one is already running (its lock held)."""
    from ctxops_code_graph.background import start_full_build

    return start_full_build(root)


class ProvisionalIndex:
    """The parts of the `backend.CodeIndex` protocol a text scan can answer, marked provisional."""

    def __init__(self, root: Path, deadline_s: float | None = None) -> None:
        self.root = root
        self.deadline_s = deadline_s

    def _busy(self) -> EnvironmentProblem:
        return EnvironmentProblem(
            f"the code index of {self.root} is being built in the background; this command needs it",
            fix="retry in a few seconds (cq def and cq brief answer provisionally meanwhile; cq index waits for it)",
        )

    def revision(self) -> str | None:
        return PROVISIONAL

    def generation(self) -> str:
        return PROVISIONAL

    def stale_files(self) -> list[str]:
        return []

    def saved_files(self) -> list[str]:
        return []

    def freshen(self, wait: float | None) -> list[str]:
        return []

    def _scan(self, rel: str) -> list[Symbol]:
        from ctxops_code_scan.languages import language_for_path
        from ctxops_code_scan.records import ScanResult
        from ctxops_code_scan.scan import scan_file

        spec = language_for_path(rel)
        if spec is None:
            return []
        out = scan_file(self.root, rel, spec.name)
        return list(out.symbols) if isinstance(out, ScanResult) else []

    def definitions(self, name: str) -> list[Symbol]:
        import re

        from .ripgrep import GrepOptions, run_grep

        path_part, sep, rest = name.rpartition(":")
        if sep and ("/" in path_part or "." in path_part):
            return [s for s in self._scan(path_part) if rest in (s.name, s.qualname)]
        query = name.replace("::", ".").strip(".")
        qualifier, _, last = query.rpartition(".")
        if not last:
            return []
        pattern = _DEFINING.format(name=re.escape(last))
        found = run_grep(self.root, GrepOptions(pattern=pattern, keep=2000), timeout=self.deadline_s)
        paths = list(dict.fromkeys(m.path for m in found.kept))
        if qualifier:
            # `json.loads`: the files whose module path holds the qualifier go first, so a common last
            # name (hundreds of `loads`) does not push the module's own file past the candidate cap.
            paths.sort(key=lambda rel: not _mentions_module(rel, qualifier))
        hits = []
        for rel in paths[:CANDIDATE_FILES]:
            for s in self._scan(rel):
                if s.name == last and _names(query, s, rel):
                    hits.append(s)
        return hits

    def symbol(self, symbol_id: str) -> Symbol | None:
        return None

    def symbols_in_file(self, path: str) -> list[Symbol]:
        return self._scan(path)

    def names(self, near: str | None = None) -> Iterable[str]:
        return []

    def files(self) -> list[FileRecord]:
        return []

    def __getattr__(self, name: str) -> Any:
        # references, callers, callees, impact, file_deps, ranked_files, status: they need the graph.
        if name.startswith("_"):
            raise AttributeError(name)

        def unavailable(*args: object, **kwargs: object) -> Any:
            raise self._busy()

        return unavailable

    def close(self) -> None:
        return None


def _mentions_module(rel: str, qualifier: str) -> bool:
    """Whether a leading part of the qualifier (`http.client` of `http.client.HTTPConnection`) ends the
    file's module path, as the index's module-qualified lookup reads it (`reader.module_key`)."""
    from ctxops_code_graph.reader import module_key

    module, parts = module_key(rel), qualifier.split(".")
    return any(module[-k:] == parts[:k] for k in range(len(parts), 0, -1) if len(module) >= k)


def _names(query: str, symbol: Symbol, rel: str) -> bool:
    """Whether `query` names this symbol: bare, by qualified name, or through its file's module
    (`json.loads`, `http.client.HTTPConnection.request`, Go's `json.Unmarshal` through its package)."""
    from ctxops_code_graph.reader import module_key

    if query in (symbol.name, symbol.qualname) or symbol.qualname.endswith("." + query):
        return True
    dotted = ".".join([*module_key(rel), symbol.qualname])
    return ("." + dotted).endswith("." + query)
