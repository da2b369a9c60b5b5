"""Answers right after a save, without waiting for the index update.

An update costs a fresh process most of a CPU-second (DuckDB, resolution, the snapshot); on a loaded
machine that is longer than a query's deadline, and the answer would then come from the old snapshot.
The saved files are extracted here instead (one tree-sitter parse each) and laid over the snapshot:
`definition_rows` for the fast path of `cq def NAME`, `SavedFiles` for every other index command (refs,
callers, brief, ...). The detached update still runs and commits, for the next query.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path

from ctxops_code_graph import reader

TYPE_CHECKING = False  # the fast path imports this module: no `typing` import
if TYPE_CHECKING:
    from ctxops_code_graph.import_targets import ModuleIndex
    from ctxops_code_scan.records import ScanResult
    from ctxops_contracts import Reference, Symbol


def scan_saved(root: str | Path, paths: Iterable[str]) -> dict[str, ScanResult]:
    """The saved files extracted as the update will extract them (one tree-sitter parse each), by path; a
    file deleted, or skipped by rule now, has none (the update removes it from the index)."""
    from ctxops_code_scan.config import ScanConfig
    from ctxops_code_scan.languages import language_for_path
    from ctxops_code_scan.records import ScanResult as Scanned
    from ctxops_code_scan.scan import scan_file

    root = Path(root)
    config = ScanConfig.load(root)
    scans: dict[str, ScanResult] = {}
    for path in sorted(paths):
        spec = language_for_path(path)
        outcome = scan_file(root, path, spec.name, config) if spec is not None else None
        if isinstance(outcome, Scanned):
            scans[path] = outcome
    return scans


def definition_rows(
    con: sqlite3.Connection, name: str, modified: Sequence[str], scans: dict[str, ScanResult]
) -> list[tuple[object, ...]]:
    """The rows (`reader.SYMBOL_SELECT` columns) of the plain name's definitions, best first, as the
    index will hold them once the `modified` files (indexed, their stat changed; `scans`: `scan_saved`'s)
    are reindexed."""
    saved = set(modified)
    rows = [row for row in reader.definition_rows(con, name) if row[5] not in saved]
    for path, outcome in scans.items():
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


def names(con: sqlite3.Connection, paths: Collection[str], scans: dict[str, ScanResult], near: str | None) -> list[str]:
    """`CodeIndex.names` as it will answer once the saved ``paths`` are reindexed (``scans``: `scan_saved`'s):
    a name only the saved files defined is gone, the names they define now are in. With ``near``, the
    candidates `reader.names_near` picks (plain names); without, every name and qualified name."""
    paths = sorted(paths)
    if near is not None:
        found = set(reader.names_near(con, near))
        now = {s.name for scan in scans.values() for s in scan.symbols if reader.is_near(near, s.name)}
    else:
        from ctxops_code_graph import lookup_queries

        found = set(lookup_queries.names(con))
        now = {n for scan in scans.values() for s in scan.symbols for n in (s.name, s.qualname)}
    in_saved = _paths_in(paths)
    before = {
        r[0]
        for r in con.execute(
            f"SELECT s.name FROM symbols s JOIN files f ON f.fk = s.fk WHERE {in_saved}"
            f" UNION SELECT s.qualname FROM symbols s JOIN files f ON f.fk = s.fk WHERE {in_saved}",
            [*paths, *paths],
        )
    }
    doubt = sorted((found & before) - now)  # defined in a saved file before the save, not now
    still: set[str] = set()
    for i in range(0, len(doubt), 400):
        part = doubt[i : i + 400]
        marks = ", ".join("?" for _ in part)
        still.update(
            r[0]
            for r in con.execute(
                f"SELECT s.name FROM symbols s JOIN files f ON f.fk = s.fk WHERE s.name IN ({marks})"
                f" AND NOT {in_saved} UNION SELECT s.qualname FROM symbols s JOIN files f ON f.fk = s.fk"
                f" WHERE s.qualname IN ({marks}) AND NOT {in_saved}",
                [*part, *paths, *part, *paths],
            )
        )
    return sorted((found - (set(doubt) - still)) | now)


def saved_note(paths: Sequence[str]) -> str:
    """What an answer that read saved files says about it (text and `--json` notes)."""
    shown = ", ".join(paths[:3]) + (f" (+{len(paths) - 3})" if len(paths) > 3 else "")
    return f"read from the saved files {shown}; the index update runs in the background"


# What `cq map` over saved files cannot count yet (`SavedFiles.file_edges`).
MAP_NOTE = (
    "the saved files' uses by name only, and such uses of their new definitions, count in this ranking once"
    " the update commits"
)


def _paths_in(paths: Collection[str], column: str = "f.path") -> str:
    return f"{column} IN (" + ", ".join("?" for _ in paths) + ")" if paths else "0"


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
        self.root = root
        self.paths = frozenset(paths)
        self._con = con
        self.scans = scan_saved(root, self.paths)
        self.by_id = {s.id: s for scan in self.scans.values() for s in scan.symbols}
        self._edges: list[tuple[Reference, str, str, str]] | None = None  # (use, target id, confidence, resolution)
        self._langs: dict[str, str | None] | None = None
        self._modules: ModuleIndex | None = None
        self._file_edges: list[tuple[str, str, float]] | None = None
        self._moved: bool | None = None

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

    def names(self, near: str | None) -> list[str]:
        return names(self._con, self.paths, self.scans, near)

    # -- the file graph: `cq deps`, `cq map` (`ctxops_code_graph.index.FileFacts`) -------------------------

    def file_langs(self) -> dict[str, str | None]:
        """Every file and its language as the update will hold them: the snapshot's, less the deleted, plus the new."""
        if self._langs is None:
            from ctxops_code_graph import lookup_queries

            langs = {p: lang for p, lang in lookup_queries.file_langs(self._con).items() if p not in self.paths}
            langs.update((p, scan.file.lang) for p, scan in self.scans.items())
            self._langs = langs
        return self._langs

    def files_moved(self) -> bool:
        """True when files were added or removed: then any import may point elsewhere (the update resolves
        them all again)."""
        if self._moved is None:
            indexed = self._con.execute(f"SELECT f.path FROM files f WHERE {_paths_in(self.paths)}", [*self.paths])
            self._moved = {r[0] for r in indexed} != set(self.scans)
        return self._moved

    def import_links(self, path: str | None = None) -> list[tuple[str, str, str | None]]:
        """(importer, module, target file or None: outside the repository) of the imports of ``path`` (None:
        of every file) as the update will resolve them: a saved file's imports read from it, and with files
        added or removed every other import resolved again; otherwise the snapshot's targets."""
        out = [link for p in self.scans if path in (None, p) for link in self._saved_links(p)]
        if path is not None and path in self.paths:
            return out
        where, args = ("", []) if path is None else (" WHERE f.path = ?", [path])
        if self.files_moved():
            rows = self._con.execute(
                "SELECT DISTINCT f.path, f.lang, i.module, i.name, i.alias, i.line FROM imports i"
                " JOIN files f ON f.fk = i.fk" + where,
                args,
            ).fetchall()
            for p, lang, module, name, _alias, _line in rows:
                if p not in self.paths:
                    out.extend(self._link(p, lang, module, name))
        else:
            rows = self._con.execute(
                "SELECT f.path, i.module, t.path FROM imports i JOIN files f ON f.fk = i.fk"
                " LEFT JOIN files t ON t.fk = i.target_fk" + where,
                args,
            ).fetchall()
            out.extend(row for row in rows if row[0] not in self.paths)
        return out

    def importers(self, path: str) -> list[str]:
        """The files that import ``path`` as the update will resolve them."""
        if self.files_moved():
            found = {p for p, _m, target in self.import_links() if target == path}
        else:
            from ctxops_code_graph import lookup_queries

            found = {p for p in lookup_queries.importers_of(self._con, path) if p not in self.paths}
            found.update(p for saved in self.scans for p, _m, target in self._saved_links(saved) if target == path)
        return sorted(found - {path})

    def _saved_links(self, path: str) -> list[tuple[str, str, str | None]]:
        known = self._known_targets(path)
        out: list[tuple[str, str, str | None]] = []
        for imp in self.scans[path].imports:
            targets = known.get((imp.module, imp.name))
            if targets is None:
                out.extend(self._link(path, imp.lang, imp.module, imp.name))
            else:
                out.extend((path, imp.module, t) for t in dict.fromkeys(targets))
        return out

    def _known_targets(self, path: str) -> dict[tuple[str, str | None], list[str | None]]:
        """(module, name) -> the snapshot's targets of that import of a saved file before the save (None:
        outside the repository); nothing once files were added or removed (any may point elsewhere now)."""
        known: dict[tuple[str, str | None], list[str | None]] = {}
        if not self.files_moved():
            for module, name, target in self._con.execute(
                "SELECT i.module, i.name, t.path FROM imports i JOIN files f ON f.fk = i.fk"
                " LEFT JOIN files t ON t.fk = i.target_fk WHERE f.path = ? ORDER BY i.rowid",
                (path,),
            ):
                known.setdefault((module, name), []).append(target)
        return known

    def _link(self, importer: str, lang: str, module: str, name: str | None) -> list[tuple[str, str, str | None]]:
        if self._modules is None:
            from ctxops_code_graph.import_targets import ModuleIndex

            self._modules = ModuleIndex([(p, lang) for p, lang in self.file_langs().items() if lang], self.root)
        targets = self._modules.resolve(lang, module, name, importer)
        return [(importer, module, t.path) for t in targets] or [(importer, module, None)]

    def paths_matching(self, term: str) -> list[str]:
        return [p for p in self.file_langs() if term in p.lower()]

    def symbol_matches_by_file(self, term: str) -> list[tuple[str, int]]:
        from ctxops_code_graph import lookup_queries

        rows = [r for r in lookup_queries.symbol_matches_by_file(self._con, term) if r[0] not in self.paths]
        for p, scan in self.scans.items():
            count = sum(1 for s in scan.symbols if term in s.name.lower())
            if count:
                rows.append((p, count))
        return rows

    def file_edges(self) -> list[tuple[str, str, float]]:
        """The file graph as the update will hold it, but for the saved files' uses by name only (they count
        once the update commits): the saved files' imports and certain uses replace their rows; with files
        added or removed every import edge is made again from `import_links`."""
        if self._file_edges is None:
            files = self.file_langs()
            moved = self.files_moved()
            edges = [
                (src, dst, weight)
                for src, dst, kind, weight in self._con.execute(
                    "SELECT a.path, b.path, e.kind, e.weight FROM file_edges e JOIN files a ON a.fk = e.src_fk"
                    " JOIN files b ON b.fk = e.dst_fk"
                )
                if src not in self.paths
                and dst in files
                and not (moved and kind == "import")
                and not (dst in self.paths and kind != "import")  # uses of a saved file: below
            ]
            counts = self._saved_out()
            # Other files' uses of a saved file's definitions, while the definition is still there.
            from ctxops_code_graph.duck_store import NAME_ONLY_FILE_WEIGHT

            for user, dst_id, used, confidence in self._uses_of_saved():
                if dst_id in self.by_id:
                    weight = NAME_ONLY_FILE_WEIGHT if confidence == "name-only" else 1.0
                    counts[(user, used)] = counts.get((user, used), 0.0) + weight
            if moved:  # every other file's imports, resolved again
                for importer, _module, target in self.import_links():
                    if importer not in self.paths and target is not None and target != importer:
                        counts[(importer, target)] = counts.get((importer, target), 0.0) + 1.0
            edges.extend((src, dst, weight) for (src, dst), weight in counts.items())
            self._file_edges = edges
        return self._file_edges

    def _uses_of_saved(self) -> list[tuple[str, str, str, str]]:
        """(file, symbol id, its file, confidence) of the snapshot's uses of the saved files' definitions
        from other files."""
        rows = self._con.execute(
            "SELECT f.path, d.id, df.path, x.confidence FROM edges x JOIN files f ON f.fk = x.fk"
            " JOIN symbols d ON d.sk = x.dst_sk JOIN files df ON df.fk = d.fk"
            f" WHERE {_paths_in(self.paths, 'df.path')} AND x.kind <> 'import'",
            [*self.paths],
        ).fetchall()
        return [r for r in rows if r[0] not in self.paths]

    def _saved_out(self) -> dict[tuple[str, str], float]:
        """(file, file it uses) -> weight of the saved files' imports and certain uses, as they are now."""
        counts: dict[tuple[str, str], float] = {}
        for src, _module, dst in (x for p in self.scans for x in self._saved_links(p)):
            if dst is not None and dst != src:
                counts[(src, dst)] = counts.get((src, dst), 0.0) + 1.0
        for ref, dst_id, _conf, _res in self.edges():
            dst_path = self._path_of(dst_id)
            if ref.role != "import" and dst_path is not None and dst_path != ref.path:
                counts[(ref.path, dst_path)] = counts.get((ref.path, dst_path), 0.0) + 1.0
        return counts

    def _saved_out_before(self) -> dict[tuple[str, str], float]:
        """`_saved_out` of the saved files as the snapshot holds them (before the save)."""
        counts: dict[tuple[str, str], float] = {}
        marks = _paths_in(self.paths)
        rows = self._con.execute(
            "SELECT f.path, t.path FROM imports i JOIN files f ON f.fk = i.fk JOIN files t ON t.fk = i.target_fk"
            f" WHERE {marks} UNION ALL SELECT f.path, df.path FROM edges x JOIN files f ON f.fk = x.fk"
            " JOIN symbols d ON d.sk = x.dst_sk JOIN files df ON df.fk = d.fk"
            f" WHERE {marks} AND x.confidence <> 'name-only' AND x.kind <> 'import'",
            [*self.paths, *self.paths],
        )
        for src, dst in rows:
            if dst != src:
                counts[(src, dst)] = counts.get((src, dst), 0.0) + 1.0
        return counts

    def file_ranks(self) -> dict[str, float]:
        """The index's ranks when the saved files import and use the same files as before and keep every
        definition other files use (no file added or removed); otherwise PageRank over `file_edges` (the
        index's are of the graph before the save)."""
        if (
            not self.files_moved()
            and self._saved_out() == self._saved_out_before()
            and all(dst_id in self.by_id for _src, dst_id, _dst, _conf in self._uses_of_saved())
        ):
            from ctxops_code_graph import lookup_queries

            return lookup_queries.file_ranks(self._con)
        from ctxops_code_graph.rank import pagerank

        return pagerank(self.file_langs().keys(), self.file_edges())

    def key_symbols(self, path: str, limit: int) -> list[Symbol]:
        """As `lookup_queries.key_symbols`; a saved file's top-level symbols by how often the snapshot saw them
        used (a new one: not yet), then by line."""
        from ctxops_code_graph.index import SnapshotFacts

        if path not in self.paths:
            return SnapshotFacts(self._con).key_symbols(path, limit)
        top = [s for s in self.symbols_in_file(path) if s.parent is None]
        used = dict(
            self._con.execute(
                "SELECT s.id, (SELECT count(*) FROM edges e WHERE e.dst_sk = s.sk) FROM symbols s"
                " JOIN files f ON f.fk = s.fk WHERE f.path = ? AND s.parent_sk IS NULL",
                (path,),
            ).fetchall()
        )
        return sorted(top, key=lambda s: (-used.get(s.id, 0), s.line))[:limit]

    def _path_of(self, symbol_id: str) -> str | None:
        found = self.by_id.get(symbol_id)
        if found is not None:
            return found.path
        row = self._con.execute(
            f"SELECT f.path FROM symbol_rows s JOIN files f ON f.fk = s.fk WHERE {reader.ID_WHERE}",
            reader.id_params(symbol_id),
        ).fetchone()
        return None if row is None or row[0] in self.paths else str(row[0])

    def _resolve_file(self, path: str) -> list[tuple[Reference, str, str, str]]:
        scan = self.scans[path]
        con = self._con
        key = con.execute("SELECT fk FROM files WHERE path = ?", (path,)).fetchone()
        old_refs = con.execute(
            "SELECT r.rid, r.symbol_name, r.qualifier, r.role, e.id FROM refs r"
            f" LEFT JOIN symbols e ON e.sk = r.enclosing_sk WHERE {reader.file_refs_sql()} ORDER BY r.line, r.col",
            (None if key is None else key[0],),
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
        saved file's imports: the snapshot's target for the same import before the save, a new one (or any,
        once files were added or removed) resolved as the update will (`import_links`)."""
        known = self._known_targets(path)
        out: dict[str, tuple[str, str | None]] = {}
        for imp in self.scans[path].imports:
            if not imp.alias or imp.name == "*":
                continue
            targets = known.get((imp.module, imp.name))
            if targets is None:
                targets = [t for _p, _m, t in self._link(path, imp.lang, imp.module, imp.name)]
            target = next((t for t in reversed(targets) if t), None)
            if target is not None:
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
