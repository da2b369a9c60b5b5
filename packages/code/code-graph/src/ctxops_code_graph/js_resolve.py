"""Bare TypeScript/JavaScript import specifiers that name files of the repository: `tsconfig.json`
`compilerOptions.paths` and `baseUrl` (the nearest tsconfig above the importing file), and packages of
the repository by their `package.json` name, with the basics of `exports` (a string, or `"./sub"` keys
with a string or an `import`/`default`/`types` condition) and `main`/`module`/`types`."""

from __future__ import annotations

import json
import logging
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)
_JSONC = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.DOTALL)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_EXTS = (".d.ts", ".tsx", ".ts", ".mts", ".cts", ".jsx", ".js", ".mjs", ".cjs")


def _load_jsonc(path: Path) -> Any:
    text = path.read_text(encoding="utf-8", errors="replace")
    text = _JSONC.sub(lambda m: m.group(0) if m.group(0).startswith('"') else "", text)
    return json.loads(_TRAILING_COMMA.sub(r"\1", text))


def strip_ext(path: str) -> str:
    for ext in _EXTS:
        if path.endswith(ext):
            return path[: -len(ext)]
    return path


@dataclass
class _Config:
    base: str  # baseUrl, repository-relative ("" = the root); without one, the tsconfig's directory
    paths: list[tuple[str, list[str]]] = field(default_factory=list)
    has_base_url: bool = False


@dataclass
class JsAliases:
    """What a bare specifier may mean inside this repository, per tsconfig directory and package name."""

    configs: dict[str, _Config] = field(default_factory=dict)  # tsconfig directory -> its settings
    packages: dict[str, tuple[str, Any]] = field(default_factory=dict)  # name -> (directory, package.json)

    @classmethod
    def load(cls, root: Path, dirs: set[str]) -> JsAliases:
        out = cls()
        seen: set[str] = set()
        for d in sorted(dirs):
            parts = d.split("/") if d else []
            for i in range(len(parts), -1, -1):
                cand = "/".join(parts[:i])
                if cand in seen:
                    break
                seen.add(cand)
                out._read(root, cand)
        return out

    def _read(self, root: Path, directory: str) -> None:
        tsconfig = root / directory / "tsconfig.json"
        if tsconfig.is_file():
            try:
                opts = (_load_jsonc(tsconfig) or {}).get("compilerOptions") or {}
            except (OSError, ValueError, AttributeError) as exc:
                log.info("unreadable %s: %s", tsconfig, exc)
                opts = {}
            base_url = opts.get("baseUrl")
            base = posixpath.normpath(posixpath.join(directory, base_url)) if isinstance(base_url, str) else directory
            found = opts.get("paths")
            paths: dict[str, Any] = found if isinstance(found, dict) else {}
            self.configs[directory] = _Config(
                base="" if base == "." else base,
                paths=[(k, [t for t in v if isinstance(t, str)]) for k, v in paths.items() if isinstance(v, list)],
                has_base_url=isinstance(base_url, str),
            )
        package = root / directory / "package.json"
        if package.is_file():
            try:
                data = json.loads(package.read_text(encoding="utf-8", errors="replace"))
            except (OSError, ValueError) as exc:
                log.info("unreadable %s: %s", package, exc)
                return
            if isinstance(data, dict) and isinstance(data.get("name"), str):
                self.packages.setdefault(data["name"], (directory, data))

    def candidates(self, spec: str, importer: str) -> list[str]:
        """Repository paths (without extension) a bare specifier may name, most specific first."""
        out: list[str] = []
        config_dir = max((d for d in self.configs if not d or importer.startswith(d + "/")), key=len, default=None)
        if config_dir is not None:
            cfg = self.configs[config_dir]
            for pattern, targets in cfg.paths:
                if pattern.endswith("*") and spec.startswith(pattern[:-1]):
                    rest = spec[len(pattern) - 1 :]
                elif pattern == spec:
                    rest = ""
                else:
                    continue
                for target in targets:
                    mapped = target.replace("*", rest, 1)
                    out.append(strip_ext(posixpath.normpath(posixpath.join(cfg.base, mapped))))
            if cfg.has_base_url:
                out.append(strip_ext(posixpath.normpath(posixpath.join(cfg.base, spec))))
        out.extend(self._package(spec))
        return [p.removeprefix("./") for p in out]

    def _package(self, spec: str) -> list[str]:
        parts = spec.split("/")
        name = "/".join(parts[:2]) if spec.startswith("@") else parts[0]
        found = self.packages.get(name)
        if found is None:
            return []
        directory, data = found
        sub = "." + spec[len(name) :]
        exports = data.get("exports")
        target: Any = None
        if isinstance(exports, str) and sub == ".":
            target = exports
        elif isinstance(exports, dict):
            target = exports.get(sub) if sub in exports else (exports if sub == "." and "import" in exports else None)
        if isinstance(target, dict):
            target = next(
                (target[k] for k in ("types", "import", "default", "require") if isinstance(target.get(k), str)), None
            )
        if not isinstance(target, str) and sub == ".":
            target = next((data[k] for k in ("types", "module", "main") if isinstance(data.get(k), str)), "index")
        if not isinstance(target, str):
            target = sub
        return [strip_ext(posixpath.normpath(posixpath.join(directory, target)))]
