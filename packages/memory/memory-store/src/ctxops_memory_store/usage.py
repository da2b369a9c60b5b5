"""How often each memory was put into a context (injected, recalled), kept out of the committed files.

Counting in the Markdown files would turn every prompt into a diff of ``.meta/memory/``; the counts live in
``.meta/.state/memory-usage.json`` (ignored by git), one small JSON object rewritten under a lock.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable

from ctxops_contracts.shared import jsonlite
from ctxops_contracts.shared.confine import read_regular
from ctxops_contracts.shared.files import atomic_write
from ctxops_contracts.shared.layout import STATE_DIR, ensure_meta, meta_path
from ctxops_contracts.shared.lazylog import get_logger
from ctxops_contracts.shared.locks import LockBusy, file_lock

log = get_logger(__name__)
USAGE_FILE = "memory-usage.json"


def usage_path(root: str | os.PathLike[str]) -> str:
    return meta_path(os.fspath(root), STATE_DIR, USAGE_FILE)


def read_usage(root: str | os.PathLike[str]) -> dict[str, list[float]]:
    """Entry id -> [uses, last use as a UNIX time]; empty when nothing was counted yet."""
    try:
        data = jsonlite.loads(read_regular(usage_path(root), 16_000_000))
    except (OSError, ValueError):
        return {}
    return {str(k): v for k, v in data.items() if isinstance(v, list) and len(v) == 2} if isinstance(data, dict) else {}


def record_use(root: str | os.PathLike[str], entry_ids: Iterable[str], *, now: float | None = None) -> None:
    """Add one use to each entry (best effort: a busy or unwritable state file is logged, never raised)."""
    ids = list(dict.fromkeys(entry_ids))
    if not ids:
        return
    stamp = now or time.time()
    path = usage_path(root)
    try:
        ensure_meta(os.fspath(root))
        with file_lock(path + ".lock", timeout=0.5):
            counts = read_usage(root)
            for entry_id in ids:
                uses = counts.get(entry_id, [0, 0.0])
                counts[entry_id] = [int(uses[0]) + 1, stamp]
            atomic_write(path, jsonlite.dumps(counts, compact=True), fsync=False)
    except (OSError, LockBusy) as exc:
        log.warning("memory usage not counted: %s", exc)
