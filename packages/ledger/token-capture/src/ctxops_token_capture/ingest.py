"""Ingest agent transcripts into the ledger: read what is new, append records to JSONL, load DuckDB.

Per file, ingestion remembers how far it read (see ``incremental``) and the parser's carry-over, so a
re-run reads only what was appended. Files are read oldest first (by their first timestamp), the order
ccusage uses, so when a call appears in two files (a resumed session, the same session in two config
directories) the same copy is kept.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import msgspec
from ctxops_contracts import UsageRecord

from .claude_code import first_timestamp
from .file_ingest import SourceFile
from .incremental import FileState
from .jsonl_store import append_lines
from .ledger import Ledger
from .parallel import read_all
from .paths import data_dir, default_claude_dirs, default_codex_home, default_gemini_dir
from .report import IngestReport

SOURCES_STATE = "state/sources.json"
FLUSH_BYTES = 16 << 20


@dataclass
class Sources:
    """Where to look: Claude config directories (holding ``projects/``), Codex homes (holding ``sessions/``)
    and Gemini CLI directories (``.gemini``, holding ``tmp/<project>/chats/``)."""

    claude_dirs: list[Path] = field(default_factory=list)
    codex_homes: list[Path] = field(default_factory=list)
    gemini_dirs: list[Path] = field(default_factory=list)

    @classmethod
    def defaults(cls) -> Sources:
        codex, gemini = default_codex_home(), default_gemini_dir()
        return cls(
            claude_dirs=default_claude_dirs(),
            codex_homes=[codex] if codex else [],
            gemini_dirs=[gemini] if gemini else [],
        )


def discover(sources: Sources, keep: Callable[[str, os.stat_result], bool] | None = None) -> list[SourceFile]:
    """Transcript files under ``sources``, Claude Code ones oldest first; each real file once.

    ``keep`` filters before the files are ordered: ordering reads the head of each file, so a re-run that
    skips unchanged files first reads nothing of them (a no-op re-ingest costs a stat per file).
    """
    seen: set[tuple[int, int]] = set()
    claude = [
        SourceFile("claude-code", Path(path))
        for _, path in _found(sources.claude_dirs, "projects", "a Claude config directory", seen, keep, ordered=False)
    ]
    claude.sort(key=lambda f: (first_timestamp(f.path), str(f.path)))
    codex = [
        SourceFile("codex", Path(path), path[len(top) + 1 :].removesuffix(".jsonl"))
        for top, path in _found(sources.codex_homes, "sessions", "a Codex home", seen, keep, accept=_is_rollout)
    ]
    gemini = [
        SourceFile("gemini", Path(path), path.rpartition(os.sep)[2].removesuffix(".jsonl"))
        for _, path in _found(sources.gemini_dirs, "tmp", "a Gemini CLI .gemini directory", seen, keep, accept=_is_chat)
    ]
    return claude + codex + gemini


def _is_rollout(path: str) -> bool:
    return path.rpartition(os.sep)[2].startswith("rollout-")


def _is_chat(path: str) -> bool:
    parts = path.rsplit(os.sep, 2)
    return len(parts) == 3 and parts[1] == "chats" and parts[2].startswith("session-")


def _found(
    bases: list[Path],
    sub: str,
    expected: str,
    seen: set[tuple[int, int]],
    keep: Callable[[str, os.stat_result], bool] | None,
    *,
    accept: Callable[[str], bool] | None = None,
    ordered: bool = True,
) -> Iterator[tuple[str, str]]:
    """(``base/sub``, file) for each transcript file under each base not met before (by device and inode,
    so a file reached through a symlink counts once; one ``stat`` per file, which ``keep`` gets too).

    ``accept`` picks the agent's files by name; ``ordered`` sorts them by path (else in walk order). Paths
    stay strings here: a re-run stats thousands of files and makes a ``Path`` only of those it reads.
    """
    for base in bases:
        top = base / sub
        if not top.is_dir():
            raise FileNotFoundError(f"{base} has no {sub}/ directory (expected {expected})")
        paths = (path for path in _walk_jsonl(str(top)) if accept is None or accept(path))
        for path in sorted(paths, key=_parts) if ordered else paths:
            try:
                st = os.stat(path)  # noqa: PTH116 - strings on purpose (see above)
            except OSError:
                continue  # a dangling link, or gone since the walk
            if stat.S_ISREG(st.st_mode) and (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                if keep is None or keep(path, st):
                    yield str(top), path


def _parts(path: str) -> list[str]:
    """Sorts like ``Path`` (component by component) for the normalized paths a walk gives."""
    return path.split(os.sep)  # noqa: PTH206


def _walk_jsonl(top: str) -> Iterator[str]:
    """``*.jsonl`` files under ``top``, following symlinked directories, each directory once (cycle-safe)."""
    visited: set[tuple[int, int]] = set()
    for directory, subdirs, names in os.walk(top, followlinks=True):
        try:
            st = os.stat(directory)  # noqa: PTH116
        except OSError:
            subdirs[:] = []
            continue
        if (st.st_dev, st.st_ino) in visited:
            subdirs[:] = []  # reached again through a link: already walked
            continue
        visited.add((st.st_dev, st.st_ino))
        subdirs.sort()
        for name in sorted(names):
            if name.endswith(".jsonl"):
                yield os.path.join(directory, name)  # noqa: PTH118


def _load_states(path: Path) -> dict[str, FileState]:
    if not path.exists():
        return {}
    try:
        return msgspec.json.decode(path.read_bytes(), type=dict[str, FileState])
    except (msgspec.DecodeError, msgspec.ValidationError):
        # A damaged state file only costs a full re-read: loading is idempotent.
        return {}


def _save_states(path: Path, states: dict[str, FileState]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(msgspec.json.encode(states))
    tmp.replace(path)


class _Batch:
    """Encoded records waiting to be appended, flushed in large blocks."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.parts: list[bytes] = []
        self.size = 0
        self.count = 0

    def add_encoded(self, payload: bytes, count: int) -> None:
        """Add ``count`` already-encoded records (whole JSONL lines)."""
        if payload:
            self.parts.append(payload)
            self.size += len(payload)
            self.count += count
        if self.size >= FLUSH_BYTES:
            self.flush()

    def flush(self) -> None:
        if self.parts:
            append_lines(b"".join(self.parts), "transcript", self.root)
            self.parts, self.size = [], 0


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
    states = _load_states(state_path)
    seen_files = 0

    def changed(path: str, st: os.stat_result) -> bool:
        nonlocal seen_files
        seen_files += 1
        previous = states.get(path)
        return previous is None or not _untouched(st, previous)

    files = discover(sources, keep=changed)
    report.files_seen = seen_files
    seen: dict[str, int] = {}
    batch = _Batch(root)
    # While workers parse, the parent imports DuckDB for the load that follows (a cached no-op afterwards).
    warm = _import_duckdb if load else None
    for source, payload, count, state in read_all(
        files, states, report, seen, compat=compat, workers=workers, while_waiting=warm
    ):
        batch.add_encoded(payload, count)
        if state is not None:
            states[str(source.path)] = state
    batch.flush()
    report.records = batch.count
    if files or not state_path.exists():  # nothing read: the saved states are still exact, leave the file be
        _save_states(state_path, states)
    if load:
        Ledger(root).load(report)
    return report


def _import_duckdb() -> None:
    import duckdb  # noqa: F401


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
