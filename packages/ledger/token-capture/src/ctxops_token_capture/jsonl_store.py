"""The truth: UsageRecords appended as JSONL under ``<data dir>/usage/``, whole lines under a file lock.

Writers (ingest, the proxy, the SDK wrapper) never open DuckDB; they append here. Each origin writes its
own monthly file, ``<origin>-YYYY-MM.jsonl``, so a proxy and an ingest never contend for one file.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from ctxops_contracts import UsageRecord, encode_line
from ctxops_contracts.shared.confine import ensure_dir
from ctxops_contracts.shared.files import append_lines as append_lines_to
from ctxops_contracts.shared.locks import LockBusy
from ctxops_contracts.shared.retry import retry

from .usage_files import USAGE_DIR, record_files, usage_dir

__all__ = ["USAGE_DIR", "append_lines", "append_records", "month_file", "record_files", "usage_dir"]

LOCK_TIMEOUT = 2.0


def append_records(records: Iterable[UsageRecord], origin: str, root: Path | None = None) -> int:
    """Append ``records`` to this month's file for ``origin``; return how many lines were written."""
    payload = b"".join(encode_line(r) for r in records)
    if not payload:
        return 0
    return append_lines(payload, origin, root)


def month_file(origin: str, root: Path | None = None) -> Path:
    """This month's record file for ``origin`` (where :func:`append_lines` writes now)."""
    return usage_dir(root) / f"{origin}-{datetime.now(UTC):%Y-%m}.jsonl"


def append_lines(payload: bytes, origin: str, root: Path | None = None) -> int:
    """Append already-encoded JSONL lines (each newline-terminated) to this month's file for ``origin``.

    The shared whole-line append: under the file's lock, fsynced, rolled back when the disk is full. A
    writer killed mid-line leaves no newline: ours start on a fresh line so they stay whole.
    """
    path = month_file(origin, root)
    directory = path.parent

    def attempt() -> int:
        ensure_dir(directory)  # 0700: the per-user data directory is private
        data = payload
        # Checked before the lock: a live writer only ever leaves whole lines, so at worst a race adds
        # an empty line (skipped on load); a killed writer's partial line is what this guards against.
        if _ends_mid_line(path):
            data = b"\n" + data
        append_lines_to(path, data, lock_timeout=LOCK_TIMEOUT)
        return data.count(b"\n")

    return retry(attempt, on=LockBusy, timeout=LOCK_TIMEOUT * 5)


def _ends_mid_line(path: Path) -> bool:
    try:
        with open(path, "rb") as reader:
            reader.seek(0, os.SEEK_END)
            if reader.tell() == 0:
                return False
            reader.seek(-1, os.SEEK_END)
            return reader.read(1) != b"\n"
    except FileNotFoundError:
        return False
