"""Which language a file is, and how to load its tree-sitter grammar and tags query (lazily)."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import PurePosixPath
from typing import Any


@dataclass(frozen=True)
class LanguageSpec:
    """A language the scanner knows: tree-sitter backed, or regex fallback when `grammar` is None."""

    name: str
    family: str  # edges never cross families; TS may import JS, C++ may include C
    extensions: tuple[str, ...]
    grammar: tuple[str, str] | None = None  # (module, function) returning the language pointer


TREE_SITTER_LANGUAGES: tuple[LanguageSpec, ...] = (
    LanguageSpec("python", "python", (".py", ".pyi"), ("tree_sitter_python", "language")),
    LanguageSpec("javascript", "js", (".js", ".jsx", ".mjs", ".cjs"), ("tree_sitter_javascript", "language")),
    LanguageSpec("typescript", "js", (".ts", ".mts", ".cts"), ("tree_sitter_typescript", "language_typescript")),
    LanguageSpec("tsx", "js", (".tsx",), ("tree_sitter_typescript", "language_tsx")),
    LanguageSpec("go", "go", (".go",), ("tree_sitter_go", "language")),
    LanguageSpec("rust", "rust", (".rs",), ("tree_sitter_rust", "language")),
    LanguageSpec("java", "java", (".java",), ("tree_sitter_java", "language")),
    LanguageSpec("c", "c", (".c", ".h"), ("tree_sitter_c", "language")),
    LanguageSpec("cpp", "c", (".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".ipp"), ("tree_sitter_cpp", "language")),
)

FALLBACK_LANGUAGES: tuple[LanguageSpec, ...] = (
    LanguageSpec("ruby", "ruby", (".rb", ".rake")),
    LanguageSpec("php", "php", (".php",)),
    LanguageSpec("kotlin", "kotlin", (".kt", ".kts")),
    LanguageSpec("swift", "swift", (".swift",)),
    LanguageSpec("shell", "shell", (".sh", ".bash", ".zsh")),
    LanguageSpec("scala", "scala", (".scala",)),
    LanguageSpec("lua", "lua", (".lua",)),
    LanguageSpec("perl", "perl", (".pl", ".pm")),
    LanguageSpec("csharp", "csharp", (".cs",)),
    LanguageSpec("elixir", "elixir", (".ex", ".exs")),
    LanguageSpec("dart", "dart", (".dart",)),
)

ALL_LANGUAGES: tuple[LanguageSpec, ...] = TREE_SITTER_LANGUAGES + FALLBACK_LANGUAGES
BY_NAME: dict[str, LanguageSpec] = {spec.name: spec for spec in ALL_LANGUAGES}
_BY_EXTENSION: dict[str, LanguageSpec] = {ext: spec for spec in ALL_LANGUAGES for ext in spec.extensions}
_SHEBANGS = {"python": "python", "python3": "python", "node": "javascript", "bash": "shell", "sh": "shell"}


def language_for_path(path: str) -> LanguageSpec | None:
    """The language of a repo-relative path by its extension (None: not a source file we map)."""
    return _BY_EXTENSION.get(PurePosixPath(path).suffix.lower())


def language_for_shebang(first_line: bytes) -> LanguageSpec | None:
    """The language named by a `#!` line, for extension-less scripts."""
    if not first_line.startswith(b"#!"):
        return None
    words = first_line[2:].decode("ascii", "replace").split()
    if not words:
        return None
    prog = words[1] if words[0].endswith("/env") and len(words) > 1 else words[0].rsplit("/", 1)[-1]
    name = _SHEBANGS.get(prog.rstrip("0123456789.") or prog) or _SHEBANGS.get(prog)
    return BY_NAME.get(name) if name else None


def family(lang: str) -> str:
    spec = BY_NAME.get(lang)
    return spec.family if spec else lang


@cache
def ts_language(name: str) -> Any:
    """The tree-sitter Language object (imports tree_sitter and the grammar wheel on first use)."""
    import tree_sitter

    spec = BY_NAME[name]
    if spec.grammar is None:
        raise ValueError(f"{name} has no tree-sitter grammar (regex fallback only)")
    module, func = spec.grammar
    return tree_sitter.Language(getattr(importlib.import_module(module), func)())


@cache
def ts_query(name: str) -> Any:
    """The compiled tags query shipped as package data (queries/<name>.scm)."""
    import tree_sitter

    text = files("ctxops_code_scan").joinpath("queries", f"{_query_file(name)}.scm").read_text("utf-8")
    return tree_sitter.Query(ts_language(name), text)


def _query_file(name: str) -> str:
    return "typescript" if name == "tsx" else name
