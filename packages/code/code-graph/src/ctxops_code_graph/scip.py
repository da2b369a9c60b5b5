"""`cq export --scip FILE`: the index as a SCIP index (Sourcegraph's protobuf), definitions and references.

Encoded by hand (the wire format is varints and length-prefixed fields; no protobuf runtime needed), one
document at a time: an `Index` is written as its metadata followed by one length-prefixed `documents`
field per file, which is the same bytes a protobuf library writes for the whole message, without holding
the whole index in memory.

Symbols: ``cq . <repository> . `<path>`/<descriptors>`` where the descriptors follow the symbol's parents
(a class ``Name#``, a function or method ``name().``, anything else ``name.``): a method is
``cq . repo . `pkg/m.py`/Class#method().``. References are the index's resolved edges whose confidence
is not ``name-only`` (the "possible" answers are left out: SCIP has no notion of a guess). Positions are
0-based lines and UTF-8 byte offsets in the line (``position_encoding`` says so); a definition's range is
its name found on its line; a reference's is its name at the recorded column.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from . import lookup_db
from .layout import IndexLayout

TOOL_NAME = "ctxops-cq"
SCHEME = "cq"
# SymbolInformation.Kind values (scip.proto).
KINDS = {
    "class": 7,
    "constant": 8,
    "constructor": 9,
    "enum": 11,
    "field": 15,
    "function": 17,
    "interface": 21,
    "method": 26,
    "module": 29,
    "namespace": 30,
    "property": 41,
    "struct": 49,
    "trait": 53,
    "type": 54,
    "variable": 61,
}
TYPE_KINDS = {"class", "enum", "interface", "struct", "trait", "type"}
CALLABLE_KINDS = {"function", "method", "constructor"}
NAMESPACE_KINDS = {"module", "namespace"}
ROLE_DEFINITION = 1
ROLE_IMPORT = 2
ROLE_WRITE = 4
ROLE_READ = 8
UTF8_OFFSETS = 1  # PositionEncoding.UTF8CodeUnitOffsetFromLineStart
LANGUAGES = {"python": "Python", "go": "Go", "typescript": "TypeScript", "tsx": "TSX", "javascript": "JavaScript"}
_SIMPLE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+-$")


@dataclass
class ScipReport:
    path: str
    documents: int
    symbols: int
    occurrences: int
    definitions: int
    references: int
    bytes: int


# -- wire format -----------------------------------------------------------------------------------------


def _varint(n: int) -> bytes:
    if n < 0:
        n += 1 << 64
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _len_field(field: int, data: bytes) -> bytes:
    return _varint(field << 3 | 2) + _varint(len(data)) + data


def _str(field: int, text: str) -> bytes:
    return _len_field(field, text.encode("utf-8")) if text else b""


def _int(field: int, n: int) -> bytes:
    return _varint(field << 3) + _varint(n) if n else b""


def _packed(field: int, values: list[int]) -> bytes:
    return _len_field(field, b"".join(_varint(v) for v in values))


def occurrence(rng: list[int], symbol: str, roles: int) -> bytes:
    return _packed(1, rng) + _str(2, symbol) + _int(3, roles)


def symbol_information(symbol: str, kind: int, display_name: str, documentation: list[str], enclosing: str) -> bytes:
    return (
        _str(1, symbol)
        + b"".join(_str(3, d) for d in documentation)
        + _int(5, kind)
        + _str(6, display_name)
        + _str(8, enclosing)
    )


def document(language: str, path: str, occurrences: list[bytes], symbols: list[bytes]) -> bytes:
    return (
        _str(1, path)
        + b"".join(_len_field(2, o) for o in occurrences)
        + b"".join(_len_field(3, s) for s in symbols)
        + _str(4, language)
        + _int(6, UTF8_OFFSETS)
    )


def metadata(project_root: str, version: str, arguments: list[str]) -> bytes:
    tool = _str(1, TOOL_NAME) + _str(2, version) + b"".join(_str(3, a) for a in arguments)
    return _int(1, 0) + _len_field(2, tool) + _str(3, project_root) + _int(4, 1)  # text encoding UTF8


# -- symbols ---------------------------------------------------------------------------------------------


def escape_name(name: str) -> str:
    if name and all(c in _SIMPLE for c in name):
        return name
    return "`" + name.replace("`", "``") + "`"


def _escape_space(text: str) -> str:
    return text.replace(" ", "  ") or "."


def descriptor(name: str, kind: str, disambiguator: str = "") -> str:
    n = escape_name(name)
    if kind in TYPE_KINDS:
        return n + "#"
    if kind in CALLABLE_KINDS:
        return f"{n}({disambiguator})."
    if kind in NAMESPACE_KINDS:
        return n + "/"
    return n + "."


class _Symbols:
    """SCIP symbol strings for the snapshot's symbols, built from each one's chain of parents."""

    def __init__(self, con: sqlite3.Connection, package: str) -> None:
        self.prefix = f"{SCHEME} . {_escape_space(package)} . "
        self.rows: dict[int, tuple[str, str, str, int, int, int | None, str | None, str | None]] = {}
        for sk, name, kind, path, line, end_line, parent, signature, doc in con.execute(
            "SELECT s.sk, s.name, s.kind, f.path, s.line, s.end_line, s.parent_sk, s.signature, s.doc"
            " FROM symbols s JOIN files f ON f.fk = s.fk"
        ):
            self.rows[sk] = (name or "", kind or "", path, line or 0, end_line or 0, parent, signature, doc)
        self.ids: dict[int, str] = dict(con.execute("SELECT sk, id FROM symbols").fetchall())
        self._cache: dict[int, str] = {}

    def disambiguator(self, sk: int) -> str:
        """`+N` for the N-th redefinition of a callable (the index's id says `name(+N).`, as SCIP does)."""
        sid, name = self.ids.get(sk, ""), self.rows[sk][0]
        marker = f"{name}(+"
        pos = sid.rfind(marker)
        if pos < 0:
            return ""
        digits = sid[pos + len(marker) :].split(")", 1)[0]
        return f"+{digits}" if digits.isdigit() else ""

    def symbol(self, sk: int) -> str:
        got = self._cache.get(sk)
        if got is not None:
            return got
        chain: list[str] = []
        seen: set[int] = set()
        cur: int | None = sk
        path = ""
        while cur is not None and cur in self.rows and cur not in seen:
            seen.add(cur)
            name, kind, path, *_rest = self.rows[cur]
            chain.append(descriptor(name, kind, self.disambiguator(cur) if kind in CALLABLE_KINDS else ""))
            cur = self.rows[cur][5]
        text = self.prefix + escape_name(path) + "/" + "".join(reversed(chain))
        self._cache[sk] = text
        return text


def _name_range(line_text: bytes, name: bytes, start: int) -> tuple[int, int] | None:
    """The byte range of ``name`` as a whole identifier in the line, at ``start`` or the first one after."""
    if not name:
        return None
    pos = max(0, start)
    n = len(name)
    while True:
        found = line_text.find(name, pos)
        if found < 0:
            return None
        before = line_text[found - 1 : found]
        after = line_text[found + n : found + n + 1]
        if not _ident_byte(before) and not _ident_byte(after):
            return found, found + n
        pos = found + 1


def _ident_byte(b: bytes) -> bool:
    return bool(b) and (b.isalnum() or b in (b"_", b"$") or b[0] >= 0x80)


# -- export ----------------------------------------------------------------------------------------------


def export_scip(root: Path, dest: Path, *, version: str = "", max_file_bytes: int = 8 << 20) -> ScipReport:
    """Write the current index of ``root`` as a SCIP index to ``dest``."""
    root = root.resolve()
    layout = IndexLayout(root)
    con = lookup_db.open_reader(layout)
    try:
        return _write(con, root, dest, version, max_file_bytes)
    finally:
        con.close()


def _write(con: sqlite3.Connection, root: Path, dest: Path, version: str, max_file_bytes: int) -> ScipReport:
    symbols = _Symbols(con, root.name)
    defs_by_file: dict[int, list[int]] = defaultdict(list)
    for sk, fk in con.execute("SELECT sk, fk FROM symbols"):
        defs_by_file[fk].append(sk)
    # One target per reference: a rid with several non-guess edges (an ambiguous call) is left out.
    targets: dict[int, set[int]] = defaultdict(set)
    for rid, dst in con.execute(
        "SELECT rid, dst_sk FROM edges WHERE rid IS NOT NULL AND dst_sk IS NOT NULL AND confidence <> 'name-only'"
    ):
        targets[rid].add(dst)
    refs_by_file: dict[int, list[tuple[int, int, str, str, int]]] = defaultdict(list)
    for rid, fk, line, col, role, name in con.execute("SELECT rid, fk, line, col, role, symbol_name FROM refs"):
        dst = targets.get(rid)
        if dst is None:
            continue
        if len(dst) > 1:
            # A call of a class resolves to the class and its constructor: the occurrence names the class.
            dst = {d for d in dst if d in symbols.rows and symbols.rows[d][0] == name}
        if len(dst) == 1:
            refs_by_file[fk].append((line or 0, col or 0, role or "", name or "", next(iter(dst))))
    files = con.execute("SELECT fk, path, lang FROM files ORDER BY path").fetchall()
    n_docs = n_syms = n_defs = n_refs = 0
    informed: set[str] = set()
    tmp = dest.with_name(dest.name + ".tmp")
    with open(tmp, "wb") as out:
        out.write(_len_field(1, metadata(root.as_uri(), version, ["export", "--scip"])))
        for fk, path, lang in files:
            lines = _read_lines(root / path, max_file_bytes)
            if lines is None:
                continue
            occs: list[tuple[list[int], bytes]] = []
            infos: list[bytes] = []
            for sk in defs_by_file.get(fk, ()):
                name, kind, _p, line, _end, parent, signature, doc = symbols.rows[sk]
                sym = symbols.symbol(sk)
                if 0 < line <= len(lines):
                    rng = _name_range(lines[line - 1], name.encode(), 0)
                    if rng is not None:
                        r = [line - 1, rng[0], rng[1]]
                        occs.append((r, occurrence(r, sym, ROLE_DEFINITION)))
                        n_defs += 1
                if sym in informed:  # a redefined variable: one symbol, several definitions, one information
                    continue
                informed.add(sym)
                docs = [d for d in (_signature_doc(name, signature, lang), doc) if d]
                enclosing = symbols.symbol(parent) if parent is not None and parent in symbols.rows else ""
                infos.append(symbol_information(sym, KINDS.get(kind, 0), name, docs, enclosing))
                n_syms += 1
            placed: set[tuple[int, int, int]] = set()  # one occurrence per (range, symbol): `inherit` and `read`
            for line, col, role, name, dst in refs_by_file.get(fk, ()):
                if not (0 < line <= len(lines)) or dst not in symbols.rows:
                    continue
                rng = _name_range(lines[line - 1], name.encode(), col)
                if rng is None:
                    continue
                r = [line - 1, rng[0], rng[1]]
                if (r[0], r[1], dst) in placed:
                    continue
                placed.add((r[0], r[1], dst))
                roles = ROLE_IMPORT if role == "import" else ROLE_WRITE if role == "write" else ROLE_READ
                occs.append((r, occurrence(r, symbols.symbol(dst), roles)))
                n_refs += 1
            occs.sort(key=lambda o: o[0])
            doc_bytes = document(LANGUAGES.get(lang or "", lang or ""), path, [o for _r, o in occs], infos)
            out.write(_len_field(2, doc_bytes))
            n_docs += 1
    tmp.replace(dest)
    return ScipReport(
        path=str(dest),
        documents=n_docs,
        symbols=n_syms,
        occurrences=n_defs + n_refs,
        definitions=n_defs,
        references=n_refs,
        bytes=dest.stat().st_size,
    )


def _signature_doc(name: str, signature: str | None, lang: str | None) -> str:
    if not signature:
        return ""
    fence = (lang or "").lower()
    return f"```{fence}\n{name}{signature}\n```"


def _read_lines(path: Path, limit: int) -> list[bytes] | None:
    if path.is_symlink():
        return None
    try:
        with open(path, "rb") as fh:
            data: bytes = fh.read(limit + 1)
    except OSError:
        return None
    if len(data) > limit:
        return None
    return data.split(b"\n")
