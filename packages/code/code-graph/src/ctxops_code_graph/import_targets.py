"""Which repository files an import statement refers to, per language, by module keys.

Every file gets keys under which other files may import it (Python: each dotted suffix of its module
path, so `src/` layouts resolve; JS/TS: its path without extension; Go: each suffix of its directory;
Java: dotted suffixes of its class path; Rust: `::` suffixes of its module path; C: path suffixes).
An import tries its candidate keys most specific first; the best match wins, ties all kept (a Go
package is every file of its directory).
"""

from __future__ import annotations

import posixpath
import sys
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ctxops_code_scan.languages import family

from .js_resolve import JsAliases

_PY_INIT = "__init__"
_STDLIB = frozenset(sys.stdlib_module_names)
_JS_EXTS = (".tsx", ".ts", ".mts", ".cts", ".jsx", ".js", ".mjs", ".cjs")


@dataclass(frozen=True)
class ImportTarget:
    path: str
    kind: str  # "module": the import binds the module; "name": it binds a member of it


class ModuleIndex:
    """Keys -> files, with how specific each key is for that file (longer suffix = more specific)."""

    def __init__(self, files: Iterable[tuple[str, str]], root: Path | None = None) -> None:
        self._keys: dict[tuple[str, str], list[tuple[int, str]]] = defaultdict(list)
        self._py_packages: set[str] = set()  # directories with an `__init__.py`
        go_dirs: set[str] = set()
        js_dirs: set[str] = set()
        for path, lang in files:
            fam = family(lang)
            for key, weight in _file_keys(path, lang):
                self._keys[(fam, key)].append((weight, path))
            if path == _PY_INIT + ".py" or path.endswith("/" + _PY_INIT + ".py"):
                self._py_packages.add(posixpath.dirname(path))
            elif fam == "go":
                go_dirs.add(posixpath.dirname(path))
            elif fam == "js":
                js_dirs.add(posixpath.dirname(path))
        self._go_modules = _go_modules(root, go_dirs) if root is not None and go_dirs else []
        self._js = JsAliases.load(root, js_dirs) if root is not None and js_dirs else None

    def _js_bare(self, module: str, near: str) -> list[str]:
        """A bare specifier through tsconfig paths/baseUrl or a package of the repository."""
        if self._js is None or module.startswith((".", "/")):
            return []
        for cand in self._js.candidates(module, near):
            hits = self.lookup("js", cand, near)
            if hits:
                return hits
        return []

    def _go(self, module: str, near: str) -> list[str]:
        """A Go import path: a module of this repository (its `go.mod` path), else the standard library
        (no dot in the first element: `context`, `net/http`) which only the Go tree itself holds
        (`src/context`), else a whole import path at the end of a directory (GOPATH, `vendor/`).
        Never a directory that merely ends like it (`golang.org/x/net/context` is not `context`)."""
        for mod_dir, mod_path in self._go_modules:
            if module == mod_path or module.startswith(mod_path + "/"):
                rel = module[len(mod_path) :].strip("/")
                want = "/".join(p for p in (mod_dir, rel) if p)
                return [p for _w, p in self._keys.get(("go", want), []) if posixpath.dirname(p) == want]
        hits = self._keys.get(("go", module))
        if not hits:
            return []
        paths = sorted({p for _w, p in hits})
        if "." not in module.split("/", 1)[0]:
            return [p for p in paths if _go_prefix(p, module) in ("", "src") or _go_prefix(p, module).endswith("/src")]
        by_dir: dict[str, list[str]] = defaultdict(list)
        for p in paths:
            by_dir[posixpath.dirname(p)].append(p)
        if len(by_dir) > 1:  # the same import path twice (vendored copies): the nearest directory
            best = max(by_dir, key=lambda d: (_shared_dirs(d + "/x", near), -d.count("/"), d))
            return by_dir[best]
        return paths

    def _python(self, key: str, near: str) -> list[str]:
        """Python 3 imports are absolute: `json` is a top-level module, never `flask/json/` (a subpackage).
        A match counts when its first component sits in a directory that is not a package; with none,
        a standard-library name stays outside the repository and any other name falls back to the
        nearest suffix match (scripts run from their own directory)."""
        hits = self._keys.get(("python", key))
        if not hits:
            return []
        depth = key.count(".") + 1
        top = [(w, p) for w, p in hits if _py_root(p, depth) not in self._py_packages]
        if top:
            best = max(w for w, _ in top)
            winners = sorted(p for w, p in top if w == best)
            return sorted(winners, key=lambda p: (-_shared_dirs(p, near), p.count("/"), p))[:1]
        if key.split(".", 1)[0] in _STDLIB:
            return []
        return self.lookup("python", key, near)

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
            py = self._python
            if name and name != "*":
                sub = py(f"{module}.{name}", importer)
                if sub:
                    return [ImportTarget(p, "module") for p in sub]
                return [ImportTarget(p, "name") for p in py(module, importer)]
            return [ImportTarget(p, "module") for p in py(module, importer)]
        if fam == "js":
            if module.startswith("node:"):
                # A bare name of Node's (the scan's `node:crypto`): what the tsconfig's `paths` or `baseUrl` map
                # it to, as tsc resolves it, else Node's own module; never a file that merely ends like it
                hits = self._js_bare(module.removeprefix("node:"), importer)
            else:
                hits = near(fam, module) or self._js_bare(module, importer)
            return [ImportTarget(p, "name" if name else "module") for p in hits]
        if fam == "go":
            return [ImportTarget(p, "module") for p in self._go(module, importer)]
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


def _go_prefix(path: str, module: str) -> str:
    """What precedes the import path in a Go file's directory (`src` in `src/net/http/x.go`)."""
    return posixpath.dirname(path)[: -len(module)].rstrip("/")


def _go_modules(root: Path, dirs: set[str]) -> list[tuple[str, str]]:
    """(directory, module path) of every `go.mod` at or above a directory of Go files, deepest first."""
    seen: set[str] = set()
    found: list[tuple[str, str]] = []
    for d in sorted(dirs):
        parts = d.split("/") if d else []
        for i in range(len(parts), -1, -1):
            cand = "/".join(parts[:i])
            if cand in seen:
                break
            seen.add(cand)
            mod = root / cand / "go.mod"
            try:
                text = mod.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            for line in text.splitlines():
                words = line.split()
                if len(words) >= 2 and words[0] == "module":
                    found.append((cand, words[1].strip('"')))
                    break
    return sorted(found, key=lambda m: (-len(m[1]), m[0]))


def _py_root(path: str, depth: int) -> str:
    """The directory holding the first of the last `depth` module components of a Python file."""
    parts = posixpath.splitext(path)[0].split("/")
    if parts[-1] == _PY_INIT:
        parts = parts[:-1]
    return "/".join(parts[: max(0, len(parts) - depth)])


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
        # An import path names a package's non-test files: `_test.go` files (package x or x_test) are
        # compiled only into that directory's tests, and the go tool never imports from `testdata/`.
        if path.endswith("_test.go") or "testdata" in parts[:-1]:
            return []
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
