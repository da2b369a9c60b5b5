"""Table layouts shared by the DuckDB build store and the SQLite lookup snapshot."""

from __future__ import annotations

from ctxops_code_scan.version import EXTRACTOR_VERSION

from .reader import SYMBOL_KINDS, SYMBOL_LANGS, coded_sql, decoded_sql, default_id_sql, escaped_path_sql

STORE_VERSION = 11  # bump when a table layout changes; with EXTRACTOR_VERSION it decides full rebuilds
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
    # An edge's source, kind, file and line are its reference's (`edges`, a view, shows them): only what
    # resolution decided is stored (the stdlib's store: 24.1 -> 21.0 MB).
    "edge_rows": [("rid", "BIGINT"), ("dst", "VARCHAR"), ("confidence", "VARCHAR"), ("resolution", "VARCHAR")],
    "file_edges": [("src", "VARCHAR"), ("dst", "VARCHAR"), ("kind", "VARCHAR"), ("weight", "DOUBLE")],
    "ranks": [("path", "VARCHAR"), ("rank", "DOUBLE")],
}

# The build store's views: (columns, SQL).
EDGE_COLUMNS = ["rid", "src", "dst", "kind", "confidence", "path", "line", "resolution"]
STORE_VIEWS = {
    "edges": (
        EDGE_COLUMNS,
        "SELECT e.rid AS rid, coalesce(r.enclosing, r.path) AS src, e.dst AS dst, r.role AS kind,"
        " e.confidence AS confidence, r.path AS path, r.line AS line, e.resolution AS resolution"
        " FROM edge_rows e JOIN refs r USING (rid)",
    ),
}

_VIEW_PATH = f"(SELECT {escaped_path_sql('f.path')} FROM files f WHERE f.fk = s.fk)"


def id_full_sql(symbol: str, path: str) -> str:
    """SQL of what `symbol_rows.id_full` keeps of ``symbol``'s id: NULL where the id is the default one."""
    return f"CASE WHEN {symbol}.id = {default_id_sql(symbol, escaped_path_sql(path))} THEN NULL ELSE {symbol}.id END"


def stored_symbol_sql(name: str, qualname: str, kind: str, lang: str) -> str:
    """SQL of `symbol_rows`' stored `qual_key, kind_key, lang_key` from the SQL of a symbol's columns."""
    return (
        f"CASE WHEN {qualname} = {name} THEN 0 ELSE {qualname} END,"
        f" {coded_sql(kind, SYMBOL_KINDS)}, {coded_sql(lang, SYMBOL_LANGS)}"
    )


FILE_EDGE_KINDS = ("import", "call", "type", "inherit")
FILE_EDGE_INSERT = f"INSERT INTO file_edges VALUES (?1, ?2, {coded_sql('?3', FILE_EDGE_KINDS)}, ?4)"

