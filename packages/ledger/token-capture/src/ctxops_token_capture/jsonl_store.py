"""The truth: UsageRecords appended as JSONL under ``<data dir>/usage/``, whole lines under a file lock.

Writers (ingest, the proxy, the SDK wrapper) never open DuckDB; they append here. Each origin writes its
own monthly file, ``<origin>-YYYY-MM.jsonl``, so a proxy and an ingest never contend for one file.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from ctxops_contracts import UsageRecord, encode_line

from .paths import data_dir

USAGE_DIR = "usage"


def usage_dir(root: Path | None = None) -> Path:
    return (root or data_dir()) / USAGE_DIR


def record_files(root: Path | None = None) -> list[Path]:
    """Every JSONL file of records, oldest name first."""
    directory = usage_dir(root)
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.iterdir() if p.suffix == ".jsonl" and p.is_file())


def append_records(records: Iterable[UsageRecord], origin: str, root: Path | None = None) -> int:
    """Append ``records`` to this month's file for ``origin``; return how many lines were written."""
    payload = b"".join(encode_line(r) for r in records)
    if not payload:
        return 0
    return append_lines(payload, origin, root)


def append_lines(payload: bytes, origin: str, root: Path | None = None) -> int:
    """Append already-encoded JSONL lines (each newline-terminated) under an exclusive lock."""
    directory = usage_dir(root)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{origin}-{datetime.now(UTC):%Y-%m}.jsonl"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        size = os.fstat(fd).st_size
        if size:
            # A writer killed mid-line leaves no newline: start on a fresh line so ours stay whole.
            with open(path, "rb") as reader:
                reader.seek(size - 1)
                if reader.read(1) != b"\n":
                    payload = b"\n" + payload
        view = memoryview(payload)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.fsync(fd)
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
    return payload.count(b"\n")
