"""The per-user DuckDB ledger, derived from the JSONL truth and rebuildable from it at any time.

Loads are idempotent: ``dedupe_key`` is the primary key. When two origins saw the same call (a transcript
and the proxy), the better record's token counts win (provider-reported over estimated, then proxy over
SDK over transcript) and missing details (latency, session, attribution, ...) are filled from the other.
Only one process writes the file: every write happens under ``ledger.lock`` with a short retry.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctxops_contracts.shared.confine import ensure_dir
from ctxops_contracts.shared.locks import file_lock

from . import rollup
from .duck import duckdb_module
from .paths import data_dir
from .report import IngestReport
from .usage_files import LEDGER_FILE, LOADED_STATE, fingerprint, record_files, remember_loaded, up_to_date

# DuckDB draws a progress bar on stdout for any query over 2 s, even into a pipe: it would break `--json`.
QUIET = "SET enable_progress_bar = false; SET enable_progress_bar_print = false"
LOCK_FILE = "ledger.lock"

COLUMNS: dict[str, str] = {
    "dedupe_key": "VARCHAR",
    "id": "VARCHAR",
    "ts": "TIMESTAMPTZ",
    "provider": "VARCHAR",
    "model": "VARCHAR",
    "session_id": "VARCHAR",
    "parent_session_id": "VARCHAR",
    "task_id": "VARCHAR",
    "repo": "VARCHAR",
    "cwd": "VARCHAR",
    "git_branch": "VARCHAR",
    "request_id": "VARCHAR",
    "message_id": "VARCHAR",
    "input_tokens": "BIGINT",
    "output_tokens": "BIGINT",
    "cache_creation_tokens": "BIGINT",
    "cache_creation_1h_tokens": "BIGINT",
    "cache_read_tokens": "BIGINT",
    "reasoning_tokens": "BIGINT",
    "web_search_requests": "BIGINT",
    "web_fetch_requests": "BIGINT",
    "inference_geo": "VARCHAR",
    "service_tier": "VARCHAR",
    "message_count": "BIGINT",
    "latency_ms": "DOUBLE",
    "ttft_ms": "DOUBLE",
    "status": "INTEGER",
    "error": "VARCHAR",
    "is_sidechain": "BOOLEAN",
    "source": "VARCHAR",
    "origin": "VARCHAR",
    "attribution": "STRUCT(tool VARCHAR, files VARCHAR[], bytes BIGINT, tokens BIGINT)[]",
    "schema_version": "VARCHAR",
    "machine_id": "VARCHAR",
}
TOKEN_COLUMNS = (
    "model",
    "provider",
    "ts",
    "input_tokens",
    "output_tokens",
    "cache_creation_tokens",
    "cache_creation_1h_tokens",
    "cache_read_tokens",
    "reasoning_tokens",
    "source",
    "origin",
    "id",
)
DETAIL_COLUMNS = (
    "session_id",
    "parent_session_id",
    "task_id",
    "repo",
    "cwd",
    "git_branch",
    "request_id",
    "message_id",
    "message_count",
    "latency_ms",
    "ttft_ms",
    "status",
    "error",
    "machine_id",
)
COUNT_COLUMNS = (
    "input_tokens",
    "cache_creation_tokens",
    "cache_creation_1h_tokens",
    "cache_read_tokens",
    "reasoning_tokens",
)
# Charges on top of the tokens that not every copy of a call records (only transcripts did before the proxy
# read them): the largest count of any copy wins, never a zero over a count.
SERVER_TOOL_COLUMNS = ("web_search_requests", "web_fetch_requests")
# What some copies of a call say and others leave out: the best-ranked copy that says it.
CALL_FACTS = ("inference_geo", "service_tier")
# Columns added after ledgers were first written: a ledger file without them gets them (older rows: NULL).
ADDED_COLUMNS = (
    "web_search_requests",
    "inference_geo",
    "web_fetch_requests",
    "service_tier",
    "ttft_ms",
    "machine_id",  # session 10: rows loaded before it get this machine's id (``stamp_machine``)
)
RANK_SQL = (
    "(CASE source WHEN 'provider-reported' THEN 10 ELSE 0 END)"
    " + (CASE origin WHEN 'proxy' THEN 3 WHEN 'sdk' THEN 2 ELSE 1 END)"
)

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from .incremental import FileState


@cache
def _record_decoder() -> Any:
    """The UsageRecord decoder, made on first use: a report with nothing to load never imports msgspec."""
    import msgspec
    from ctxops_contracts import UsageRecord

    return msgspec.json.Decoder(UsageRecord)


def _schema_sql() -> str:
    cols = ",\n  ".join(f"{name} {kind}" for name, kind in COLUMNS.items())
    return f"""
