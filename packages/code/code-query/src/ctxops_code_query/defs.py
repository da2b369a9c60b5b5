"""How a definition reads in an answer: ``kind qualname(signature)  # doc`` and its first body lines.

Stdlib only (no contracts): shared by `cq def` on the normal path (`commands`) and the fresh-process
fast path (`fastpath`), which pass `Symbol` records and plain row objects with the same attributes.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `from typing import ...`: typing costs a fresh process milliseconds

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Protocol

    class SymbolLike(Protocol):
        @property
        def name(self) -> str: ...
        @property
        def qualname(self) -> str: ...
        @property
        def kind(self) -> str: ...
        @property
        def path(self) -> str: ...
        @property
        def line(self) -> int: ...
        @property
        def end_line(self) -> int: ...
        @property
        def signature(self) -> str | None: ...
        @property
        def doc(self) -> str | None: ...


BODY_PREVIEW_HITS = 3
BODY_PREVIEW_LINES = 4
CALLABLE_KINDS = frozenset({"function", "method", "class", "struct", "interface", "trait", "enum", "macro"})
_VALUE_KINDS = frozenset({"field", "variable", "constant", "property"})


def with_signature(shown: str, name: str, signature: str | None, kind: str | None = None) -> str:
    """``name(params) -> ret`` for callables, the class header for classes, ``name: type`` otherwise."""
    sig = (signature or "").strip()
    if not sig:
        return shown
    if sig.startswith("[") and kind in _VALUE_KINDS:
        return f"{shown}: {sig}"  # a Go field or variable of type []T or [N]T, not type parameters
    if sig.startswith(("(", "<", "[")):
        return shown + sig
    if sig.startswith(name):
        return shown + sig[len(name) :]
    return f"{shown}: {sig}"


def describe(symbol: SymbolLike, *, doc: bool = True, signature: bool = True) -> str:
    """``kind qualname(signature)`` and the first doc line: a definition without its body. Without
    ``signature`` (search hits, where the doc line is what tells them apart) it is ``kind qualname``."""
    name = with_signature(symbol.qualname, symbol.name, symbol.signature, symbol.kind) if signature else symbol.qualname
    head = f"{symbol.kind} {name}"
    if doc and symbol.doc:
        head += f"  # {symbol.doc}"
    return head


def body_preview(file_lines: Callable[[str], list[str]], symbol: SymbolLike) -> list[str]:
    """The first lines of a definition's body, dedented (the line after the signature onwards)."""
    if symbol.kind not in CALLABLE_KINDS or symbol.end_line <= symbol.line:
        return []
    lines = file_lines(symbol.path)
    start = symbol.line  # 0-based index of the line after the definition line
    stop = min(symbol.end_line, start + BODY_PREVIEW_LINES, len(lines))
    body = [ln for ln in lines[start:stop] if ln.strip()]
    if not body:
        return []
    from textwrap import dedent

    out = dedent("\n".join(body)).splitlines()
    if symbol.end_line > stop:
        out.append(f"... ({symbol.end_line - stop} more lines: cq open {symbol.path}:{symbol.name})")
    return out


def definition_text(symbol: SymbolLike, preview: list[str]) -> str:
    """A `def` hit's text: the description, then the body preview (which starts with the docstring when
    there is one, so the doc line would repeat it)."""
    return "\n".join([describe(symbol, doc=not preview), *preview])


def read_lines(root: str, path: str) -> list[str]:
    """Lines of a repository file (missing or unreadable files give [])."""
    try:
        with open(f"{root}/{path}", "rb") as fh:  # not pathlib: the fast path does not import it
            data = fh.read()
    except OSError:
        data = b""
    return data.decode("utf-8", "replace").splitlines()
