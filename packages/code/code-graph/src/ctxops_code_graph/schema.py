"""Table layouts shared by the DuckDB build store and the SQLite lookup snapshot."""

from __future__ import annotations

from ctxops_code_scan.version import EXTRACTOR_VERSION

STORE_VERSION = 6  # bump when a table layout changes; with EXTRACTOR_VERSION it decides full rebuilds
INDEX_FORMAT = f"store{STORE_VERSION}-extractor{EXTRACTOR_VERSION}"

# (column, DuckDB type); SQLite takes the same names with its own affinities.
TABLES: dict[str, list[tuple[str, str]]] = {
    "meta": [("key", "VARCHAR"), ("value", "VARCHAR")],
    "files": [
        ("path", "VARCHAR"),
        ("lang", "VARCHAR"),
        ("size", "BIGINT"),
        ("mtime_ns", "BIGINT"),
        ("content_hash", "VARCHAR"),
        ("parse_status", "VARCHAR"),
        ("error", "VARCHAR"),
    ],
    "skipped": [("path", "VARCHAR"), ("reason", "VARCHAR"), ("size", "BIGINT")],
    "dirs": [("path", "VARCHAR"), ("mtime_ns", "BIGINT")],
    "symbols": [
        ("id", "VARCHAR"),
        ("name", "VARCHAR"),
        ("qualname", "VARCHAR"),
        ("kind", "VARCHAR"),
        ("lang", "VARCHAR"),
        ("fam", "VARCHAR"),
        ("path", "VARCHAR"),
        ("line", "INTEGER"),
        ("end_line", "INTEGER"),
        ("signature", "VARCHAR"),
        ("doc", "VARCHAR"),
        ("parent", "VARCHAR"),
        ("exported", "BOOLEAN"),
    ],
    "refs": [
        ("rid", "BIGINT"),
        ("symbol_name", "VARCHAR"),
        ("path", "VARCHAR"),
        ("line", "INTEGER"),
        ("col", "INTEGER"),
        ("role", "VARCHAR"),
        ("enclosing", "VARCHAR"),
        ("qualifier", "VARCHAR"),
        ("receiver_type", "VARCHAR"),
        ("fam", "VARCHAR"),
    ],
    "imports": [
        ("path", "VARCHAR"),
        ("lang", "VARCHAR"),
        ("module", "VARCHAR"),
        ("name", "VARCHAR"),
        ("alias", "VARCHAR"),
        ("line", "INTEGER"),
        ("target_path", "VARCHAR"),
        ("target_kind", "VARCHAR"),
    ],
    # Type expressions of functions' results, class attributes and module-level names (build store only).
    "types": [("path", "VARCHAR"), ("owner", "VARCHAR"), ("name", "VARCHAR"), ("expr", "VARCHAR")],
    "edges": [
        ("rid", "BIGINT"),
        ("src", "VARCHAR"),
        ("dst", "VARCHAR"),
        ("kind", "VARCHAR"),
        ("confidence", "VARCHAR"),
        ("path", "VARCHAR"),
        ("line", "INTEGER"),
        ("resolution", "VARCHAR"),
    ],
    "file_edges": [("src", "VARCHAR"), ("dst", "VARCHAR"), ("kind", "VARCHAR"), ("weight", "DOUBLE")],
    "ranks": [("path", "VARCHAR"), ("rank", "DOUBLE")],
}

# The SQLite lookup snapshot interns paths and symbol ids as integer keys (fk, sk): a third of the size.
SQLITE_DDL = [
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)",
    "CREATE TABLE files (fk INTEGER PRIMARY KEY, path TEXT NOT NULL, lang TEXT, size INTEGER,"
    " mtime_ns INTEGER, content_hash TEXT, parse_status TEXT, error TEXT, rank REAL DEFAULT 0)",
    "CREATE TABLE skipped (path TEXT PRIMARY KEY, reason TEXT, size INTEGER)",
    "CREATE TABLE dirs (path TEXT PRIMARY KEY, mtime_ns INTEGER)",
    "CREATE TABLE symbols (sk INTEGER PRIMARY KEY, id TEXT NOT NULL, name TEXT, qualname TEXT, kind TEXT,"
    " lang TEXT, fk INTEGER, line INTEGER, end_line INTEGER, signature TEXT, doc TEXT, parent_sk INTEGER,"
    " exported INTEGER)",
    "CREATE TABLE refs (rid INTEGER PRIMARY KEY, symbol_name TEXT, fk INTEGER, line INTEGER, col INTEGER,"
    " role TEXT, enclosing_sk INTEGER, qualifier TEXT)",
    "CREATE TABLE imports (fk INTEGER, module TEXT, name TEXT, alias TEXT, line INTEGER, target_fk INTEGER)",
    "CREATE TABLE edges (rid INTEGER, src_sk INTEGER, dst_sk INTEGER, kind TEXT, confidence TEXT, fk INTEGER,"
    " line INTEGER, resolution TEXT)",
    "CREATE TABLE file_edges (src_fk INTEGER, dst_fk INTEGER, kind TEXT, weight REAL)",
]
SQLITE_INDEXES = [
    # Unique indexes built after the bulk load (cheaper than checking row by row); updates upsert on them.
    "CREATE UNIQUE INDEX files_path ON files(path)",
    "CREATE UNIQUE INDEX symbols_id ON symbols(id)",
    "CREATE INDEX symbols_name ON symbols(name)",
    "CREATE INDEX symbols_fk ON symbols(fk, line)",
    "CREATE INDEX symbols_parent ON symbols(parent_sk)",
    "CREATE INDEX refs_name ON refs(symbol_name)",
    "CREATE INDEX refs_fk ON refs(fk)",
    "CREATE INDEX imports_fk ON imports(fk)",
    "CREATE INDEX imports_target ON imports(target_fk)",
    "CREATE INDEX edges_src ON edges(src_sk)",
    "CREATE INDEX edges_dst ON edges(dst_sk)",
    "CREATE INDEX edges_rid ON edges(rid)",
    "CREATE INDEX edges_fk ON edges(fk)",
    "CREATE INDEX file_edges_src ON file_edges(src_fk)",
    "CREATE INDEX file_edges_dst ON file_edges(dst_fk)",
]


def columns(table: str) -> list[str]:
    return [name for name, _ in TABLES[table]]