CREATE TABLE IF NOT EXISTS usage (
  {cols},
  rank INTEGER,
  PRIMARY KEY (dedupe_key)
);
CREATE TABLE IF NOT EXISTS jsonl_files (
  path VARCHAR PRIMARY KEY,
  state VARCHAR
);
""" + "".join(f"ALTER TABLE usage ADD COLUMN IF NOT EXISTS {c} {COLUMNS[c]};\n" for c in ADDED_COLUMNS)


def _merge_sql(unique: bool = False, empty: bool = False, source: str = "incoming") -> str:
    """Fold the batch to one row per key, then merge each into the table.

    Within the batch and against the table alike: the best-ranked copy's token counts win (ties: the first
    one read, as ccusage keeps the first), details come from the best copy that has them. ``unique``: every
    key occurs once in the batch (the usual first ingest), so each fold is its row's own value and the
    grouping is skipped; ``empty`` too: the table has no rows yet, so nothing can conflict. ``source``: the
    table (or table function) the batch is read from; only a table has the ``rowid`` that breaks ties.
    """
    names = list(COLUMNS)
    prio = "rank::BIGINT * 1000000000000 - _seq"
    folded = []
    for c in names:
        if unique:
            folded.append(_single(c))
        elif c == "dedupe_key":
            folded.append(c)
        elif c == "output_tokens":
            # The best-ranked copy's count; among copies of one rank, the largest (a message's last line).
            folded.append(f"coalesce(arg_max({c}, rank::BIGINT * 1000000000000 + coalesce({c}, 0)), 0) AS {c}")
        elif c in COUNT_COLUMNS:
            folded.append(f"coalesce(arg_max({c}, {prio}), 0) AS {c}")  # a count left out of a line is 0
        elif c in SERVER_TOOL_COLUMNS:
            folded.append(f"coalesce(max({c}), 0) AS {c}")
        elif c in TOKEN_COLUMNS or c == "schema_version":
            folded.append(f"arg_max({c}, {prio}) AS {c}")
        elif c == "is_sidechain":
            folded.append(f"bool_or({c}) AS {c}")
        elif c == "attribution":
            folded.append(f"coalesce(arg_max({c}, {prio}) FILTER (WHERE len({c}) > 0), []) AS {c}")
        else:
            folded.append(f"arg_max({c}, {prio}) FILTER (WHERE {c} IS NOT NULL) AS {c}")
    better = "EXCLUDED.rank > usage.rank"
    sets = [
        f"{c} = CASE WHEN {better} THEN EXCLUDED.{c} ELSE usage.{c} END" for c in TOKEN_COLUMNS if c != "output_tokens"
    ]
    sets.append(
        f"output_tokens = CASE WHEN {better} THEN EXCLUDED.output_tokens WHEN EXCLUDED.rank = usage.rank "
        "THEN greatest(usage.output_tokens, EXCLUDED.output_tokens) ELSE usage.output_tokens END"
    )
    sets += [f"{c} = greatest(coalesce(usage.{c}, 0), coalesce(EXCLUDED.{c}, 0))" for c in SERVER_TOOL_COLUMNS]
    sets += [
        f"{c} = CASE WHEN {better} THEN coalesce(EXCLUDED.{c}, usage.{c}) ELSE coalesce(usage.{c}, EXCLUDED.{c}) END"
        for c in CALL_FACTS
    ]
    sets += [f"{c} = COALESCE(usage.{c}, EXCLUDED.{c})" for c in DETAIL_COLUMNS]
    sets.append("is_sidechain = usage.is_sidechain OR EXCLUDED.is_sidechain")
    sets.append(
        "attribution = CASE WHEN usage.attribution IS NULL OR len(usage.attribution) = 0"
        " THEN EXCLUDED.attribution ELSE usage.attribution END"
    )
    sets.append("rank = greatest(usage.rank, EXCLUDED.rank)")
    rank, group = ("rank", "") if unique else ("max(rank) AS rank", " GROUP BY dedupe_key")
    insert = (
        f"INSERT INTO usage ({', '.join(names)}, rank) "
        f"SELECT {', '.join(folded)}, {rank} "
        f"FROM (SELECT *, {RANK_SQL} AS rank{'' if unique else ', rowid AS _seq'} FROM {source}){group}"
    )
    if unique and empty:
        return insert
    return f"{insert} ON CONFLICT (dedupe_key) DO UPDATE SET {', '.join(sets)}"


# A Gemini call seen by the proxy (or the SDK wrapper) and in Gemini CLI's chat file shares no id between the copies
# (the chat file keeps its own message id, not the response's): they are one call when the model and every token
# count agree and the chat line was written within the proxy call's span (it is written when the reply is
# complete). Each chat-file copy pairs with the nearest such wire copy, each wire copy once; the pair becomes the
# wire copy (the provider's own counts, latency, status) with the session, cwd and repository of the chat file.
GEMINI_TWIN_SLACK_MS = 60_000
_TWINS_SQL = f"""
CREATE OR REPLACE TEMP TABLE gemini_twins AS
WITH pairs AS (
  SELECT t.dedupe_key AS t_key, w.dedupe_key AS w_key,
    row_number() OVER (PARTITION BY t.dedupe_key ORDER BY abs(epoch_ms(t.ts) - epoch_ms(w.ts)), w.dedupe_key) AS by_t,
    row_number() OVER (PARTITION BY w.dedupe_key ORDER BY abs(epoch_ms(t.ts) - epoch_ms(w.ts)), t.dedupe_key) AS by_w
  FROM usage t JOIN usage w
    ON t.provider = 'google' AND t.origin = 'transcript' AND w.provider = 'google' AND w.origin <> 'transcript'
   AND w.model = t.model AND w.input_tokens = t.input_tokens AND w.output_tokens = t.output_tokens
   AND w.cache_read_tokens = t.cache_read_tokens
   AND epoch_ms(t.ts) BETWEEN epoch_ms(w.ts) - 5000
       AND epoch_ms(w.ts) + coalesce(w.latency_ms, 0)::BIGINT + {GEMINI_TWIN_SLACK_MS}
  WHERE t.dedupe_key IN (SELECT dedupe_key FROM incoming) OR w.dedupe_key IN (SELECT dedupe_key FROM incoming)
)
SELECT t_key, w_key FROM pairs WHERE by_t = 1 AND by_w = 1
"""


def merge_gemini_twins(con: Any) -> int:
    """Fold each chat-file copy of a Gemini call into its proxy/SDK copy (see ``_TWINS_SQL``); how many."""
    row = con.execute("SELECT count(*) FROM incoming WHERE provider = 'google'").fetchone()
    if not row or not row[0]:
        return 0
    con.execute(_TWINS_SQL)
    found = con.execute("SELECT count(*) FROM gemini_twins").fetchone()[0]
    if found:
        touched = con.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'rollup_touched' AND temporary"
        ).fetchone()[0]
        if touched:  # the hours of both copies change (one leaves, the other gains a session)
            con.execute(
                f"INSERT INTO rollup_touched SELECT DISTINCT {rollup.HOUR_SQL} FROM usage "
                "WHERE dedupe_key IN (SELECT t_key FROM gemini_twins UNION ALL SELECT w_key FROM gemini_twins)"
            )
        sets = ", ".join(f"{c} = coalesce(usage.{c}, t.{c})" for c in DETAIL_COLUMNS)
        con.execute(
            f"UPDATE usage SET {sets}, attribution = CASE WHEN usage.attribution IS NULL OR len(usage.attribution) = 0 "
            "THEN t.attribution ELSE usage.attribution END "
            "FROM (SELECT g.w_key, u.* FROM gemini_twins g JOIN usage u ON u.dedupe_key = g.t_key) t "
            "WHERE usage.dedupe_key = t.w_key"
        )
        con.execute("DELETE FROM usage WHERE dedupe_key IN (SELECT t_key FROM gemini_twins)")
    con.execute("DROP TABLE gemini_twins")
    return int(found)


def stamp_machine(con: Any, table: str = "usage") -> int:
    """Give the rows of ``table`` that carry no machine id this machine's (records written before ids were stamped,
    and a ledger of that time: the migration); how many. Nothing when this machine's id cannot be resolved."""
    from .machine import this_machine

    row = con.execute(f"SELECT count(*) FROM {table} WHERE machine_id IS NULL").fetchone()
    if not row or not row[0]:
        return 0
    machine = this_machine()
    if machine is None:
        return 0
    con.execute(f"UPDATE {table} SET machine_id = ? WHERE machine_id IS NULL", [machine])
    return int(row[0])


