"""Scan files into ScanResults: read, hash, skip by rule, extract; in parallel for many files."""

from __future__ import annotations

import gc
import hashlib
import os
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TypeVar

import msgspec
from ctxops_contracts import FileRecord
from ctxops_contracts.records import ParseStatus

from .config import ScanConfig
from .languages import BY_NAME
from .records import ScanResult, Skipped
from .skip_rules import skip_reason
from .version import EXTRACTOR_VERSION

__all__ = ["EXTRACTOR_VERSION", "content_hash", "scan_bytes", "scan_chunks", "scan_file", "scan_files"]

T = TypeVar("T")

PARALLEL_THRESHOLD = 48  # below this many files, a process pool costs more than it saves
# A worker holds one chunk's records and rows at once (~12x its source bytes at its peak): chunks of at most
# this much source keep each worker's resident set bounded whatever the corpus (32k files in 16 chunks: 362 MiB).
CHUNK_SOURCE_BYTES = 4 << 20


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def scan_file(root: Path, rel: str, lang: str, config: ScanConfig | None = None) -> ScanResult | Skipped:
    """Scan one file. Never raises for file trouble: the answer says what happened."""
    config = config or ScanConfig()
    abs_path = root / rel
    try:
        st = abs_path.stat(follow_symlinks=False)
        if not stat.S_ISREG(st.st_mode):
            # A symlink (its target is indexed under its own path, or is outside), a FIFO (open would block),
            # a device: a path handed in by a watcher or a diff is checked like discover checks it.
            return Skipped(path=rel, reason="symlink" if stat.S_ISLNK(st.st_mode) else "not-a-file")
        if st.st_size > config.max_file_bytes:
            return Skipped(path=rel, reason="too-large", size=st.st_size)
        with open(abs_path, "rb") as fh:
            data = fh.read(config.max_file_bytes + 1)
    except FileNotFoundError:
        return Skipped(path=rel, reason="vanished")
    except OSError as exc:
        return Skipped(path=rel, reason=f"unreadable: {exc.strerror or exc}")
    if len(data) > config.max_file_bytes:
        return Skipped(path=rel, reason="too-large", size=len(data))
    reason = skip_reason(rel, data)
    if reason is not None:
        return Skipped(path=rel, reason=reason, size=len(data))
    return scan_bytes(rel, lang, data, size=st.st_size, mtime_ns=st.st_mtime_ns)


def scan_bytes(rel: str, lang: str, data: bytes, *, size: int, mtime_ns: int) -> ScanResult:
    """Extract from bytes already read. Non-UTF-8 input is decoded with replacement and flagged."""
    error: str | None = None
    # The hash of the bytes on disk, as the update's check computes it (hashed after the replacement
    # below, a non-UTF-8 file never matched: it was rescanned after every stat change, every import).
    digest = content_hash(data)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        error = f"not valid UTF-8 at byte {exc.start} (decoded with replacement)"
        data = data.decode("utf-8", "replace").encode("utf-8")
    spec = BY_NAME[lang]
    if spec.grammar is None:
        from .fallback import extract_fallback

        extraction = extract_fallback(data, rel, lang)
        status: ParseStatus = "fallback"
    else:
        from .depth import MAX_DEPTH, MAX_INDENT, cap_depth, cap_indent
        from .extract import MATCH_LIMIT, extract

        # Hostile input: nesting past the bound is blanked before the parse, so what follows is linear.
        notes = [error] if error else []  # (each later reason goes first)
        indented = 0
        if lang == "python":
            data, indented = cap_indent(data)
        data, blanked = cap_depth(data, lang)
        for limit, what, n in ((MAX_DEPTH, "brackets", blanked), (MAX_INDENT, "indentation levels", indented)):
            if n:
                notes.insert(0, f"nested deeper than {limit} {what}: {n} bytes past that depth not indexed")
        try:
            extraction = extract(data, rel, lang)
        except Exception as exc:  # a grammar crash must cost one file, not the index
            record = FileRecord(
                path=rel,
                lang=lang,
                size=size,
                mtime_ns=mtime_ns,
                content_hash=digest,
                parse_status="error",
                error=f"extraction failed: {type(exc).__name__}: {exc}",
            )
            return ScanResult(file=record)
        if extraction.query_cut:
            cut = f"more than {MATCH_LIMIT} query patterns open at once (nesting): some references not indexed"
            notes.insert(0, cut)
        if extraction.has_error:
            notes.insert(0, "syntax errors: kept what parsed")
        status = "partial" if extraction.has_error else "ok"
        error = "; ".join(notes) or None
    if error and status == "ok":
        status = "partial"
    record = FileRecord(
        path=rel,
        lang=lang,
        size=size,
        mtime_ns=mtime_ns,
        content_hash=digest,
        parse_status=status,
        error=error,
    )
    return ScanResult(
        file=record,
        symbols=extraction.symbols,
        references=extraction.references,
        imports=extraction.imports,
        types=extraction.types,
    )


class _Batch(msgspec.Struct, frozen=True):
    results: list[ScanResult]
    skipped: list[Skipped]


def _encode_batch(outcomes: list[ScanResult | Skipped]) -> bytes:
    results = [o for o in outcomes if isinstance(o, ScanResult)]
    skipped = [o for o in outcomes if isinstance(o, Skipped)]
    return msgspec.msgpack.encode(_Batch(results, skipped))


