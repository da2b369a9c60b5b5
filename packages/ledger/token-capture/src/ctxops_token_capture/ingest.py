"""Ingest agent transcripts into the ledger: read what is new, append records to JSONL, load DuckDB.

Per file, ingestion remembers how far it read (see ``incremental``) and the parser's carry-over, so a
re-run reads only what was appended. Files are read oldest first (by their first timestamp), the order
ccusage uses, so when a call appears in two files (a resumed session, the same session in two config
directories) the same copy is kept.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from .paths import data_dir
from .report import IngestReport
from .sources import (
    Found,
    Sources,
    save_signature,
    scan,
    signature_of_states,
    unchanged_since_saved,
)
from .usage_files import up_to_date

if TYPE_CHECKING:
    from ctxops_contracts import UsageRecord

    from .file_ingest import SourceFile
    from .incremental import FileState
    from .ledger import Preload

__all__ = ["SOURCES_SIGNATURE", "SOURCES_STATE", "Sources", "discover", "ingest", "ingest_records"]

SOURCES_STATE = "state/sources.json"
SOURCES_SIGNATURE = "state/sources.sig"
SOURCES_DIRS = "state/sources-dirs.json"  # the directories the last ingest read: what a live report re-reads
FLUSH_BYTES = 16 << 20
PRELOAD_LOCK_WAIT = 0.2  # seconds a first ingest waits for the ledger before loading while it parses


def discover(
    sources: Sources,
    keep: Callable[[str, os.stat_result], bool] | None = None,
    *,
    found: list[Found] | None = None,
) -> list[SourceFile]:
    """Transcript files under ``sources``, Claude Code ones oldest first; each real file once.

    ``keep`` filters before the files are ordered: ordering reads the head of each file, so a re-run that
    skips unchanged files first reads nothing of them. ``found``: the walk already made (``sources.scan``).
    """
    from .claude_code import first_timestamp
    from .file_ingest import SourceFile

    claude: list[tuple[str, int, str, SourceFile]] = []
    others: list[SourceFile] = []
    for kind, top, path, st in scan(sources) if found is None else found:
        if keep is not None and not keep(path, st):
            continue
        if kind == "claude-code":
            source = SourceFile(kind, Path(path))
            # Oldest first; between files that start at the same time (a resumed session replays its original's
            # history, first timestamp included), the one last written first: the original, whose session made
            # those calls, keeps them.
            claude.append((first_timestamp(source.path), st.st_mtime_ns, path, source))
        elif kind == "codex":
            others.append(SourceFile(kind, Path(path), path[len(top) + 1 :].removesuffix(".jsonl")))
        else:
            others.append(SourceFile(kind, Path(path), path.rpartition(os.sep)[2].removesuffix(".jsonl")))
    claude.sort(key=lambda f: f[:3])
    return [f[3] for f in claude] + others


def _load_states(path: Path) -> dict[str, FileState]:
    import msgspec

    from .incremental import FileState

    if not path.exists():
        return {}
    try:
        return msgspec.json.decode(path.read_bytes(), type=dict[str, FileState])
    except (msgspec.DecodeError, msgspec.ValidationError):
        # A damaged state file only costs a full re-read: loading is idempotent.
        return {}


def _save_states(path: Path, states: dict[str, FileState]) -> None:
    import msgspec
    from ctxops_contracts.shared.files import atomic_write

    atomic_write(path, msgspec.json.encode(states), fsync=False)  # 0600 in a 0700 directory


class _Batch:
    """Encoded records waiting to be appended, flushed in large blocks.

    With ``copy`` (a file name), every payload is also written there as it arrives, so the ledger's load can
    take this run's lines from it instead of reading and checking them again (``ledger.load_pending``).
    """

    def __init__(self, root: Path, copy: Path | None = None) -> None:
        self.root = root
        self.parts: list[bytes] = []
        self.size = 0
        self.count = 0
        self.files: set[Path] = set()
        self.copy = copy.open("wb") if copy is not None else None

    def add_encoded(self, payload: bytes, count: int) -> None:
        """Add ``count`` already-encoded records (whole JSONL lines)."""
        if payload:
            self.parts.append(payload)
            self.size += len(payload)
            self.count += count
            if self.copy is not None:
                self.copy.write(payload)
        if self.size >= FLUSH_BYTES:
            self.flush()

    def flush(self) -> None:
        if self.parts:
            from .jsonl_store import append_lines, month_file

            self.files.add(month_file("transcript", self.root))
            append_lines(b"".join(self.parts), "transcript", self.root)
            self.parts, self.size = [], 0

    def close(self) -> tuple[Path, Path] | None:
        """Flush; then (the record file appended to, the copy) when all went to one file, for the load."""
        self.flush()
        if self.copy is None:
            return None
        self.copy.close()
        if len(self.files) != 1:
            return None
        return next(iter(self.files)), Path(self.copy.name)


def ingest(
    sources: Sources,
    root: Path | None = None,
    *,
    load: bool = True,
    compat: str = "exact",
    workers: int | None = None,
) -> IngestReport:
    """Read what is new under ``sources`` into the ledger at ``root`` (default: the user data dir).

    ``compat="ccusage"`` keeps the first line of a message as ccusage@17 does, even when later lines carry a
    larger output count (for side-by-side checks; use its own data dir). ``workers``: processes that parse
    Claude Code files (None: one per core when there is enough to read, see ``parallel``; 1: none).
    """
    root = root or data_dir()
    report = IngestReport()
    state_path = root / SOURCES_STATE
    signature_path = root / SOURCES_SIGNATURE
    found = scan(sources)
    report.files_seen = len(found)
    _remember(root, sources)
    if unchanged_since_saved(found, state_path, signature_path, sources) and (not load or up_to_date(root)):
        return report  # the common re-run: a stat per file, nothing opened, nothing imported
    from .parallel import read_all

    states = _load_states(state_path)

    def changed(path: str, st: os.stat_result) -> bool:
        previous = states.get(path)
        return previous is None or not _untouched(st, previous)

    files = discover(sources, keep=changed, found=found)
    seen: dict[str, int] = {}
    copy = _copy_name(root) if load and files else None
    preload: list[Preload] = []

    def while_parsing() -> None:
        """Once the workers are forked (DuckDB's threads must not be copied into them): start loading what they
        parse into an empty ledger as it comes (``ledger.Preload``)."""
        from ctxops_contracts.shared.locks import LockBusy

        from .ledger import Ledger, LedgerError, Preload

        # A ledger busy right now is not waited for here: the usual load after the parse waits for it.
        with contextlib.suppress(LockBusy, LedgerError):
            preload.append(Preload(Ledger(root, lock_timeout=PRELOAD_LOCK_WAIT)))

    try:
        batch = _Batch(root, copy)
        for source, payload, count, state in read_all(
            files, states, report, seen, compat=compat, workers=workers, while_waiting=while_parsing if load else None
        ):
            batch.add_encoded(payload, count)
            if preload:
                preload[0].add(payload)
            if state is not None:
                states[str(source.path)] = state
        own = batch.close()
        report.records = batch.count
        if files or not state_path.exists():  # nothing read: the saved states are still exact, leave the file be
            _save_states(state_path, states)
        save_signature(
            signature_path, signature_of_states(found, state_path, lambda path: _recorded(states, path), sources)
        )
        if preload:
            preload.pop().finish(report, own)
        elif load:
            from .ledger import Ledger

            Ledger(root).load(report, own=own)
    finally:
        for unfinished in preload:
            unfinished.close()
        if copy is not None:
            copy.unlink(missing_ok=True)
    return report


def _dirs_of(sources: Sources) -> list[list[str]]:
    return [[str(p) for p in dirs] for dirs in (sources.claude_dirs, sources.codex_homes, sources.gemini_dirs)]


def _remember(root: Path, sources: Sources) -> None:
    """Keep the directories this ingest reads, so a report can bring the ledger up to date with the same ones."""
    import json

    path = root / SOURCES_DIRS
    text = json.dumps(_dirs_of(sources)).encode()
    try:
        if path.read_bytes() == text:
            return
    except OSError:
        pass
    from ctxops_contracts.shared.confine import ensure_dir
    from ctxops_contracts.shared.files import atomic_write

    with contextlib.suppress(OSError):  # a read-only data dir: reports then say nothing of changes
        # The signature names the directories of the ingest that wrote it: other ones now (and this run may
        # not finish), so a live report's check must not take it for theirs.
        (root / SOURCES_SIGNATURE).unlink(missing_ok=True)
        ensure_dir(path.parent)
        atomic_write(path, text, fsync=False)


def remembered_sources(root: Path | None = None) -> Sources | None:
    """The directories the last ingest into ``root`` read that still exist (None: never ingested there, or
    unreadable)."""
    import json

    try:
        dirs = json.loads((root or data_dir()).joinpath(SOURCES_DIRS).read_bytes())
        claude, codex, gemini = ([Path(p) for p in group if isinstance(p, str)] for group in dirs)
    except (OSError, ValueError, TypeError):
        return None
    return _existing(Sources(claude_dirs=claude, codex_homes=codex, gemini_dirs=gemini))


def changed_sources(sources: Sources, root: Path | None = None) -> int:
    """How many transcript files under ``sources`` changed (or appeared) since the last ingest into ``root``."""
    root = root or data_dir()
    found = scan(sources)
    if unchanged_since_saved(found, root / SOURCES_STATE, root / SOURCES_SIGNATURE, sources):
        return 0
    states = _load_states(root / SOURCES_STATE)
    return sum(1 for _, _, path, st in found if path not in states or not _untouched(st, states[path]))


def _existing(sources: Sources) -> Sources:
    """``sources`` without the directories that are gone (a report must not fail on a removed one)."""
    return Sources(
        claude_dirs=[d for d in sources.claude_dirs if (d / "projects").is_dir()],
        codex_homes=[d for d in sources.codex_homes if (d / "sessions").is_dir()],
        gemini_dirs=[d for d in sources.gemini_dirs if (d / "tmp").is_dir()],
    )


def live(root: Path | None = None, *, no_ingest: bool = False) -> str | None:
    """Before a report: ingest what changed under the sources the last ingest read (a stat per file when
    nothing did), or with ``no_ingest`` only count them. Returns a one-line note for the report, or None.

    A ledger no transcript was ever ingested into (records from the proxy or SDK only) is left as it is.
    """
    root = root or data_dir()
    from .livecheck import unchanged

    if unchanged(str(root)):
        return None  # the common case: a walk and a stat per file against the last ingest's signature
    sources = remembered_sources(root)
    if sources is None:
        return None
    if no_ingest:
        try:
            count = changed_sources(sources, root)
        except OSError:
            return None
        if not count:
            return None
        return f"{count} transcript file(s) changed since the last ingest (not read: --no-ingest)"
    from ctxops_contracts.shared.locks import LockBusy

    from .ledger import LedgerError

    try:
        report = ingest(sources, root)
    except (OSError, LockBusy, LedgerError) as exc:
        return f"transcripts not re-read before this report ({exc})"
    if report.records:
        return f"ingested {report.records} new call(s) from {report.files_read} changed transcript file(s) first"
    return None


def _copy_name(root: Path) -> Path:
    """A file of this run's own for the copy of what it appends (``_Batch``)."""
    tmp = root / "tmp"
    from ctxops_contracts.shared.confine import ensure_dir

    ensure_dir(tmp)  # 0700: the per-user data directory is private
    return tmp / f"ingest-{os.getpid()}-{time.time_ns()}.jsonl"


def _recorded(states: dict[str, FileState], path: str) -> tuple[int, int, int, int] | None:
    state = states.get(path)
    return None if state is None else (state.dev, state.inode, state.size, state.mtime_ns)


def _untouched(st: os.stat_result, state: FileState) -> bool:
    """Same inode, size and modification time as when last read: nothing to do (the common case on a re-run).

    The modification time catches a rewrite in place that kept the size.
    """
    same_file = st.st_ino == state.inode and st.st_dev == state.dev
    return same_file and st.st_size == state.size and st.st_mtime_ns == state.mtime_ns


def ingest_records(records: Iterable[UsageRecord], origin: str, root: Path | None = None) -> int:
    """Append records from any origin to the JSONL truth (they reach DuckDB on the next load)."""
    from .jsonl_store import append_records

    return append_records(records, origin, root)