def _single(c: str) -> str:
    """What ``_merge_sql``'s fold gives for column ``c`` of a key with one row in the batch."""
    if c in COUNT_COLUMNS or c in SERVER_TOOL_COLUMNS or c == "output_tokens":
        return f"coalesce({c}, 0) AS {c}"
    if c == "attribution":
        return f"CASE WHEN len({c}) > 0 THEN {c} ELSE [] END AS {c}"
    return c


def _columns_literal() -> str:
    return "{" + ", ".join(f"'{k}': '{v}'" for k, v in COLUMNS.items()) + "}"


class LedgerError(RuntimeError):
    """The ledger could not be opened or written; the message says what to do."""


def _valid_line(line: bytes) -> str | None:
    """None when ``line`` is a UsageRecord this reader understands; else why not."""
    import msgspec
    from ctxops_contracts import SCHEMA_MAJOR

    try:
        record = _record_decoder().decode(line)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        return f"invalid UsageRecord: {exc}"
    major = record.schema_version.split(".", 1)[0]
    if major != str(SCHEMA_MAJOR):
        return f"unsupported schema version {record.schema_version}"
    return None


def load_pending(
    con: Any,
    root: Path,
    report: IngestReport,
    *,
    persist_offsets: bool = True,
    own: tuple[Path, Path] | None = None,
    preloaded: bool = False,
) -> tuple[int, list[FileState]]:
    """Load every JSONL line not yet in the ledger; return how many new calls it added, and the files' states.

    ``own``: (record file, copy) when this process appended lines to that record file during this run and
    kept a copy of them. When everything pending in the file is exactly that copy (no other writer came in
    between), DuckDB reads the copy as it is: those lines were encoded from records here, so they are not
    decoded and checked one by one again. Otherwise the file is read like any other.

    ``preloaded``: those lines are already in ``usage`` (see :class:`Preload`); this only checks that they are
    all that is pending (else raises :class:`NotOnlyOwnLines`, and the caller rolls back) and records the
    states.
    """
    import msgspec

    from .incremental import FileState, iter_new_lines, resume_matching

    states: dict[str, FileState] = {}
    saved: dict[str, str] = {}
    if persist_offsets:
        for path, raw in con.execute("SELECT path, state FROM jsonl_files").fetchall():
            states[path] = msgspec.json.decode(raw, type=FileState)
            saved[path] = raw
    tmp_dir = root / "tmp"
    ensure_dir(tmp_dir)  # 0700: the per-user data directory is private
    new_states: list[FileState] = []
    sources: list[str] = []  # files DuckDB reads, in the order the lines were written (ties: the first wins)
    made: list[str] = []
    good = 0
    try:
        for path in record_files(root):
            previous = states.get(str(path))
            if own is not None and persist_offsets and path == own[0]:
                state = resume_matching(path, previous, own[1])
                if state is not None:
                    if not preloaded:
                        sources.append(str(own[1]))
                        good += 1
                    new_states.append(state)
                    continue
            lines, result, state = iter_new_lines(path, previous)
            if preloaded:
                if own is None or path == own[0] or next(lines, None) is not None:
                    raise NotOnlyOwnLines(str(path))
                if result.pending_tail:
                    report.incomplete_tails += 1
                new_states.append(state)
                continue
            written = _copy_valid_lines(path, lines, report, tmp_dir, made)
            if written:
                sources.append(made[-1])
                good += written
            if result.pending_tail:
                report.incomplete_tails += 1
            new_states.append(state)
        before = 0 if preloaded else con.execute("SELECT count(*) FROM usage").fetchone()[0]
        if preloaded:
            rollup.rebuild(con)  # the table was empty: every hour is new
        if good:
            # Insertion order is kept (DuckDB's default): a row's ``rowid`` in ``incoming`` is its position in
            # the order the files were listed and their lines written, which breaks ties (see _merge_sql).
            con.execute(
                f"CREATE OR REPLACE TEMP TABLE incoming AS SELECT * FROM read_json(?, format='newline_delimited', "
                f"columns={_columns_literal()})",
                [sources],
            )
            stamp_machine(con, "incoming")  # records written before ids were stamped: this machine's
            rollup.note_touched(con, existing=before > 0)
            unique = con.execute("SELECT count(*) = count(DISTINCT dedupe_key) FROM incoming").fetchone()[0]
            con.execute(_merge_sql(unique=bool(unique), empty=before == 0))
            merge_gemini_twins(con)
            con.execute("DROP TABLE incoming")
            rollup.update(con)
        if persist_offsets:
            for state in new_states:
                encoded = msgspec.json.encode(state).decode()
                if saved.get(state.path) != encoded:  # nothing new in a file: no write
                    con.execute("INSERT OR REPLACE INTO jsonl_files VALUES (?, ?)", [state.path, encoded])
        after = con.execute("SELECT count(*) FROM usage").fetchone()[0]
    finally:
        for name in made:
            Path(name).unlink(missing_ok=True)
    added = int(after - before)
    report.loaded += added
    return added, new_states