def _scan_chunk(args: tuple[str, list[tuple[str, str]], ScanConfig, Callable[[list[ScanResult | Skipped]], T]]) -> T:
    root, items, config, encode = args
    # A worker's extraction makes millions of short-lived containers and no reference cycles worth chasing:
    # the cyclic collector's passes over them were ~7% of its CPU. Off for the chunk, one pass after it.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return encode([scan_file(Path(root), rel, lang, config) for rel, lang in items])
    finally:
        if was_enabled:
            gc.enable()
            gc.collect(0)


START_METHOD_ENV = "CTXOPS_START_METHOD"
_PR_SET_PDEATHSIG = 1
_PARENT_POLL = 0.5


def _die_with(creator: int, forked: bool) -> None:
    """A scan worker's initializer: the worker ends when the process that started it ends.

    A ``kill -9`` of that process (``ctx watch``, ``cq index``) must not leave workers behind: forked, they
    share its open files (lock files included) and would keep them, and the index, busy. On Linux the
    kernel sends SIGKILL at the parent's death (``PR_SET_PDEATHSIG``); everywhere a daemon thread checks
    the parent twice a second, and a parent already gone before this ran ends the worker at once. Under
    ``forkserver`` the parent is the fork server, which ends when the process that started it does.
    """
    parent = creator if forked else os.getppid()
    if sys.platform == "linux":
        try:
            import ctypes
            import signal

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - a libc without prctl
            pass
    if os.getppid() != parent:
        os._exit(1)  # the parent died before the signal was armed

    def watch() -> None:
        import time

        while os.getppid() == parent:
            time.sleep(_PARENT_POLL)
        os._exit(1)

    import threading

    threading.Thread(target=watch, name="ctxops-parent-watch", daemon=True).start()


def scan_chunks(
    root: Path,
    items: Iterable[tuple[str, str]],
    encode: Callable[[list[ScanResult | Skipped]], T],
    config: ScanConfig | None = None,
    workers: int | None = None,
) -> Iterator[T]:
    """Scan (path, lang) pairs in chunks, each chunk's outcomes turned into `encode(outcomes)` where they
    were scanned: across processes when there are many files, so a caller that needs rows, not records,
    gets them built in parallel and sent back compactly. `encode` must be a module-level function."""
    config = config or ScanConfig()
    todo = list(items)
    workers = workers if workers is not None else (os.cpu_count() or 1)
    if workers <= 1 or len(todo) < PARALLEL_THRESHOLD:
        # In this process as in a worker: a bounded chunk at a time, the cyclic collector off for each (left on
        # for a whole one-worker build, its passes were ~10% of the build's CPU: session 24's profile)
        for chunk in _in_order_chunks(root, todo, CHUNK_SOURCE_BYTES):
            yield _scan_chunk((str(root), chunk, config, encode))
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # Largest files first, dealt round-robin into many small chunks, keeps the workers evenly loaded.
    sizes = {rel: _size(root / rel) for rel, _ in todo}
    todo.sort(key=lambda item: -sizes[item[0]])
    chunks = deal_chunks(todo, sizes, workers * 8, CHUNK_SOURCE_BYTES)
    # fork starts workers fastest on Linux; `$CTXOPS_START_METHOD` (spawn, forkserver) picks another, and
    # the workers need nothing inherited: everything they use travels in the task (tested under spawn).
    method = os.environ.get(START_METHOD_ENV) or ("fork" if sys.platform == "linux" else None)
    context = multiprocessing.get_context(method)
    with ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=_die_with,
        initargs=(os.getpid(), context.get_start_method() == "fork"),
    ) as pool:
        yield from pool.map(_scan_chunk, [(str(root), chunk, config, encode) for chunk in chunks if chunk])


def _in_order_chunks(root: Path, todo: list[tuple[str, str]], max_bytes: int) -> Iterator[list[tuple[str, str]]]:
    """`todo` in its order, cut where a chunk's source passes `max_bytes` (one file at least per chunk)."""
    chunk: list[tuple[str, str]] = []
    held = 0
    for item in todo:
        chunk.append(item)
        held += _size(root / item[0])
        if held >= max_bytes:
            yield chunk
            chunk, held = [], 0
    if chunk:
        yield chunk


def deal_chunks(
    todo: list[tuple[str, str]], sizes: dict[str, int], at_least: int, max_bytes: int
) -> list[list[tuple[str, str]]]:
    """`todo` (largest first) dealt round-robin into `at_least` chunks, or more so that none holds much more
    than `max_bytes` of source (a file larger than that is a chunk of its own at worst)."""
    total = sum(sizes[rel] for rel, _ in todo)
    n_chunks = max(at_least, 1, -(-total // max(1, max_bytes)))
    n_chunks = min(n_chunks, max(1, len(todo)))
    return [chunk for chunk in (todo[i::n_chunks] for i in range(n_chunks)) if chunk]


def scan_files(
    root: Path, items: Iterable[tuple[str, str]], config: ScanConfig | None = None, workers: int | None = None
) -> Iterator[ScanResult | Skipped]:
    """Scan (path, lang) pairs; across processes when there are many (results in no particular order)."""
    todo = list(items)
    workers = workers if workers is not None else (os.cpu_count() or 1)
    if workers <= 1 or len(todo) < PARALLEL_THRESHOLD:
        config = config or ScanConfig()
        for rel, lang in todo:
            yield scan_file(root, rel, lang, config)
        return
    decoder = msgspec.msgpack.Decoder(_Batch)
    for blob in scan_chunks(root, todo, _encode_batch, config, workers):
        batch = decoder.decode(blob)
        yield from batch.results
        yield from batch.skipped


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
