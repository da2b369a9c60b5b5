"""One ledger for a team, on storage it already has: ``ctx ledger push`` and ``report --from``.

Layout at a LOCATION (a directory: local, NFS, a synced folder; or ``s3://bucket/prefix`` on any
S3-compatible store, through pyarrow's filesystem layer)::

    LOCATION/day=YYYY-MM-DD/machine=ID/part-<push id>-<n>.parquet

Hive partitions by the call's UTC day and the pushing machine's id (:mod:`.machine`). One row per call:
every column of the local ``usage`` table, ``rank`` (the merge priority), ``machine_id``, ``pushed_at``
and, for engines that do not price, ``cost_usd``/``priced`` (the pusher's price book), ``task``,
``task_source`` and ``project`` as the pusher resolved them.

Push is idempotent: per location, ``<data>/state/push/<digest>.parquet`` holds each pushed call's key and
a fingerprint of its fields; a push writes the calls whose key or fingerprint is not in it (new calls, and
calls a better copy changed since), then records them. A re-push writes nothing. A push killed between the
upload and the state write uploads those calls again next time; readers keep one copy.

Reading (``report --from``, ``totals --from``) lists every machine's parts, keeps one row per call (the
same provider message id seen on two machines, else the same key: the best-ranked copy, then the latest
push) and hands a ``usage`` table to the same report code as the local ledger, priced with the reader's
price book. A location is only ever what the user typed: nothing read from a repository names where we
write or read.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

PUSH_STATE_DIR = "push"
# The layout's format, in every part's Parquet key-value metadata (parts pushed before it was written: 1). A
# reader skips a part of a newer format with a note; an added column is not a new format (readers fill nulls).
TEAM_FORMAT = 1
TEAM_FORMAT_KEY = "ctxops.team_format"
PART_RE = re.compile(r"(?:^|/)day=(\d{4}-\d{2}-\d{2})/machine=([A-Za-z0-9][A-Za-z0-9._-]{0,63})/part-[^/]+\.parquet$")
ENDPOINT_ENVS = ("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
REGION_ENVS = ("AWS_REGION", "AWS_DEFAULT_REGION")
# Fields whose change makes a pushed call worth pushing again (a better copy arrived, a detail was filled).
FINGERPRINT = (
    "ts",
    "provider",
    "model",
    "session_id",
    "parent_session_id",
    "task_id",
    "repo",
    "cwd",
    "git_branch",
    "request_id",
    "message_id",
    "input_tokens",
    "output_tokens",
    "cache_creation_tokens",
    "cache_creation_1h_tokens",
    "cache_read_tokens",
    "reasoning_tokens",
    "web_search_requests",
    "web_fetch_requests",
    "inference_geo",
    "service_tier",
    "message_count",
    "latency_ms",
    "ttft_ms",
    "status",
    "error",
    "is_sidechain",
    "source",
    "origin",
    "rank",
    "task",
    "task_source",
)
# A call seen on two machines: by its provider message id when it has one, else by its key.
CALL_KEY_SQL = (
    "CASE WHEN message_id IS NOT NULL AND message_id <> '' THEN provider || ':' || message_id ELSE dedupe_key END"
)


class LocationError(ValueError):
    """A location that cannot be used (its message is one line naming it and why)."""


@dataclass
class Location:
    """An opened location: ``fs`` (a pyarrow FileSystem) and ``base`` (the path inside it)."""

    text: str  # as the user gave it
    key: str  # canonical: what push state is kept under
    opened: Any  # the FileSystem; None for a directory until used (pyarrow's import is ~0.3 s)
    base: str
    remote: bool

    @property
    def fs(self) -> Any:
        if self.opened is None:
            from pyarrow import fs as pafs

            self.opened = pafs.LocalFileSystem()
        return self.opened

    def digest(self) -> str:
        return hashlib.sha256(self.key.encode()).hexdigest()[:20]


def _env(names: tuple[str, ...]) -> str | None:
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None


def open_location(text: str, *, endpoint: str | None = None, region: str | None = None, create: bool) -> Location:
    """Parse and open ``text``: a directory path (or ``file://``) or ``s3://bucket[/prefix]``.

    ``create``: a push may create the last directory of a local path (its parent must exist) and the
    prefix of a bucket (the bucket must exist); a reader needs the location to exist.
    """
    text = text.strip()
    if not text:
        raise LocationError("empty location")
    scheme = text.split("://", 1)[0].lower() if "://" in text else ""
    if scheme == "s3":
        return _open_s3(text, endpoint=endpoint, region=region)
    if scheme not in ("", "file"):
        raise LocationError(f"{text}: unsupported location (a directory or s3://bucket/prefix)")
    return _open_dir(text[len("file://") :] if scheme == "file" else text, text, create=create)


def _open_dir(path_text: str, text: str, *, create: bool) -> Location:
    path = Path(path_text).expanduser().absolute()
    if path.exists() and not path.is_dir():
        raise LocationError(f"{text}: not a directory")
    if not path.exists():
        if not create:
            raise LocationError(f"{text}: no such directory")
        if not path.parent.is_dir():
            raise LocationError(f"{text}: its parent directory {path.parent} does not exist")
        try:
            path.mkdir()
        except OSError as exc:
            raise LocationError(f"{text}: cannot create it ({exc.strerror or exc})") from None
    if create and not os.access(path, os.W_OK | os.X_OK):
        raise LocationError(f"{text}: not writable")
    resolved = path.resolve()
    return Location(text, f"file://{resolved}", None, str(resolved), remote=False)


def _open_s3(text: str, *, endpoint: str | None, region: str | None) -> Location:
    from pyarrow import fs as pafs

    rest = text.split("://", 1)[1]
    if "?" in rest or "#" in rest:
        raise LocationError(f"{text}: no query string (give the endpoint with --endpoint or $AWS_ENDPOINT_URL)")
    bucket, _, prefix = rest.partition("/")
    prefix = prefix.strip("/")
    if not re.fullmatch(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]", bucket):
        raise LocationError(f"{text}: {bucket!r} is not an S3 bucket name")
    if any(part in ("", ".", "..") for part in prefix.split("/")) and prefix:
        raise LocationError(f"{text}: the prefix has an empty, '.' or '..' part")
    endpoint = endpoint or _env(ENDPOINT_ENVS)
    options: dict[str, Any] = {
        "connect_timeout": 5.0,
        "request_timeout": 30.0,
        "retry_strategy": pafs.AwsStandardS3RetryStrategy(max_attempts=3),
    }
    region = region or _env(REGION_ENVS)
    if endpoint:
        if not re.fullmatch(r"https?://[^\s/?#]+/?", endpoint):
            raise LocationError(f"endpoint {endpoint!r}: not http(s)://host[:port]")
        options["endpoint_override"] = endpoint.rstrip("/")
        options["region"] = region or "us-east-1"
    elif region:
        options["region"] = region
    else:  # AWS itself: the bucket's own region (a request to another region's endpoint is refused)
        with contextlib.suppress(OSError):
            options["region"] = pafs.resolve_s3_region(bucket)
    try:
        fs = pafs.S3FileSystem(**options)
        info = fs.get_file_info(bucket)
    except OSError as exc:  # unreachable endpoint, bad credentials, ...
        raise LocationError(f"{text}: {_first_line(exc)}") from None
    if info.type == pafs.FileType.NotFound:
        where = f" at {endpoint}" if endpoint else ""
        raise LocationError(f"{text}: bucket {bucket!r} not found{where}")
    base = f"{bucket}/{prefix}" if prefix else bucket
    key = f"s3://{base}" + (f"@{options['endpoint_override']}" if endpoint else "")
    return Location(text, key, fs, base, remote=True)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__


# ------------------------------------------------------------------------------------------------ push


def _state_paths(data_root: Path, location: Location) -> tuple[Path, Path]:
    directory = data_root / "state" / PUSH_STATE_DIR
    return directory / f"{location.digest()}.parquet", directory / f"{location.digest()}.json"


def push(
    view: Any,
    location: Location,
    machine: str,
    data_root: Path,
    *,
    again: bool = False,
    local: str | None = None,
) -> dict[str, Any]:
    """Write the calls not yet at ``location`` (``again``: every call, e.g. after the location was emptied or
    restored from an older copy; readers keep one copy of each); return what was written.

    Each call goes under the machine id its record carries (a call recorded on another machine and copied here
    keeps that machine's). ``machine`` is this machine's id for the push: the calls whose record carries
    ``local`` (the id this machine stamps, when ``machine`` overrides it with ``--machine``) or none go under it.
    """
    from ctxops_contracts.shared.locks import file_lock

    state, meta = _state_paths(data_root, location)
    state.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    con = view.con
    with file_lock(state.with_suffix(".lock"), timeout=0.0):
        fp = "hash(" + ", ".join(FINGERPRINT) + ")"
        own = "c.machine_id IS NULL OR NOT regexp_full_match(c.machine_id, '[A-Za-z0-9][A-Za-z0-9._-]{0,63}')" + (
            " OR c.machine_id = $local" if local else ""
        )
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE push_now AS SELECT dedupe_key, {fp} AS fp, "
            f"CASE WHEN {own} THEN $machine ELSE c.machine_id END AS machine FROM costed c",
            {"machine": machine, **({"local": local} if local else {})},
        )
        done = "CREATE OR REPLACE TEMP TABLE push_done (dedupe_key VARCHAR, fp UBIGINT, machine VARCHAR)"
        if state.is_file() and not again:
            # A state written before calls carried their own machine ids has no machine: they went as this one.
            has = {r[0] for r in con.execute("DESCRIBE SELECT * FROM read_parquet(?)", [str(state)]).fetchall()}
            machine_sql = "machine" if "machine" in has else "NULL::VARCHAR AS machine"
            done = (
                f"CREATE OR REPLACE TEMP TABLE push_done AS SELECT dedupe_key, fp, {machine_sql} FROM read_parquet(?)"
            )
            con.execute(done, [str(state)])
        else:
            con.execute(done)
        con.execute(
            "CREATE OR REPLACE TEMP TABLE push_new AS SELECT dedupe_key, machine FROM push_now n "
            "WHERE NOT EXISTS (SELECT 1 FROM push_done d WHERE d.dedupe_key = n.dedupe_key AND d.fp = n.fp "
            "AND (d.machine IS NULL OR d.machine = n.machine))"
        )
        rows = int(con.execute("SELECT count(*) FROM push_new").fetchall()[0][0])
        total = int(con.execute("SELECT count(*) FROM push_now").fetchall()[0][0])
        by_machine = dict(con.execute("SELECT machine, count(*) FROM push_new GROUP BY 1 ORDER BY 1").fetchall())
        written: list[str] = []
        if rows:
            import pyarrow as pa
            import pyarrow.dataset as ds

            push_id = f"{datetime.now(UTC):%Y%m%dT%H%M%SZ}-{secrets.token_hex(4)}"
            sql = (
                "SELECT c.* REPLACE (n.machine AS machine_id), ?::TIMESTAMPTZ AS pushed_at, "
                "strftime(timezone('UTC', c.ts), '%Y-%m-%d') AS day, n.machine AS machine "
                "FROM costed c JOIN push_new n ON c.dedupe_key = n.dedupe_key ORDER BY c.ts"
            )
            import duckdb  # the package's Python layer gives connections their Arrow readers

            assert duckdb  # (the ledger itself loads only the engine module: token-capture's duck.py)
            result = con.sql(sql, params=[datetime.now(UTC)]).to_arrow_reader(131072)
            # The format travels in each file's key-value metadata: a reader of an older format skips it, saying so.
            tagged = result.schema.with_metadata({TEAM_FORMAT_KEY: str(TEAM_FORMAT)})
            reader = pa.RecordBatchReader.from_batches(tagged, result)
            partitioning = ds.partitioning(pa.schema([("day", pa.string()), ("machine", pa.string())]), flavor="hive")
            options = ds.ParquetFileFormat().make_write_options(compression="zstd")
            try:
                ds.write_dataset(
                    reader,
                    location.base,
                    filesystem=location.fs,
                    format="parquet",
                    partitioning=partitioning,
                    basename_template=f"part-{push_id}-{{i}}.parquet",
                    existing_data_behavior="overwrite_or_ignore",
                    file_options=options,
                    max_rows_per_group=131072,
                    file_visitor=lambda f: written.append(f.path),
                    create_dir=not location.remote,
                )
            except OSError as exc:
                raise LocationError(f"{location.text}: {_first_line(exc)}") from None
        # Every call now is at the location (the new ones just written): that is the state.
        tmp = state.with_name(f".{state.name}.{os.getpid()}.tmp")
        con.execute(f"COPY push_now TO '{_sql_path(tmp)}' (FORMAT parquet)")
        tmp.replace(state)
        doc = {
            "location": location.key,
            "machine": machine,
            "machines": by_machine,
            "rows": rows,
            "calls": total,
            "files": sorted(written),
            "pushed_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        if rows:
            _write_json(meta, {k: v for k, v in doc.items() if k != "files"} | {"file_count": len(written)})
    doc["seconds"] = round(time.perf_counter() - started, 3)
    doc["location"] = location.text
    return doc


def _sql_path(path: Path) -> str:
    return str(path).replace("'", "''")


def _write_json(path: Path, doc: dict[str, Any]) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(doc, out)
    Path(tmp).replace(path)


# ------------------------------------------------------------------------------------------------ read


def part_files(location: Location) -> list[str]:
    """Every ``day=/machine=/part-*.parquet`` under the location (anything else there is ignored)."""
    base = location.base.rstrip("/") + "/"
    if not location.remote:  # no pyarrow needed to list a directory
        found = (str(p) for p in Path(location.base).glob("day=*/machine=*/part-*.parquet") if p.is_file())
        return sorted(f for f in found if PART_RE.search(f[len(base) - 1 :]))
    from pyarrow import fs as pafs

    try:
        infos = location.fs.get_file_info(pafs.FileSelector(location.base, recursive=True, allow_not_found=True))
    except OSError as exc:
        raise LocationError(f"{location.text}: {_first_line(exc)}") from None
    return sorted(
        i.path
        for i in infos
        if i.type == pafs.FileType.File and i.path.startswith(base) and PART_RE.search(i.path[len(base) - 1 :])
    )


# What a part must hold to be read as a call of a team ledger; the other columns this reader knows are checked
# for their kind when present (a part of another tool, or of the same names with other types, is foreign).
REQUIRED = ("dedupe_key", "ts", "provider", "model", "input_tokens", "output_tokens")
EXTRA_KINDS = {
    "rank": "int",
    "machine_id": "str",
    "pushed_at": "time",
    "cost_usd": "float",
    "priced": "bool",
    "task": "str",
    "task_source": "str",
    "project": "str",
}
MAX_SKIP_NOTES = 10  # one note per skipped part up to this many, then one line for the rest
_INT_TYPES = {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT"}


def _duck_kind(duckdb_type: str | None) -> str:
    """The kind of a column from its DuckDB type name: str, int, float, time, bool, list or other."""
    t = (duckdb_type or "").upper()
    if t == "VARCHAR":
        return "str"
    if t in _INT_TYPES:
        return "int"
    if t in ("DOUBLE", "FLOAT"):
        return "float"
    if t.startswith("TIMESTAMP"):
        return "time"
    if t == "BOOLEAN":
        return "bool"
    if t.endswith("]"):
        return "list"
    return "other"


def _arrow_kind(kind: Any) -> str:
    import pyarrow as pa

    t = pa.types
    if t.is_string(kind) or t.is_large_string(kind) or (hasattr(t, "is_string_view") and t.is_string_view(kind)):
        return "str"
    for test, name in ((t.is_integer, "int"), (t.is_floating, "float"), (t.is_timestamp, "time")):
        if test(kind):
            return name
    if t.is_boolean(kind):
        return "bool"
    if t.is_list(kind) or t.is_large_list(kind):
        return "list"
    return "other"


def _expected_kinds() -> dict[str, str]:
    from ctxops_token_capture.ledger import COLUMNS

    return {name: _duck_kind(kind) for name, kind in COLUMNS.items()} | EXTRA_KINDS


def _damaged(exc: BaseException, name: str) -> str:
    """Why a part could not be read, in one line (its path is named by the note already)."""
    return f"damaged, not read ({_first_line(exc).replace(repr(name), 'it').replace(name, 'it')})"


def _judge(columns: dict[str, str], fmt: str | None) -> str | None:
    """Why a part with these top-level ``columns`` (name: kind) and format cannot be read; None when it can."""
    if fmt is not None:
        if not fmt.isdigit():
            return f"not a ctxops team ledger part ({TEAM_FORMAT_KEY} is {fmt[:20]!r})"
        if int(fmt) > TEAM_FORMAT:
            return (
                f"written by a newer ctxops (team ledger format {int(fmt)}; this one reads format {TEAM_FORMAT}): "
                "upgrade ctxops to count its calls"
            )
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        return f"not a ctxops team ledger part (no column {', '.join(missing)})"
    for name, want in _expected_kinds().items():
        found = columns.get(name)
        if found is not None and found != want and not (want == "float" and found == "int"):
            return f"not a ctxops team ledger part (column {name} holds {found}, not {want})"
    return None


_Info = tuple[dict[str, str], str | None] | str  # (columns, format) of a readable footer, else why not


def _infos_dir(con: Any, files: list[str]) -> dict[str, _Info]:
    """Each part's top-level columns and format, from its footer (DuckDB reads them all at once; a footer it
    cannot read sends it through them one by one, to name the damaged ones)."""
    try:
        return _footers_dir(con, files)
    except Exception:  # a damaged footer among them: find which
        found: dict[str, _Info] = {}
        for name in files:
            try:
                found.update(_footers_dir(con, [name]))
            except Exception as exc:
                found[name] = _damaged(exc, name)
        return found


def _footers_dir(con: Any, files: list[str]) -> dict[str, _Info]:
    listed = "[" + ", ".join("'" + f.replace("'", "''") + "'" for f in files) + "]"
    schema = con.execute(
        f"SELECT file_name, name, num_children, duckdb_type FROM parquet_schema({listed}) ORDER BY file_name, column_id"
    ).fetchall()
    formats = dict(
        con.execute(
            f"SELECT file_name, value::VARCHAR FROM parquet_kv_metadata({listed}) WHERE key = ?::BLOB",
            [TEAM_FORMAT_KEY],
        ).fetchall()
    )
    by_file: dict[str, list[tuple[str, int, str | None]]] = {}
    for file_name, name, children, duckdb_type in schema:
        by_file.setdefault(file_name, []).append((name, children or 0, duckdb_type))
    return {f: (_top_level(by_file.get(f, [])), formats.get(f)) for f in files}


def _top_level(elements: list[tuple[str, int, str | None]]) -> dict[str, str]:
    """The root's children (name: kind) among a file's schema elements in order (root first, depth first)."""
    out: dict[str, str] = {}
    if not elements:
        return out
    i = 1
    for _ in range(elements[0][1]):
        if i >= len(elements):
            break
        name, _children, duckdb_type = elements[i]
        out[name] = _duck_kind(duckdb_type)
        pending = 1  # skip this element's subtree
        while pending and i < len(elements):
            pending += elements[i][1] - 1
            i += 1
    return out


def _infos_s3(location: Location, files: list[str], schemas: dict[str, Any]) -> dict[str, _Info]:
    """As :func:`_infos_dir`, one footer request per part; ``schemas`` gets each readable part's schema."""
    import pyarrow.dataset as ds

    found: dict[str, _Info] = {}
    factory = ds.ParquetFileFormat()
    for name in files:
        try:
            schema = factory.make_fragment(name, filesystem=location.fs).physical_schema
        except Exception as exc:
            found[name] = _damaged(exc, name)
            continue
        schemas[name] = schema
        meta = schema.metadata or {}
        fmt = meta.get(TEAM_FORMAT_KEY.encode())
        columns = {field.name: _arrow_kind(field.type) for field in schema}
        found[name] = (columns, fmt.decode("utf-8", "replace") if fmt is not None else None)
    return found


def _checked_parts(
    con: Any, location: Location, files: list[str], schemas: dict[str, Any] | None = None
) -> tuple[list[str], dict[str, str]]:
    """The parts to read, and the others with why each is skipped (``schemas``: object storage's footers, kept
    for the read)."""
    infos = (
        _infos_s3(location, files, {} if schemas is None else schemas) if location.remote else _infos_dir(con, files)
    )
    good: list[str] = []
    skipped: dict[str, str] = {}
    for name in files:
        info = infos.get(name, "not read")
        problem = info if isinstance(info, str) else _judge(*info)
        if problem is None:
            good.append(name)
        else:
            skipped[name] = problem
    return good, skipped


def _damaged_data(con: Any, location: Location, files: list[str]) -> dict[str, str]:
    """The parts whose data cannot be read whole (a footer intact, a page not): each read through, once."""
    bad: dict[str, str] = {}
    for name in files:
        try:
            if location.remote:
                import pyarrow.dataset as ds

                ds.ParquetFileFormat().make_fragment(name, filesystem=location.fs).to_table()
            else:
                con.execute("SELECT sum(hash(t)) FROM read_parquet(?) t", [name]).fetchall()
        except Exception as exc:
            bad[name] = _damaged(exc, name)
    return bad


def skip_notes(location: Location, skipped: dict[str, str]) -> list[str]:
    """One line per skipped part (its path under the location and why), the rest summed up in one more."""
    base = location.base.rstrip("/") + "/"
    names = sorted(skipped)
    notes = [
        f"skipped {name[len(base) :] if name.startswith(base) else name} at {location.text}: {skipped[name]}"
        for name in names[:MAX_SKIP_NOTES]
    ]
    if len(names) > MAX_SKIP_NOTES:
        notes.append(f"skipped {len(names) - MAX_SKIP_NOTES} more part(s) at {location.text} that could not be read")
    return notes


def _register_s3(con: Any, location: Location, files: list[str], schemas: dict[str, Any]) -> None:
    """``team_parts`` over the parts in object storage, through pyarrow's dataset layer (DuckDB's own S3
    reader is an extension it downloads at run time)."""
    import pyarrow as pa
    import pyarrow.dataset as ds

    keys = pa.schema([("day", pa.string()), ("machine", pa.string())])
    partitioning = ds.partitioning(keys, flavor="hive")
    try:
        # Parts pushed by different versions may differ in columns: read them under one schema (missing = null).
        # Their footers were read by the checks (``schemas``); a part not among them is read here.
        found = [schemas.get(f) for f in files]
        if any(schema is None for schema in found):
            dataset = ds.dataset(
                files,
                filesystem=location.fs,
                format="parquet",
                partitioning=partitioning,
                partition_base_dir=location.base,
            )
            found = [f.physical_schema for f in dataset.get_fragments()]
        schema = pa.unify_schemas([*{str(s): s for s in found}.values(), keys])
        dataset = ds.dataset(
            files,
            schema=schema.remove_metadata(),
            filesystem=location.fs,
            format="parquet",
            partitioning=partitioning,
            partition_base_dir=location.base,
        )
    except (OSError, pa.ArrowInvalid) as exc:
        raise LocationError(f"{location.text}: {_first_line(exc)}") from None
    con.register("team_parts", dataset)


def _register_dir(con: Any, files: list[str]) -> None:
    """``team_parts`` over parts in a directory: DuckDB's own Parquet reader (parallel, column pruning)."""
    listed = ", ".join("'" + f.replace("'", "''") + "'" for f in files)
    con.execute(
        f"CREATE OR REPLACE TEMP VIEW team_parts AS SELECT * FROM read_parquet([{listed}], hive_partitioning = true, "
        "union_by_name = true, hive_types = {'day': 'VARCHAR', 'machine': 'VARCHAR'})"
    )


def load_usage(con: Any, location: Location) -> dict[str, Any]:
    """Create ``usage`` in ``con`` from every machine's parts, one row per call; return what was read.

    A part that cannot be read (damaged, foreign, of a newer format) is skipped: ``skipped`` maps each to why
    (see :func:`skip_notes`), and the calls of the others are read.
    """
    from ctxops_token_capture.ledger import COLUMNS

    files = part_files(location)
    columns = {**COLUMNS, "rank": "INTEGER", "machine_id": "VARCHAR"}
    schemas: dict[str, Any] = {}
    good, skipped = _checked_parts(con, location, files, schemas) if files else ([], {})
    result: dict[str, Any] = {"files": len(good), "skipped": skipped}
    if good:
        try:
            result |= _read_parts(con, location, good, columns, schemas)
        except LocationError:
            bad = _damaged_data(con, location, good)
            if not bad:
                raise
            skipped.update(bad)
            good = [f for f in good if f not in bad]
            for name in ("usage", "team_dropped", "team_parts"):
                _drop(con, name)
            result["files"] = len(good)
    if not good:
        con.execute("CREATE TABLE usage (" + ", ".join(f"{c} {t}" for c, t in columns.items()) + ")")
        return result | {"rows": 0, "calls": 0, "machines": []}
    if "calls" not in result:
        result |= _read_parts(con, location, good, columns, schemas)
    return result


def _drop(con: Any, name: str) -> None:
    for kind in ("VIEW", "TABLE"):
        with contextlib.suppress(Exception):
            con.execute(f"DROP {kind} IF EXISTS {name}")
    with contextlib.suppress(Exception):
        con.unregister(name)


def _read_parts(
    con: Any, location: Location, files: list[str], columns: dict[str, str], schemas: dict[str, Any]
) -> dict[str, Any]:
    """``usage`` over ``files``: one row per call (the best copy); raises LocationError when a part fails."""
    try:
        if location.remote:
            _register_s3(con, location, files, schemas)
        else:
            _register_dir(con, files)
        present = {r[0] for r in con.execute("DESCRIBE team_parts").fetchall()}
    except LocationError:
        raise
    except Exception as exc:  # a damaged file among the parts (the message names it)
        raise LocationError(f"{location.text}: {_first_line(exc)}") from None

    def column(name: str, kind: str) -> str:
        if name == "task_id" and {"task", "task_source"} <= present:
            # The task its pusher resolved from `ctx task` intervals (the reader has not got them).
            return "CAST(CASE WHEN task_source = 'task' THEN task ELSE task_id END AS VARCHAR) AS task_id"
        if name == "machine_id":
            return "coalesce(machine_id, machine) AS machine_id" if name in present else "machine AS machine_id"
        return f"CAST({name} AS {kind}) AS {name}" if name in present else f"CAST(NULL AS {kind}) AS {name}"

    order = "rank DESC NULLS LAST" + (", pushed_at DESC NULLS LAST" if "pushed_at" in present else "") + ", machine"
    pushed = "pushed_at" if "pushed_at" in present else "NULL::TIMESTAMPTZ"
    p_pushed = "p.pushed_at" if "pushed_at" in present else pushed
    # The copies to drop, found on a few narrow columns (a push writes a key once: key, machine and push
    # time name one row). The calls are then the parts minus those: a view over a directory's files, so a
    # report reads only the columns it needs; a table for object storage, read once over the network.
    kind = "TABLE" if location.remote else "VIEW"
    try:
        rows = int(con.execute("SELECT count(*) FROM team_parts").fetchall()[0][0])
        con.execute(
            f"CREATE TEMP TABLE team_dropped AS SELECT dedupe_key, machine, pushed FROM ("
            f"SELECT dedupe_key, machine, {pushed} AS pushed, row_number() OVER (PARTITION BY {CALL_KEY_SQL} "
            f"ORDER BY {order}) AS n FROM team_parts) WHERE n > 1"
        )
        con.execute(
            f"CREATE {kind} usage AS SELECT "
            + ", ".join(column(c, t) for c, t in columns.items())
            + " FROM team_parts p WHERE NOT EXISTS (SELECT 1 FROM team_dropped d WHERE d.dedupe_key = p.dedupe_key "
            f"AND d.machine = p.machine AND d.pushed IS NOT DISTINCT FROM {p_pushed})"
        )
        calls = int(con.execute("SELECT count(*) FROM usage").fetchall()[0][0])
        machines = [r[0] for r in con.execute("SELECT DISTINCT machine_id FROM usage ORDER BY 1").fetchall()]
    except Exception as exc:  # unreadable parts (damaged pages, a column of another type)
        raise LocationError(f"{location.text}: {_first_line(exc)}") from None
    return {"rows": rows, "calls": calls, "machines": machines}


def summary(location: Location, read: dict[str, Any]) -> str:
    """The one line a team report's notes start with: calls, machines, parts, copies dropped."""
    noun = "machine" if len(read["machines"]) == 1 else "machines"
    dupes = read["rows"] - read["calls"]
    return (
        f"team ledger {location.text}: {read['calls']} call(s) from {len(read['machines'])} {noun} "
        f"({read['files']} part file(s){f', {dupes} duplicate row(s) dropped' if dupes else ''})"
    )


@contextlib.contextmanager
def open_team_view(location: Location, *, book: Any, mode: str = "exact") -> Iterator[Any]:
    """A report view (like :func:`.store.open_view`) over every machine's calls at ``location``."""
    import duckdb

    from .store import _prepare

    con = duckdb.connect(":memory:")
    try:
        con.execute("SET enable_progress_bar = false; SET TimeZone = 'UTC'")
        read = load_usage(con, location)
        with tempfile.TemporaryDirectory(prefix="ctxops-team-") as no_tasks:
            view = _prepare(con, book, mode, no_tasks)  # tasks come resolved from each pusher
        view.note = summary(location, read)
        view.skipped = skip_notes(location, read["skipped"])
        yield view
    finally:
        con.close()
