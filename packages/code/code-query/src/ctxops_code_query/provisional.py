"""The first query on a repository without a usable index: answered now, from a provisional scan, while
the full build runs in a detached process and commits.

`start_build` starts `python -m ctxops_code_graph index ROOT` in its own session (unless a build already
holds the writer lock). `ProvisionalIndex` answers `def` (ripgrep finds the files that mention the name,
tree-sitter extracts their definitions: the same symbols the index will hold), `brief` (one file,
extracted on the spot), and `refs`, `callers`, `callees`, `impact` and `deps` from the files that mention
the name (ripgrep, then tree-sitter's references and imports of those files): every use is listed as
possible (name-only), none as certain, since no cross-file resolution has run yet. `map` and `search`
still need the graph and say the index is being built. Every provisional answer is marked: its revision
reads `provisional`, and the graph commands add a note saying how many files the scan read.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ctxops_contracts import Edge, FileRecord, Reference, Symbol

from .backend import FileDeps, Hop, ImpactReport
from .errors import EnvironmentProblem

log = logging.getLogger(__name__)

PROVISIONAL = "provisional"
CANDIDATE_FILES = 60  # files scanned for a definition: those ripgrep lists first (sorted by path)
MAX_IMPORT_SCAN_BYTES = 1024 * 1024  # (the scanner's default max_file_bytes)
USE_FILES = 300  # files scanned for the uses of a name (refs, callers, impact, deps): ripgrep's first ones
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
        self._results: dict[str, Any] = {}  # rel -> ScanResult (or None: not a source file)
        self._by_id: dict[str, Symbol] = {}
        self.scanned: set[str] = set()  # files a graph command's scan read
        self.capped = 0  # files mentioning a name that the scan left out (over USE_FILES)

    def _busy(self) -> EnvironmentProblem:
        return EnvironmentProblem(
            f"the code index of {self.root} is being built in the background; this command needs it",
            fix="retry in a few seconds (def, brief, refs, callers, callees, impact and deps answer provisionally"
            " meanwhile; cq index waits for it)",
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

    def _result(self, rel: str) -> Any:
        """The file's scan (symbols, references, imports), once per query; None for no source file."""
        if rel in self._results:
            return self._results[rel]
        from ctxops_code_scan.languages import language_for_path
        from ctxops_code_scan.records import ScanResult
        from ctxops_code_scan.scan import scan_file

        spec = language_for_path(rel)
        out = scan_file(self.root, rel, spec.name) if spec is not None else None
        result = out if isinstance(out, ScanResult) else None
        self._results[rel] = result
        if result is not None:
            for s in result.symbols:
                self._by_id.setdefault(s.id, s)
        return result

    def _imports(self, rel: str) -> list[Any]:
        """The file's imports alone: its tree's import statements, as the extractor reads them (a full
        extraction of a large importer costs ten times more)."""
        import tree_sitter
        from ctxops_code_scan.extract import _parser
        from ctxops_code_scan.imports import read_import
        from ctxops_code_scan.languages import language_for_path, ts_query

        spec = language_for_path(rel)
        if spec is None or spec.grammar is None:
            result = self._result(rel)
            return list(result.imports) if result is not None else []
        try:
            with open(self.root / rel, "rb") as fh:
                source = fh.read(MAX_IMPORT_SCAN_BYTES + 1)
        except OSError:
            return []
        if len(source) > MAX_IMPORT_SCAN_BYTES:
            return []
        tree = _parser(spec.name).parse(source)
        nodes = tree_sitter.QueryCursor(ts_query(spec.name)).captures(tree.root_node).get("import", [])
        return [imp for node in nodes for imp in read_import(spec.name, node, rel)]

    def _scan(self, rel: str) -> list[Symbol]:
        out = self._result(rel)
        return list(out.symbols) if out is not None else []

    def _mentioning(self, word: str, *, importing: bool = False) -> list[str]:
        """Source files that hold ``word`` as a word (ripgrep, sorted by path), at most `USE_FILES`;
        ``importing``: on a line that imports (a Go import block's lines name no keyword: any line)."""
        import re

        from ctxops_code_scan.languages import language_for_path

        from .ripgrep import GrepAborted, GrepOptions, GrepOverflow, run_grep

        if not word:
            return []
        pattern = re.escape(word)
        if importing:
            pattern = rf"(\b(import|from|require|include|use|mod)\b.*\b{pattern}\b|^\s*(\w+\s+)?\"[^\"]*\b{pattern}\")"
        opts = GrepOptions(pattern=pattern, word=not importing, keep=0)
        try:
            found = run_grep(self.root, opts, timeout=self.deadline_s)
        except (GrepOverflow, GrepAborted) as exc:
            found = exc.matches
        paths = sorted(p for p in found.files if language_for_path(p) is not None and not p.startswith(".meta/"))
        self.capped = max(self.capped, len(paths) - USE_FILES)
        return paths[:USE_FILES]

    def _uses(self, name: str) -> list[Reference]:
        last = name.replace("::", ".").rpartition(":")[2].rpartition(".")[2]
        out: list[Reference] = []
        for rel in self._mentioning(last):
            result = self._result(rel)
            if result is None:
                continue
            self.scanned.add(rel)
            out.extend(r for r in result.references if r.symbol_name == last)
        return out

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
        return self._by_id.get(symbol_id)

    # The graph commands, by name only: nothing is certain before the build resolves it.

    def references(self, name: str) -> list[Reference]:
        return self._uses(name)

    def certain_uses(self, symbol_id: str, depth: int, kinds: tuple[str, ...]) -> list[Hop]:
        return []

    def uncertain_references(self, name: str, roles: tuple[str, ...]) -> list[Reference]:
        return [r for r in self._uses(name) if r.role in roles]

    def callers(self, symbol_id: str, depth: int) -> list[Hop]:
        return []

    def callees(self, symbol_id: str, depth: int) -> list[Hop]:
        """The calls written in the symbol's body, each by name only (one hop)."""
        target = self._by_id.get(symbol_id)
        if target is None:
            return []
        result = self._result(target.path)
        self.scanned.add(target.path)
        hops: list[Hop] = []
        seen: set[str] = set()
        for ref in result.references if result is not None else []:
            if ref.role != "call" or ref.enclosing != symbol_id or ref.symbol_name in seen:
                continue
            seen.add(ref.symbol_name)
            edge = Edge(
                src=symbol_id,
                dst=ref.symbol_name,
                kind="call",
                confidence="name-only",
                path=ref.path,
                line=ref.line,
                resolution="name-only",
            )
            hops.append(Hop(edge=edge, depth=1, symbol=None))
        return hops

    def impact(self, symbol_id: str, depth: int) -> ImpactReport:
        return ImpactReport()  # its callers by name come from `uncertain_references`

    def file_deps(self, path: str) -> FileDeps:
        """The file's imports resolved against the repository's file list (as the build resolves them),
        and the files that import it among those that mention its module's name."""
        from ctxops_code_graph.import_targets import ModuleIndex
        from ctxops_code_graph.reader import norm_path
        from ctxops_code_scan.discover import discover

        path = norm_path(path)
        found = discover(self.root)
        modules = ModuleIndex([(c.path, c.lang) for c in found.files], self.root)

        def targets(rel: str) -> tuple[set[str], set[str]]:
            inside: set[str] = set()
            outside: set[str] = set()
            self.scanned.add(rel)
            for imp in self._imports(rel):
                hits = modules.resolve(imp.lang, imp.module, imp.name, imp.path)
                inside.update(t.path for t in hits if t.path != rel)
                if not hits and imp.module:
                    outside.add(imp.module)
            return inside, outside

        imports, external = targets(path)
        stem = path.rpartition("/")[2].partition(".")[0]
        if path.endswith(".go") or stem in ("__init__", "index", "mod", "lib"):  # imported by its directory's name
            stem = path.rpartition("/")[0].rpartition("/")[2]
        importers = sorted(
            rel for rel in self._mentioning(stem, importing=True) if rel != path and path in targets(rel)[0]
        )
        return FileDeps(imports=sorted(imports), external=sorted(external), imported_by=importers)

    def symbols_in_file(self, path: str) -> list[Symbol]:
        return self._scan(path)

    def names(self, near: str | None = None) -> Iterable[str]:
        return []

    def files(self) -> list[FileRecord]:
        return []

    def __getattr__(self, name: str) -> Any:
        # ranked_files, all_symbols, status (map, search): they need the graph.
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
