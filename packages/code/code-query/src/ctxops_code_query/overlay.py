"""Answers right after a save, without waiting for the index update.

An update costs a fresh process most of a CPU-second (DuckDB, resolution, the snapshot); on a loaded
machine that is longer than a query's deadline, and the answer would then come from the old snapshot.
The saved files are extracted here instead (one tree-sitter parse each) and laid over the snapshot:
`definition_rows` for the fast path of `cq def NAME`, `SavedFiles` for every other index command (refs,
callers, brief, ...). The detached update still runs and commits, for the next query.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

from ctxops_code_graph import reader

TYPE_CHECKING = False  # the fast path imports this module: no `typing` import
if TYPE_CHECKING:
    from ctxops_code_scan.records import ScanResult
    from ctxops_contracts import Reference, Symbol


def definition_rows(root: str, con: sqlite3.Connection, name: str, modified: Sequence[str]) -> list[tuple[object, ...]]:
    """The rows (`reader.SYMBOL_SELECT` columns) of the plain name's definitions, best first, as the
    index will hold them once the `modified` files (indexed, their stat changed) are reindexed."""
    from ctxops_code_scan.config import ScanConfig
    from ctxops_code_scan.languages import language_for_path
    from ctxops_code_scan.records import ScanResult
    from ctxops_code_scan.scan import scan_file

    saved = set(modified)
    rows = [row for row in reader.definition_rows(con, name) if row[5] not in saved]
    config = ScanConfig.load(Path(root))
    for path in sorted(saved):
        spec = language_for_path(path)
        if spec is None:
            continue
        outcome = scan_file(Path(root), path, spec.name, config)
        if not isinstance(outcome, ScanResult):
            continue  # gone, or skipped by rule now: the update removes it from the index
        rows.extend(
            (
                s.id,
                s.name,
                s.qualname,
                s.kind,
                s.lang,
                path,
                s.line,
                s.end_line,
                s.signature,
                s.doc,
                s.parent,
                s.exported,
            )
            for s in outcome.symbols
            if s.name == name
        )
    paths = sorted({str(row[5]) for row in rows})
    marks = ", ".join("?" for _ in paths)
    ranks = (
        dict(con.execute(f"SELECT path, rank FROM files WHERE path IN ({marks})", paths).fetchall()) if paths else {}
    )
    # As `reader.definition_rows` orders a plain name: top-level first, then file rank, path, line.
    rows.sort(key=lambda r: (r[10] is not None, -(ranks.get(r[5]) or 0.0), r[5], r[6]))
    return rows


# -- every other index question: the saved files over the snapshot ---------------------------------------

MAX_SAVED = 8  # more changed files than this: the update is waited for instead (it answers everything)
_FUNCTION_KINDS = ("function", "method")


class SavedFiles:
    """The files saved since the snapshot, read now, laid over it: what `cq refs`, `callers`, `brief` and the
    other index commands answer from while the detached update of those files runs.

    Each saved file is extracted again (one tree-sitter parse); its definitions, references and outline
    replace the snapshot's rows for it (a deleted file has none). A reference of a saved file keeps what
    the index resolved it to when the same use (name, receiver, role, enclosing definition, in order) was
    there before the save; a new one is resolved here by the rules that need no other file's change: a
    definition of the same file, the class of `self`/`this`, a name or module the file imports (through the
    snapshot's import targets). Anything else is a candidate by name only until the update commits.
    """

    def __init__(self, root: Path, con: sqlite3.Connection, paths: Sequence[str]) -> None:
        from ctxops_code_scan.config import ScanConfig
        from ctxops_code_scan.languages import language_for_path
        from ctxops_code_scan.records import ScanResult as Scanned
        from ctxops_code_scan.scan import scan_file

        self.root = root
        self.paths = frozenset(paths)
        self._con = con
        config = ScanConfig.load(root)
        self.scans: dict[str, ScanResult] = {}
        for path in sorted(self.paths):
            spec = language_for_path(path)
            outcome = scan_file(root, path, spec.name, config) if spec is not None else None
            if isinstance(outcome, Scanned):
                self.scans[path] = outcome
        self.by_id = {s.id: s for scan in self.scans.values() for s in scan.symbols}
        self._edges: list[tuple[Reference, str, str, str]] | None = None  # (use, target id, confidence, resolution)

    def key(self) -> str:
        """What the answers read from the saved files depend on (the result cache's key)."""
        parts = []
        for path in sorted(self.paths):
            try:
                st = (self.root / path).stat()
                parts.append(f"{path}:{st.st_mtime_ns}:{st.st_size}")
            except OSError:
                parts.append(f"{path}:-")
        return "saved:" + ",".join(parts)

    def covers(self, path: str | None) -> bool:
        return path is not None and path in self.paths

    # -- definitions and outlines ------------------------------------------------------------------------

    def symbols(self) -> list[Symbol]:
        return [s for scan in self.scans.values() for s in scan.symbols]

    def symbols_in_file(self, path: str) -> list[Symbol]:
        scan = self.scans.get(path)
        return sorted(scan.symbols, key=lambda s: (s.line, -s.end_line)) if scan else []

    def definitions(self, name: str) -> list[Symbol]:
        """The saved files' definitions `name` means: a plain or qualified name, `path:NAME`, a symbol id."""
        name = name.strip()
        if " " in name:
            found = self.by_id.get(name)
            return [found] if found else []
        path_part, sep, rest = name.rpartition(":")
        if sep and path_part and ("/" in path_part or "." in path_part) and not path_part.endswith(":"):
            rest = rest.replace("::", ".")
            return [s for s in self.symbols_in_file(reader.norm_path(path_part)) if rest in (s.name, s.qualname)]
        query = name.replace("::", ".").replace("#", ".").strip(".")
        last = query.rsplit(".", 1)[-1]
        if "." in query:
            return [
                s
                for s in self.symbols()
                if s.name == last and (s.qualname == query or s.qualname.endswith("." + query))
            ]
        return [s for s in self.symbols() if s.name == query]

    # -- uses ----------------------------------------------------------------------------------------------

    def references(self, name: str) -> list[Reference]:
        return [r for scan in self.scans.values() for r in scan.references if r.symbol_name == name]

    def edges(self) -> list[tuple[Reference, str, str, str]]:
        """Every use in the saved files resolved for certain: (use, target symbol id, confidence, resolution)."""
        if self._edges is None:
            self._edges = []
            for path in sorted(self.scans):
                self._edges.extend(self._resolve_file(path))
        return self._edges

    def uses_of(self, symbol_id: str, kinds: Sequence[str]) -> list[tuple[Reference, str, str]]:
        return [(r, conf, res) for r, dst, conf, res in self.edges() if dst == symbol_id and r.role in kinds]

    def uses_in(self, symbol_id: str, kinds: Sequence[str]) -> list[tuple[Reference, str, str, str]]:
        return [e for e in self.edges() if e[0].enclosing == symbol_id and e[0].role in kinds]

    def unresolved(self, name: str, roles: Sequence[str]) -> list[Reference]:
        """Uses of `name` in the saved files that nothing resolved for certain (name-only candidates)."""
        sure = {(r.path, r.line, r.col) for r, _d, _c, _s in self.edges()}
        return [
            r
            for r in self.references(name)
            if r.role in roles
            and (r.path, r.line, r.col) not in sure
            and not (r.role == "import" and r.qualifier is None)
        ]

    def _resolve_file(self, path: str) -> list[tuple[Reference, str, str, str]]:
        scan = self.scans[path]
        con = self._con
        old_refs = con.execute(
            "SELECT r.rid, r.symbol_name, r.qualifier, r.role, e.id FROM refs r JOIN files f ON f.fk = r.fk"
            " LEFT JOIN symbols e ON e.sk = r.enclosing_sk WHERE f.path = ? ORDER BY r.line, r.col",
            (path,),
        ).fetchall()
        old_edges: dict[int, list[tuple[str, str, str, str]]] = {}
        for rid, dst, dst_path, conf, res in con.execute(
            "SELECT x.rid, d.id, df.path, x.confidence, x.resolution FROM edges x JOIN files f ON f.fk = x.fk"
            " JOIN symbols d ON d.sk = x.dst_sk JOIN files df ON df.fk = d.fk"
            " WHERE f.path = ? AND x.confidence <> 'name-only'",
            (path,),
        ):
            old_edges.setdefault(rid, []).append((dst, dst_path, conf, res or conf))
        queue: dict[tuple[object, ...], list[int]] = {}
        for rid, name, qualifier, role, enclosing in old_refs:
            queue.setdefault((name, qualifier, role, enclosing), []).append(rid)
        targets = self._import_targets(path)
        out: list[tuple[Reference, str, str, str]] = []
        for ref in scan.references:
            waiting = queue.get((ref.symbol_name, ref.qualifier, ref.role, ref.enclosing))
            if waiting:
                # The same use as before the save: what the index resolved it to (unless that is gone now).
                for dst, dst_path, conf, res in old_edges.get(waiting.pop(0), []):
                    if dst_path not in self.paths or dst in self.by_id:
                        out.append((ref, dst, conf, res))
                continue
            out.extend((ref, dst, conf, res) for dst, conf, res in self._resolve_new(ref, scan.symbols, targets))
        return out

    def _import_targets(self, path: str) -> dict[str, tuple[str, str | None]]:
        """Local name -> (the file it comes from, the name imported there; None: the module itself), for the
        saved file's imports whose target the snapshot knows (the same import before the save)."""
        known = {
            (module, name): target
            for module, name, target in self._con.execute(
                "SELECT i.module, i.name, t.path FROM imports i JOIN files f ON f.fk = i.fk"
                " JOIN files t ON t.fk = i.target_fk WHERE f.path = ?",
                (path,),
            )
        }
        out: dict[str, tuple[str, str | None]] = {}
        for imp in self.scans[path].imports:
            target = known.get((imp.module, imp.name))
            if imp.alias and target is not None and imp.name != "*":
                out[imp.alias] = (target, imp.name)
        return out

    def _top_level(self, path: str, name: str) -> list[str]:
        if path in self.paths:
            return [s.id for s in self.symbols_in_file(path) if s.name == name and s.parent is None]
        rows = self._con.execute(
            "SELECT s.id FROM symbols s JOIN files f ON f.fk = s.fk WHERE f.path = ? AND s.name = ?"
            " AND s.parent_sk IS NULL",
            (path, name),
        ).fetchall()
        return [r[0] for r in rows]

    def _resolve_new(
        self, ref: Reference, symbols: Sequence[Symbol], targets: dict[str, tuple[str, str | None]]
    ) -> list[tuple[str, str, str]]:
        name, qual = ref.symbol_name, ref.qualifier
        if ref.role == "import":
            return []  # an import statement: a use of the module, resolved by the update
        if qual is None:
            local = [s.id for s in symbols if s.name == name and s.parent is None]
            if local:
                return [(sid, "exact", "local") for sid in local]
            found = targets.get(name)
            if found is not None and found[1] is not None:
                return [(sid, "import-resolved", "import") for sid in self._top_level(found[0], found[1])]
            return []
        if qual in ("self", "this", "cls"):
            enclosing = self.by_id.get(ref.enclosing or "")
            owner = self.by_id.get(enclosing.parent or "") if enclosing is not None else None
            if owner is not None and owner.kind in _FUNCTION_KINDS:  # a function nested in a method
                owner = self.by_id.get(owner.parent or "")
            if owner is None:
                return []
            return [(s.id, "exact", "self") for s in symbols if s.parent == owner.id and s.name == name]
        found = targets.get(qual)
        if found is not None and found[1] is None:  # `mod.name()` with `import mod`
            return [(sid, "import-resolved", "module-qualified") for sid in self._top_level(found[0], name)]
        return []


def saved_since(root: Path, con: sqlite3.Connection) -> list[str] | None:
    """The files to lay over the snapshot (saved, new or deleted since it was written), or None when the
    change is not one a few files' overlay can stand for: another commit checked out, ignore rules or
    settings changed, more than `MAX_SAVED` files."""
    stale = reader.staleness(str(root), con, reader.meta(con))
    if stale.fresh or stale.head_changed:
        return None
    changed = set(stale.modified)
    if stale.dirs_changed:
        if any(d.endswith((".gitignore", ".toml")) for d in stale.dirs_changed):
            return None
        from ctxops_code_scan.config import ScanConfig
        from ctxops_code_scan.discover import discover_dirs

        listed = [d for d in stale.dirs_changed if (root / d).is_dir()]
        if len(listed) != len(stale.dirs_changed):
            return None  # a directory removed: left to the update
        known = {r[0] for r in con.execute("SELECT path FROM dirs")}
        part = discover_dirs(root, listed, known, ScanConfig.load(root))
        indexed = {r[0] for r in con.execute("SELECT path FROM files")}
        changed.update(c.path for c in part.files if c.path not in indexed)  # new files
        if len(changed) > MAX_SAVED:
            return None
    if not changed or len(changed) > MAX_SAVED:
        return None
    return sorted(changed)