def _copy_valid_lines(
    path: Path, lines: Iterator[tuple[int, bytes]], report: IngestReport, tmp_dir: Path, made: list[str]
) -> int:
    """Write the valid records among ``lines`` to a new temporary file (its name appended to ``made`` once
    there is one); refuse the others. Returns how many were written."""
    out = None
    written = 0
    parts: list[bytes] = []
    try:
        for offset, line in lines:
            if not line.strip():
                continue
            problem = _valid_line(line)
            if problem:
                report.refuse("invalid_json", f"{path}:{offset}", problem)
                continue
            parts.append(line)
            written += 1
            if len(parts) >= 4096:
                out = out or _new_temp(tmp_dir, made)
                out.write(b"\n".join(parts) + b"\n")
                parts.clear()
        if parts:
            out = out or _new_temp(tmp_dir, made)
            out.write(b"\n".join(parts) + b"\n")
    finally:
        if out is not None:
            out.close()
    return written


def _new_temp(tmp_dir: Path, made: list[str]) -> Any:
    import tempfile

    fd, name = tempfile.mkstemp(prefix="load-", suffix=".jsonl", dir=tmp_dir)
    made.append(name)
    return os.fdopen(fd, "wb")


class NotOnlyOwnLines(Exception):
    """A preloaded load found record lines it did not insert itself pending (see :class:`Preload`)."""


