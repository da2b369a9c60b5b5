"""Parse Claude Code files in worker processes, with the result a single process would give.

Files are read oldest first and a call seen in an earlier file is a duplicate in a later one, so parsing
is sequential by nature. Workers parse each file on its own (a fresh ``seen``) and report every dedupe key
the file asked about; the parent takes the results in file order and accepts one only when none of those
keys was met in an earlier file. Otherwise (a resumed session copied into a new file, rare) it parses that
file again itself with the run's ``seen``. Either way the records, counts and saved states are the ones
the sequential reading gives. The parent alone writes (JSONL, then DuckDB).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterator

from .estimate import preload
from .file_ingest import SourceFile, read_source
from .incremental import FileState
from .report import IngestReport

WORKERS_ENV = "CTXOPS_INGEST_WORKERS"
# Below this much to read, starting workers costs more than it saves (a re-run that reads a few new lines).
PARALLEL_MIN_BYTES = 32 << 20
MAX_WORKERS = 8

log = logging.getLogger(__name__)

_Read = tuple[SourceFile, bytes, int, FileState | None]
_Parsed = tuple[bytes, int, FileState | None, IngestReport, dict[str, int], set[str]]


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def other_threads_running() -> bool:
    """Whether this process runs threads besides the main one (forking it could copy a held lock)."""
    return threading.active_count() > 1


def worker_count(to_read: int, files: int, requested: int | None = None) -> int:
    """How many worker processes to parse ``files`` holding ``to_read`` new bytes (1: parse in-process).

    ``requested`` (or ``$CTXOPS_INGEST_WORKERS``) overrides the automatic choice: one per core, when at
    least PARALLEL_MIN_BYTES are new. Workers are forked, so a process that runs threads parses in-process.
    """
    if requested is None:
        env = os.environ.get(WORKERS_ENV, "").strip()
        if env.isdigit():
            requested = int(env)
        elif env:
            log.warning("%s=%r is not a number of workers; choosing automatically", WORKERS_ENV, env)
    if requested is None:
        requested = _cores() if to_read >= PARALLEL_MIN_BYTES else 1
    if requested <= 1 or other_threads_running():
        return 1
    import multiprocessing  # here: a re-run with nothing to read never needs it

    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return max(1, min(requested, files, MAX_WORKERS))


def _parse_alone(job: tuple[SourceFile, FileState | None, str]) -> _Parsed:
    """A worker's whole file, with its own ``seen`` (runs in a worker process)."""
    source, previous, compat = job
    report = IngestReport()
    seen: dict[str, int] = {}
    looked_up: set[str] = set()
    payload, count, state = read_source(source, previous, report, seen, compat=compat, looked_up=looked_up)
    return payload, count, state, report, seen, looked_up


def read_all(
    files: list[SourceFile],
    states: dict[str, FileState],
    report: IngestReport,
    seen: dict[str, int],
    *,
    compat: str = "exact",
    workers: int | None = None,
    while_waiting: Callable[[], object] | None = None,
) -> Iterator[_Read]:
    """Every file's new records (encoded), record count and new state, in ``files`` order.

    ``while_waiting`` runs once the workers have started (the parent is idle until their first result).
    """
    claude = [f for f in files if f.kind == "claude-code"]
    to_read = 0
    if workers != 1 and len(claude) > 1:
        for source in claude:
            to_read += _new_bytes(source, states.get(str(source.path)))
    count = worker_count(to_read, len(claude), workers) if len(claude) > 1 else 1
    if count <= 1:
        for source in files:
            yield (source, *read_source(source, states.get(str(source.path)), report, seen, compat=compat))
        return
    report.workers = count
    preload()  # the tokenizer, once, before the fork: every worker shares it
    jobs = [(source, states.get(str(source.path)), compat) for source in claude]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=count, mp_context=context) as pool:
        parsed: Iterator[_Parsed] | None = pool.map(_parse_alone, jobs, chunksize=max(1, len(jobs) // (count * 16)))
        if while_waiting is not None:
            while_waiting()
        for source in files:
            previous = states.get(str(source.path))
            done = _next(parsed) if parsed is not None and source.kind == "claude-code" else None
            if done is None:
                if source.kind == "claude-code":
                    parsed = None  # the pool broke: this file and the rest are parsed here, in order
                yield (source, *read_source(source, previous, report, seen, compat=compat))
                continue
            payload, n, state, own, own_seen, looked_up = done
            if seen.keys().isdisjoint(looked_up):
                report.merge(own)
                seen.update(own_seen)
                yield source, payload, n, state
            else:  # a call an earlier file already had: only the run's ``seen`` gives the sequential answer
                yield (source, *read_source(source, previous, report, seen, compat=compat))


def _next(parsed: Iterator[_Parsed]) -> _Parsed | None:
    """The next worker result, or None when a worker died (killed, out of memory): nothing is lost by that."""
    from concurrent.futures.process import BrokenProcessPool  # loaded with the pool already

    try:
        return next(parsed)
    except BrokenProcessPool as exc:
        log.warning("an ingest worker process died (%s); parsing the remaining files in this process", exc)
        return None


def _new_bytes(source: SourceFile, previous: FileState | None) -> int:
    try:
        size = source.path.stat().st_size
    except OSError:
        return 0
    return max(0, size - (previous.offset if previous is not None else 0))