# The SQLite lookup snapshot interns paths and symbol ids as integer keys (fk, sk): a third of the size.
SQLITE_DDL = [
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)",
    "CREATE TABLE files (fk INTEGER PRIMARY KEY, path TEXT NOT NULL, lang TEXT, size INTEGER,"
    " mtime_ns INTEGER, content_hash TEXT, parse_status TEXT, error TEXT, rank REAL DEFAULT 0)",
    "CREATE TABLE skipped (path TEXT PRIMARY KEY, reason TEXT, size INTEGER)",
    "CREATE TABLE dirs (path TEXT PRIMARY KEY, mtime_ns INTEGER)",
    # A symbol's id (`<lang> <path> <qualname><suffix>`) is built on read from its other columns; `id_full`
    # keeps it only where it is not that (a duplicate's `(+1)`), so no row repeats its file's path.
    # (Rows are written without a column list: the generated columns, last, take no value.)
    "CREATE TABLE symbol_rows (sk INTEGER PRIMARY KEY, id_full TEXT, name TEXT, qual_key, kind_key, lang_key,"
    " fk INTEGER, line INTEGER, end_line INTEGER, signature TEXT, doc TEXT, parent_sk INTEGER, exported INTEGER,"
    " qualname TEXT GENERATED ALWAYS AS (CASE WHEN qual_key = 0 THEN name ELSE qual_key END) VIRTUAL,"
    f" kind TEXT GENERATED ALWAYS AS ({decoded_sql('kind_key', SYMBOL_KINDS)}) VIRTUAL,"
    f" lang TEXT GENERATED ALWAYS AS ({decoded_sql('lang_key', SYMBOL_LANGS)}) VIRTUAL)",
    # (The file's path by a scalar subquery, not a join: a view that is a join is not flattened into a
    # query that LEFT JOINs it, such as a symbol's parent: SQLite would build all of it for every query.)
    "CREATE VIEW symbols AS SELECT s.sk AS sk,"
    f" coalesce(s.id_full, {default_id_sql('s', _VIEW_PATH, keyed=True)}) AS id,"
    " s.name AS name, s.qualname AS qualname, s.kind AS kind, s.lang AS lang, s.fk AS fk, s.line AS line,"
    " s.end_line AS end_line, s.signature AS signature, s.doc AS doc, s.parent_sk AS parent_sk,"
    " s.exported AS exported FROM symbol_rows s",
    # Text that repeats (reference names, roles, qualifiers) is stored once, keyed by `sid`.
    "CREATE TABLE strings (sid INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE)",
    "CREATE TABLE ref_rows (rid INTEGER PRIMARY KEY, name_sid INTEGER, fk INTEGER, line INTEGER, col INTEGER,"
    " role_sid INTEGER, enclosing_sk INTEGER, qualifier_sid INTEGER)",
    # The keys of a file's references lie in [lo, hi] (a scan numbers them in a row, so the range holds
    # little else): a file's references are a range of `ref_rows`' own key, not an index of their own.
    "CREATE TABLE ref_spans (fk INTEGER PRIMARY KEY, lo INTEGER NOT NULL, hi INTEGER NOT NULL)",
    # ... and so are those a symbol encloses (`sk`), which its out-edges are found through (`edges_src`
    # holds only edges whose source is not their reference's enclosing symbol).
    "CREATE TABLE enclosed_spans (sk INTEGER PRIMARY KEY, lo INTEGER NOT NULL, hi INTEGER NOT NULL)",
    "CREATE VIEW refs AS SELECT r.rid AS rid, n.text AS symbol_name, r.fk AS fk, r.line AS line, r.col AS col,"
    " o.text AS role, r.enclosing_sk AS enclosing_sk, q.text AS qualifier FROM ref_rows r"
    " LEFT JOIN strings n ON n.sid = r.name_sid LEFT JOIN strings o ON o.sid = r.role_sid"
    " LEFT JOIN strings q ON q.sid = r.qualifier_sid",
    # An import's module is a key into `strings`: Go's imports of a package are a row per file of it, each
    # repeating the module's path (Go's tree: 154 KB of 328).
    "CREATE TABLE import_rows (fk INTEGER, module_sid INTEGER, name TEXT, alias TEXT, line INTEGER, target_fk INTEGER)",
    "CREATE VIEW imports AS SELECT i.fk AS fk, m.text AS module, i.name AS name, i.alias AS alias,"
    " i.line AS line, i.target_fk AS target_fk FROM import_rows i LEFT JOIN strings m ON m.sid = i.module_sid",
    # An edge's (kind, confidence, resolution) is one of a few dozen: a small key `how`. Its source, file
    # and line are its reference's (`rid`: the enclosing symbol, file and line), stored only where they
    # differ (src_sk 0 / fk 0 / line -1 stand for NULL there).
    "CREATE TABLE edge_kinds (how INTEGER PRIMARY KEY, kind TEXT, confidence TEXT, resolution TEXT)",
    # Keyed by (rid, dst_sk), without a rowid: a reference's edges are a range of the table's own key, not
    # an index of their own (`edges_rid` was 3.9 MB of the stdlib's snapshot). A reference has one edge per
    # target (resolution keeps one candidate row per (rid, dst); a constructor edge's target is a method).
    "CREATE TABLE edge_rows (rid INTEGER NOT NULL, src_sk INTEGER, dst_sk INTEGER NOT NULL, how INTEGER,"
    " fk INTEGER, line INTEGER, PRIMARY KEY (rid, dst_sk)) WITHOUT ROWID",
    "CREATE VIEW edges AS SELECT e.rid AS rid,"
    " CASE WHEN e.src_sk IS NULL THEN r.enclosing_sk ELSE nullif(e.src_sk, 0) END AS src_sk, e.dst_sk AS dst_sk,"
    " h.kind AS kind,"
    " h.confidence AS confidence, nullif(coalesce(e.fk, r.fk), 0) AS fk, nullif(coalesce(e.line, r.line), -1) AS line,"
    " h.resolution AS resolution FROM edge_rows e LEFT JOIN edge_kinds h ON h.how = e.how"
    " LEFT JOIN ref_rows r ON r.rid = e.rid",
    # A file edge's kind is stored as its key in FILE_EDGE_KINDS (0 and 1 take no byte), read as text.
    "CREATE TABLE file_edges (src_fk INTEGER, dst_fk INTEGER, kind_key, weight REAL,"
    f" kind TEXT GENERATED ALWAYS AS ({decoded_sql('kind_key', FILE_EDGE_KINDS)}) VIRTUAL)",
]
# A scan worker's shard keeps references and symbols in the plain layout the views show (strings in
# line, ids whole), with its files' paths for the ids.
SHARD_DDL = [
    "CREATE TABLE refs (rid INTEGER PRIMARY KEY, symbol_name TEXT, fk INTEGER, line INTEGER, col INTEGER,"
    " role TEXT, enclosing_sk INTEGER, qualifier TEXT)",
    "CREATE TABLE symbols (sk INTEGER PRIMARY KEY, id TEXT NOT NULL, name TEXT, qualname TEXT, kind TEXT,"
    " lang TEXT, fk INTEGER, line INTEGER, end_line INTEGER, signature TEXT, doc TEXT, parent_sk INTEGER,"
    " exported INTEGER)",
    "CREATE TABLE paths (fk INTEGER PRIMARY KEY, path TEXT NOT NULL)",
]
# The tables behind each view, for the indexes built once a view's rows are in.
VIEW_TABLES = {
    "refs": ("strings", "ref_rows"),
    "imports": ("import_rows",),
    "edges": ("edge_kinds", "edge_rows"),
    "symbols": ("symbol_rows",),
}
SQLITE_INDEXES = [
    # Unique indexes built after the bulk load (cheaper than checking row by row); updates upsert on them.
    "CREATE UNIQUE INDEX files_path ON files(path)",
    # No index on ids: an id names its file, and a file's symbols are a range of `symbols_fk` (`id_lookup`).
    "CREATE INDEX symbols_name ON symbol_rows(name)",
    "CREATE INDEX symbols_fk ON symbol_rows(fk, line)",
    # No index on `parent_sk` (no query looks a symbol's children up by it: a parent is read by its key) nor
    # on `file_edges` (read whole, for the ranks; a deleted file's rows go in one scan): the stdlib's 1.6 MB.
    "CREATE INDEX refs_name ON ref_rows(name_sid)",
    "CREATE INDEX imports_fk ON import_rows(fk)",
    "CREATE INDEX imports_target ON import_rows(target_fk)",
    # Only edges whose source is not their reference's enclosing symbol: the others are found through
    # their references (`enclosed_spans`, `lookup_queries.walk`).
    "CREATE INDEX edges_src ON edge_rows(src_sk) WHERE src_sk IS NOT NULL",
    "CREATE INDEX edges_dst ON edge_rows(dst_sk)",
    "CREATE INDEX edges_fk ON edge_rows(fk) WHERE fk IS NOT NULL",  # only edges not in their reference's file
]


def columns(table: str) -> list[str]:
    """A build store table's or view's columns."""
    if table in STORE_VIEWS:
        return STORE_VIEWS[table][0]
    return [name for name, _ in TABLES[table]]