class Ledger:
    """Opens the ledger file under the writer lock; rebuilds it from JSONL when it is corrupt."""

    def __init__(self, root: Path | None = None, *, lock_timeout: float = 10.0) -> None:
        self.root = root or data_dir()
        self.path = self.root / LEDGER_FILE
        self.lock_timeout = lock_timeout

    @contextmanager
    def writer(self) -> Iterator[Any]:
        """A connection to the ledger file, held under the lock, closed on exit."""
        duckdb = duckdb_module()

        ensure_dir(self.root)  # 0700: the per-user data directory is private
        with file_lock(self.root / LOCK_FILE, timeout=self.lock_timeout):
            con = self._connect(duckdb)
            with contextlib.suppress(OSError):
                self.path.chmod(0o600)  # DuckDB creates its file with the umask's mode
            try:
                con.execute(QUIET)
                con.execute(_schema_sql())
                yield con
            finally:
                con.close()

    def _connect(self, duckdb: Any) -> Any:
        deadline = time.monotonic() + self.lock_timeout
        while True:
            try:
                return duckdb.connect(str(self.path))
            except duckdb.IOException as exc:
                if "lock" in str(exc).lower() and time.monotonic() < deadline:
                    time.sleep(0.05)  # a reader that does not use our lock file: wait for it
                    continue
                if "lock" in str(exc).lower():
                    raise LedgerError(f"{self.path} is held by another process: {exc}") from None
                return self._rebuild(duckdb, exc)
            except duckdb.Error as exc:
                return self._rebuild(duckdb, exc)

    def _rebuild(self, duckdb: Any, exc: Exception) -> Any:
        aside = self.path.with_name(f"{self.path.name}.corrupt-{int(time.time())}")
        import shutil

        shutil.move(str(self.path), aside)
        for suffix in (".wal",):
            Path(str(self.path) + suffix).unlink(missing_ok=True)
        (self.root / LOADED_STATE).unlink(missing_ok=True)
        log.warning("%s could not be opened (%s); moved to %s, rebuilding from JSONL", self.path, exc, aside)
        return duckdb.connect(str(self.path))

    def load(self, report: IngestReport, *, own: tuple[Path, Path] | None = None) -> int:
        """Load pending JSONL lines (skipped without opening DuckDB when nothing changed); ``own``: see
        :func:`load_pending`."""
        if self.up_to_date():
            return 0
        with self.writer() as con:
            return self.load_into(con, report, own=own)

    def load_into(self, con: Any, report: IngestReport, *, own: tuple[Path, Path] | None = None) -> int:
        """Load pending JSONL lines through ``con`` (a writer connection), in one transaction."""
        con.execute("BEGIN")
        try:
            if stamp_machine(con):  # a ledger written before records carried machine ids: once
                rollup.rebuild(con)
            added, states = load_pending(con, self.root, report, own=own)
            rollup.ensure(con)
        except BaseException:
            con.execute("ROLLBACK")
            raise
        con.execute("COMMIT")
        self._remember_loaded({s.path: [s.inode, s.offset] for s in states})
        return added

    def _fingerprint(self) -> dict[str, list[int]]:
        return fingerprint(self.root)

    def up_to_date(self) -> bool:
        return up_to_date(self.root)

    def _remember_loaded(self, loaded: dict[str, list[int]]) -> None:
        """Record (inode, bytes loaded) per file: equal to (inode, size) on disk means nothing is pending."""
        remember_loaded(self.root, loaded)


