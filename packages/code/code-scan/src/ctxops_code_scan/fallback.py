"""Regex extraction for languages without a bundled grammar: definitions by line pattern, marked `fallback`.

It finds definitions (not references): enough that no file type leaves a blank region in the map.
Nesting is approximated by indentation, which is what these languages' conventions make reliable.
"""

from __future__ import annotations

import re

from ctxops_contracts import Symbol

from .extract import Extraction
from .symbol_ids import IdAllocator

_P = re.compile
_PATTERNS: dict[str, list[tuple[re.Pattern[str], str]]] = {
    "ruby": [
        (_P(r"^(\s*)(?:class)\s+([A-Z]\w*(?:::\w+)*)"), "class"),
        (_P(r"^(\s*)module\s+([A-Z]\w*(?:::\w+)*)"), "module"),
        (_P(r"^(\s*)def\s+(?:self\.)?([\w?!=]+)"), "function"),
        (_P(r"^(\s*)([A-Z][A-Z0-9_]*)\s*="), "constant"),
    ],
    "php": [
        (_P(r"^(\s*)(?:abstract\s+|final\s+)?class\s+(\w+)"), "class"),
        (_P(r"^(\s*)interface\s+(\w+)"), "interface"),
        (_P(r"^(\s*)trait\s+(\w+)"), "trait"),
        (_P(r"^(\s*)(?:(?:public|private|protected|static|abstract|final)\s+)*function\s+&?(\w+)"), "function"),
        (_P(r"^(\s*)const\s+(\w+)"), "constant"),
    ],
    "kotlin": [
        (_P(r"^(\s*)(?:\w+\s+)*(?:class|object)\s+(\w+)"), "class"),
        (_P(r"^(\s*)(?:\w+\s+)*interface\s+(\w+)"), "interface"),
        (_P(r"^(\s*)(?:\w+\s+)*fun\s+(?:<[^>]*>\s*)?(?:\w+\.)?(\w+)"), "function"),
        (_P(r"^(\s*)(?:\w+\s+)*typealias\s+(\w+)"), "type"),
    ],
    "swift": [
        (_P(r"^(\s*)(?:\w+\s+)*(?:class|actor)\s+(\w+)"), "class"),
        (_P(r"^(\s*)(?:\w+\s+)*struct\s+(\w+)"), "struct"),
        (_P(r"^(\s*)(?:\w+\s+)*enum\s+(\w+)"), "enum"),
        (_P(r"^(\s*)(?:\w+\s+)*protocol\s+(\w+)"), "interface"),
        (_P(r"^(\s*)(?:\w+\s+)*func\s+(\w+)"), "function"),
    ],
    "shell": [
        (_P(r"^(\s*)function\s+([\w:-]+)"), "function"),
        (_P(r"^(\s*)([\w:-]+)\s*\(\)\s*\{?"), "function"),
    ],
    "scala": [
        (_P(r"^(\s*)(?:\w+\s+)*(?:class|object)\s+(\w+)"), "class"),
        (_P(r"^(\s*)(?:\w+\s+)*trait\s+(\w+)"), "trait"),
        (_P(r"^(\s*)(?:\w+\s+)*def\s+(\w+)"), "function"),
    ],
    "lua": [(_P(r"^(\s*)(?:local\s+)?function\s+([\w.:]+)"), "function")],
    "perl": [(_P(r"^(\s*)sub\s+(\w+)"), "function"), (_P(r"^(\s*)package\s+([\w:]+)"), "module")],
    "csharp": [
        (_P(r"^(\s*)(?:\w+\s+)*(?:class|record)\s+(\w+)"), "class"),
        (_P(r"^(\s*)(?:\w+\s+)*interface\s+(\w+)"), "interface"),
        (_P(r"^(\s*)(?:\w+\s+)*struct\s+(\w+)"), "struct"),
        (_P(r"^(\s*)(?:\w+\s+)*enum\s+(\w+)"), "enum"),
    ],
    "elixir": [
        (_P(r"^(\s*)defmodule\s+([\w.]+)"), "module"),
        (_P(r"^(\s*)defp?\s+(\w+[?!]?)"), "function"),
    ],
    "dart": [
        (_P(r"^(\s*)(?:abstract\s+)?class\s+(\w+)"), "class"),
        (_P(r"^(\s*)enum\s+(\w+)"), "enum"),
    ],
}
_CONTAINERS = frozenset({"class", "module", "interface", "trait", "struct", "enum"})


def extract_fallback(data: bytes, path: str, lang: str) -> Extraction:
    text = data.decode("utf-8", "replace")
    patterns = _PATTERNS.get(lang, [])
    ids = IdAllocator(lang, path)
    out = Extraction()
    stack: list[tuple[int, str, str, str]] = []  # (indent, qualname, id, kind)
    for lineno, line in enumerate(text.splitlines(), start=1):
        for pattern, kind in patterns:
            match = pattern.match(line)
            if not match:
                continue
            indent = len(match.group(1).expandtabs())
            name = match.group(2)
            while stack and stack[-1][0] >= indent:
                stack.pop()
            parent = stack[-1] if stack else None
            real_kind = "method" if kind == "function" and parent and parent[3] in _CONTAINERS else kind
            qualname = f"{parent[1]}.{name}" if parent else name
            sid = ids.allocate(qualname, real_kind)
            out.symbols.append(
                Symbol(
                    id=sid,
                    name=name.rsplit(".", 1)[-1],
                    qualname=qualname,
                    kind=real_kind,  # type: ignore[arg-type]
                    lang=lang,
                    path=path,
                    line=lineno,
                    end_line=lineno,
                    signature=None,
                    doc=None,
                    parent=parent[2] if parent else None,
                    exported=not name.startswith("_"),
                )
            )
            if kind in _CONTAINERS or kind == "function":
                stack.append((indent, qualname, sid, real_kind))
            break
    return out
