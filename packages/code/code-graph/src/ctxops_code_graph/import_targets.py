"""Which repository files an import statement refers to, per language, by module keys.

Every file gets keys under which other files may import it (Python: each dotted suffix of its module
path, so `src/` layouts resolve; JS/TS: its path without extension; Go: each suffix of its directory;
Java: dotted suffixes of its class path; Rust: `::` suffixes of its module path; C: path suffixes).
An import tries its candidate keys most specific first; the best match wins, ties all kept (a Go
package is every file of its directory).
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from ctxops_code_scan.languages import family

_PY_INIT = "__init__"
_JS_EXTS = (".tsx", ".ts", ".mts", ".cts", ".jsx", ".js", ".mjs", ".cjs")


@dataclass(frozen=True)
class ImportTarget:
    path: str
    kind: str  # "module": the import binds the module; "name": it binds a member of it


class ModuleIndex:
    """Keys -> files, with how specific each key is for that file (longer suffix = more specific)."""

    def __init__(self, files: Iterable[tuple[str, str]]) -> None:
        self._keys: dict[tuple[str, str], list[tuple[int, str]]] = defaultdict(list)
        for path, lang in files:
            for key, weight in _file_keys(path, lang):
                self._keys[(family(lang), key)].append((weight, path))

    def lookup(self, fam: str, key: str, near: str = "") -> list[str]:
        hits = self._keys.get((fam, key))
        if not hits:
            return []
        best = max(w for w, _ in hits)
        winners = sorted(p for w, p in hits if w == best)
        if fam != "go" and len(winners) > 1:
            # Ambiguous suffix: the file nearest the importer, then the shallowest, then by name.
            winners = sorted(winners, key=lambda p: (-_shared_dirs(p, near), p.count("/"), p))[:1]
        return winners

    def resolve(self, lang: str, module: str, name: str | None, importer: str = "") -> list[ImportTarget]:
        fam = family(lang)
        lookup = self.lookup

        def near(f: str, key: str) -> list[str]:
            return lookup(f, key, importer)

        if fam == "python":
            if name and name != "*":
                sub = near(fam, f"{module}.{name}")
                if sub:
                    return [ImportTarget(p, "module") for p in sub]
                return [ImportTarget(p, "name") for p in near(fam, module)]
            return [ImportTarget(p, "module") for p in near(fam, module)]
        if fam == "js":
            return [ImportTarget(p, "name" if name else "module") for p in near(fam, module)]
        if fam == "go":
            parts = module.split("/")
            for i in range(len(parts)):
                hits = near(fam, "/".join(parts[i:]))
                if hits:
                    return [ImportTarget(p, "module") for p in hits]
            return []
        if fam == "java":
            if name and name != "*":
                hits = near(fam, f"{module}.{name}")
                if hits:
                    return [ImportTarget(p, "name") for p in hits]
                return [ImportTarget(p, "name") for p in near(fam, module)]  # static import
            return [ImportTarget(p, "name") for p in near(fam, f"pkg:{module}")]
        if fam == "rust":
            parts = [p for p in module.split("::") if p not in {"crate", "self", "super"}]
            if name and name != "*":
                hits = near(fam, "::".join([*parts, name]))
                if hits:
                    return [ImportTarget(p, "module") for p in hits]
            for i in range(len(parts)):
                hits = near(fam, "::".join(parts[i:]))
                if hits:
                    return [ImportTarget(p, "name") for p in hits]
            return []
        if fam == "c":
            return [ImportTarget(p, "module") for p in near(fam, module.strip("<>"))]
        return []


def _suffixes(parts: list[str], sep: str) -> list[tuple[str, int]]:
    """Every suffix of a path, weighted by length; the whole path (an exact match) weighs a bit more."""
    return [(sep.join(parts[i:]), 2 * (len(parts) - i) + (1 if i == 0 else 0)) for i in range(len(parts))]


def _shared_dirs(a: str, b: str) -> int:
    count = 0
    for x, y in zip(a.split("/")[:-1], b.split("/")[:-1], strict=False):
        if x != y:
            break
        count += 1
    return count


def _file_keys(path: str, lang: str) -> list[tuple[str, int]]:
    fam = family(lang)
    stem, _ext = posixpath.splitext(path)
    parts = stem.split("/")
    if fam == "python":
        if parts[-1] == _PY_INIT:
            parts = parts[:-1]
        return _suffixes(parts, ".") if parts else []
    if fam == "js":
        keys = [(stem, 2)]
        if parts[-1] == "index" and len(parts) > 1:
            keys.append(("/".join(parts[:-1]), 1))
        return keys
    if fam == "go":
        dirs = parts[:-1]
        return _suffixes(dirs, "/") if dirs else [("", 0)]
    if fam == "java":
        keys = _suffixes(parts, ".")
        keys += [(f"pkg:{k}", w) for k, w in _suffixes(parts[:-1], ".")]
        return keys
    if fam == "rust":
        if parts[-1] in {"mod", "lib", "main"}:
            parts = parts[:-1]
        parts = [p for p in parts if p != "src"]
        return _suffixes(parts, "::") if parts else []
    if fam == "c":
        return _suffixes(path.split("/"), "/")
    return []