class Preload:
    """Inserts an ingest's own lines into a new ledger as they are parsed, while the parse goes on.

    A first ingest parses in worker processes while this process waits; meanwhile it can load what is already
    parsed, so what is left after the last file is a check and a small commit instead of the whole load.
    Opened only after the workers are forked (a DuckDB connection runs threads). It applies to a new ledger:
    ``usage`` empty and no record file yet, so nothing but this run's lines can be pending. Each 4 MB of lines
    goes in with a plain insert and its own commit, in the order the lines are appended (every key of a run
    is new, except a message whose later lines grew: that key's second insert fails, the chunk rolls back,
    and :meth:`finish` loads the usual way). The last chunk, the file states and the hourly roll-up commit
    together, and only when everything pending in the record files is exactly this run's lines
    (``load_pending(..., preloaded=True)``); else that transaction rolls back and the usual load merges
    everything pending, this run's lines again included. That equals one load of them all: the rows already
    in are the first copies of their keys in read order, which is what the merge keeps (other writers' lines
    in a new ledger are other origins, whose rank decides, or copies of the same transcript lines). A crash
    in between leaves rows whose lines the next load merges again, the same way.
    """

    CHUNK = 4 << 20

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self._stack = ExitStack()
        self.con = self._stack.enter_context(ledger.writer())
        empty = self.con.execute("SELECT count(*) FROM usage").fetchone()[0] == 0
        self.active = empty and not record_files(ledger.root)
        self.committed = 0  # rows inserted by the chunks committed so far
        if self.active:
            # The workers keep every core busy meanwhile: one DuckDB thread does the same work for less CPU.
            self.con.execute("SET threads = 1")
        self._parts: list[bytes] = []
        self._size = 0
        self._insert = _merge_sql(
            unique=True,
            empty=True,
            source=f"read_json(?, format='newline_delimited', columns={_columns_literal()})",
        )
        self._tmp = ledger.root / "tmp"

    def add(self, payload: bytes) -> None:
        """Lines just appended to the record file (whole, encoded here)."""
        if not self.active or not payload:
            return
        self._parts.append(payload)
        self._size += len(payload)
        if self._size >= self.CHUNK:
            self.con.execute("BEGIN")
            if self._insert_parts():
                self.con.execute("COMMIT")

    def _insert_parts(self) -> bool:
        """Insert the lines gathered so far in the open transaction; on a key inserted twice, roll it back."""
        data, self._parts, self._size = b"".join(self._parts), [], 0
        if not data:
            return True
        made: list[str] = []
        try:
            with _new_temp(self._tmp, made) as out:
                out.write(data)
            self.con.execute(self._insert, [made[0]])
            self.committed += data.count(b"\n")
        except duckdb_module().Error as exc:  # a key inserted twice (a grown message): load the usual way
            log.info("preloading stopped (%s); the load reads the records after the parse", exc)
            self.con.execute("ROLLBACK")
            self.active = False
            return False
        finally:
            for name in made:
                Path(name).unlink(missing_ok=True)
        return True

    def finish(self, report: IngestReport, own: tuple[Path, Path] | None) -> int:
        """Check, record and commit what was inserted (or load the usual way); close the connection."""
        with self._stack:
            self.con.execute("RESET threads")  # the parse is over: the check, commit or usual load may use all
            if self.active:
                self.con.execute("BEGIN")
                pending = self.committed
                if self._insert_parts():
                    try:
                        added, states = load_pending(self.con, self.ledger.root, report, own=own, preloaded=True)
                    except NotOnlyOwnLines as exc:
                        log.info("other records are pending too (%s); loading them all the usual way", exc)
                        self.con.execute("ROLLBACK")
                        self.committed = pending
                    except BaseException:
                        self.con.execute("ROLLBACK")
                        raise
                    else:
                        self.con.execute("COMMIT")
                        self.ledger._remember_loaded({s.path: [s.inode, s.offset] for s in states})
                        return added
            # The rows committed above are new calls of this run: the usual load merges their lines again.
            report.loaded += self.committed
            return self.committed + self.ledger.load_into(self.con, report, own=own)

    def close(self) -> None:
        """Give up (the ingest failed): close (committed chunks are merged again by the next load)."""
        with self._stack:
            self.active = False


def memory_ledger(root: Path, report: IngestReport) -> Any:
    """An in-memory ledger loaded straight from the JSONL truth (used when the file is busy)."""
    con = duckdb_module().connect(":memory:")
    con.execute(QUIET)
    con.execute(_schema_sql())
    load_pending(con, root, report, persist_offsets=False)
    rollup.ensure(con)
    return con
