"""A full build's load path: scan workers write CSV rows, DuckDB reads them in bulk.

Symbols and references are most of the data (about 90k and 360k rows on the CPython standard library).
Turning each into a Python tuple in the parent, then boxing it value by value into DuckDB, cost more than
the parsing; here each scan worker formats its chunk's rows as CSV text (the `csv` module, in C) and
the parent only appends that text to two files, which DuckDB's parallel CSV reader loads. Files,
skipped files and imports (a few thousand rows) come back as plain tuples.

CSV cannot tell an empty string from NULL; every empty field loads as NULL. The scanner never emits an
empty string in these columns (names, ids and qualifiers are never empty; a missing signature, doc or
qualifier is None), so nothing is lost.
"""

from __future__ import annotations

import contextlib
import csv
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import msgspec
from ctxops_code_scan.languages import family
from ctxops_code_scan.records import Import, ScanResult, Skipped

from .schema import TABLES

# Column order of the CSV files; refs get their `rid` from the load (file order).
SYMBOL_COLUMNS = [name for name, _ in TABLES["symbols"]]
REF_COLUMNS = [name for name, _ in TABLES["refs"] if name != "rid"]


def encode_chunk(outcomes: list[ScanResult | Skipped]) -> bytes:
    """Runs in a scan worker: one chunk's outcomes as row tuples and CSV text, msgpack-encoded."""
    files: list[tuple[Any, ...]] = []
    skipped: list[tuple[Any, ...]] = []
    imports: list[tuple[Any, ...]] = []
    sym_buf, ref_buf = io.StringIO(), io.StringIO()
    sym_out = csv.writer(sym_buf, lineterminator="\n")
    ref_out = csv.writer(ref_buf, lineterminator="\n")
    n_refs = 0
    for out in outcomes:
        if isinstance(out, Skipped):
            skipped.append((out.path, out.reason, out.size))
            continue
        f = out.file
        path, lang = f.path, f.lang or ""
        fam = family(lang)
        files.append((path, f.lang, f.size, f.mtime_ns, f.content_hash, f.parse_status, f.error))
        sym_out.writerows(
            (
                s.id,
                s.name,
                s.qualname,
                s.kind,
                lang,
                fam,
                path,
                s.line,
                s.end_line,
                s.signature,
                s.doc,
                s.parent,
                s.exported,
            )
            for s in out.symbols
        )
        ref_out.writerows(
            (r.symbol_name, path, r.line, r.col, r.role, r.enclosing, r.qualifier, fam) for r in out.references
        )
        n_refs += len(out.references)
        imports.extend((i.path, i.lang, i.module, i.name, i.alias, i.line) for i in out.imports)
    return msgspec.msgpack.encode((files, skipped, imports, sym_buf.getvalue(), ref_buf.getvalue(), n_refs))


@dataclass
class LoadFiles:
    """The parent's side: collects the workers' chunks into two CSV files and the small row lists."""

    directory: Path
    files: list[tuple[Any, ...]] = field(default_factory=list)
    skipped: list[tuple[Any, ...]] = field(default_factory=list)
    imports: list[Import] = field(default_factory=list)
    n_refs: int = 0

    def __post_init__(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        self.symbols_csv = self.directory / "symbols.csv"
        self.refs_csv = self.directory / "refs.csv"
        self._sym: IO[str] = open(self.symbols_csv, "w", encoding="utf-8", newline="")  # noqa: SIM115
        self._ref: IO[str] = open(self.refs_csv, "w", encoding="utf-8", newline="")  # noqa: SIM115

    def add(self, blob: bytes) -> None:
        files, skipped, imports, sym_text, ref_text, n_refs = msgspec.msgpack.decode(blob)
        self.files.extend(tuple(f) for f in files)
        self.skipped.extend(tuple(s) for s in skipped)
        self.imports.extend(
            Import(path=i[0], lang=i[1], module=i[2], name=i[3], alias=i[4], line=i[5]) for i in imports
        )
        self._sym.write(sym_text)
        self._ref.write(ref_text)
        self.n_refs += n_refs

    def close(self) -> None:
        self._sym.close()
        self._ref.close()

    def remove(self) -> None:
        self.close()
        for path in (self.symbols_csv, self.refs_csv):
            path.unlink(missing_ok=True)
        with contextlib.suppress(OSError):  # not empty: something else is in there, leave it
            self.directory.rmdir()


def read_csv_sql(path: Path, table: str, names: list[str]) -> str:
    """A `read_csv` call with the table's column types, no sniffing, empty fields as NULL."""
    types = dict(TABLES[table])
    spec = ", ".join(f"'{name}': '{types[name]}'" for name in names)
    literal = str(path).replace("'", "''")
    return (
        f"read_csv('{literal}', columns={{{spec}}}, header=false, auto_detect=false, delim=',', quote='\"',"
        " escape='\"', nullstr='', new_line='\\n')"
    )


def load_into(con: Any, load: LoadFiles, first_rid: int = 1) -> None:
    """Bulk-load the symbols and references CSV files (references numbered in file order from `first_rid`)."""
    load.close()
    con.execute(f"INSERT INTO symbols SELECT * FROM {read_csv_sql(load.symbols_csv, 'symbols', SYMBOL_COLUMNS)}")
    cols = ", ".join(REF_COLUMNS)
    con.execute(
        f"INSERT INTO refs SELECT row_number() OVER () + {int(first_rid) - 1} AS rid, {cols}"
        f" FROM {read_csv_sql(load.refs_csv, 'refs', REF_COLUMNS)}"
    )
