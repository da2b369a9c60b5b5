"""A full build's load path: scan workers write JSON lines, DuckDB reads them in bulk.

Symbols and references are most of the data (about 90k and 360k rows on the CPython standard library).
Turning each into a Python tuple in the parent, then boxing it value by value into DuckDB, cost more than
the parsing. Here each scan worker encodes its chunk's Symbol and Reference records as JSON lines
(msgspec, in C: a tenth of what the `csv` module costs), the parent only appends those bytes to two
files, and DuckDB's parallel JSON reader loads them. Files, skipped files and imports (a few thousand
rows) come back as plain tuples.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import msgspec
from ctxops_code_scan.languages import BY_NAME, family
from ctxops_code_scan.records import Import, ScanResult, Skipped

from .schema import TABLES

_JSON = msgspec.json.Encoder()
# JSON keys of the records (the contract's field names) -> the table's columns; `fam` and `rid` are added.
SYMBOL_KEYS = [name for name, _ in TABLES["symbols"] if name != "fam"]
REF_KEYS = [name for name, _ in TABLES["refs"] if name not in {"rid", "fam"}]


def encode_chunk(outcomes: list[ScanResult | Skipped]) -> bytes:
    """Runs in a scan worker: one chunk's outcomes as row tuples and JSON lines, msgpack-encoded."""
    files: list[tuple[Any, ...]] = []
    skipped: list[tuple[Any, ...]] = []
    imports: list[tuple[Any, ...]] = []
    types: list[tuple[Any, ...]] = []
    symbols, refs = bytearray(), bytearray()
    n_refs = 0
    for out in outcomes:
        if isinstance(out, Skipped):
            skipped.append((out.path, out.reason, out.size))
            continue
        f = out.file
        files.append((f.path, f.lang, f.size, f.mtime_ns, f.content_hash, f.parse_status, f.error))
        symbols += _JSON.encode_lines(out.symbols)
        refs += _JSON.encode_lines(out.references)
        n_refs += len(out.references)
        imports.extend((i.path, i.lang, i.module, i.name, i.alias, i.line) for i in out.imports)
        types.extend((f.path, *t) for t in out.types)
    return msgspec.msgpack.encode((files, skipped, imports, types, bytes(symbols), bytes(refs), n_refs))


@dataclass
class LoadFiles:
    """The parent's side: collects the workers' chunks into two CSV files and the small row lists."""

    directory: Path
    files: list[tuple[Any, ...]] = field(default_factory=list)
    skipped: list[tuple[Any, ...]] = field(default_factory=list)
    imports: list[Import] = field(default_factory=list)
    types: list[tuple[Any, ...]] = field(default_factory=list)
    n_refs: int = 0

    def __post_init__(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        self.symbols_json = self.directory / "symbols.jsonl"
        self.refs_json = self.directory / "refs.jsonl"
        self._sym: IO[bytes] = open(self.symbols_json, "wb")  # noqa: SIM115
        self._ref: IO[bytes] = open(self.refs_json, "wb")  # noqa: SIM115

    def add(self, blob: bytes) -> None:
        files, skipped, imports, types, sym_lines, ref_lines, n_refs = msgspec.msgpack.decode(blob)
        self.files.extend(tuple(f) for f in files)
        self.types.extend(tuple(t) for t in types)
        self.skipped.extend(tuple(s) for s in skipped)
        self.imports.extend(
            Import(path=i[0], lang=i[1], module=i[2], name=i[3], alias=i[4], line=i[5]) for i in imports
        )
        self._sym.write(sym_lines)
        self._ref.write(ref_lines)
        self.n_refs += n_refs

    def close(self) -> None:
        self._sym.close()
        self._ref.close()

    def remove(self) -> None:
        self.close()
        for path in (self.symbols_json, self.refs_json):
            path.unlink(missing_ok=True)
        with contextlib.suppress(OSError):  # not empty: something else is in there, leave it
            self.directory.rmdir()


def read_json_sql(path: Path, table: str, keys: list[str]) -> str:
    """A `read_json` call over JSON lines with the table's column types, nothing sniffed."""
    types = dict(TABLES[table])
    spec = ", ".join(f"'{key}': '{types[key]}'" for key in keys)
    literal = str(path).replace("'", "''")
    return f"read_json('{literal}', format='newline_delimited', records=true, columns={{{spec}}})"


def load_into(con: Any, load: LoadFiles, first_rid: int = 1) -> None:
    """Bulk-load symbols and references (numbered in file order from `first_rid`); `files` must be loaded."""
    load.close()
    con.execute("CREATE OR REPLACE TEMP TABLE lang_fam (lang VARCHAR, fam VARCHAR)")
    con.execute("INSERT INTO lang_fam VALUES " + ", ".join("(?, ?)" for _ in BY_NAME), _lang_fams())
    # A language the table does not know is its own family (as `family()` says).
    sym_cols = ", ".join(f"s.{n}" if n != "fam" else "coalesce(m.fam, s.lang)" for n, _ in TABLES["symbols"])
    con.execute(
        f"INSERT INTO symbols SELECT {sym_cols} FROM {read_json_sql(load.symbols_json, 'symbols', SYMBOL_KEYS)} s"
        " LEFT JOIN lang_fam m USING (lang)"
    )
    ref_cols = ", ".join(f"r.{n}" if n != "fam" else "coalesce(m.fam, f.lang, '')" for n, _ in TABLES["refs"])
    con.execute(
        f"INSERT INTO refs SELECT {ref_cols} FROM (SELECT row_number() OVER () + {int(first_rid) - 1} AS rid, *"
        f" FROM {read_json_sql(load.refs_json, 'refs', REF_KEYS)}) r"
        " LEFT JOIN files f ON f.path = r.path LEFT JOIN lang_fam m ON m.lang = f.lang"
    )
    con.execute("DROP TABLE lang_fam")


def _lang_fams() -> list[str]:
    return [value for lang in BY_NAME for value in (lang, family(lang))]
