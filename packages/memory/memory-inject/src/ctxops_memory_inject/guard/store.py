# ruff: noqa: PTH103, PTH108, PTH118
# os.path on the hook path: pathlib is not imported there (startup time).
"""Saved originals: the full text of each summarized tool output, redacted, under ``.meta/outputs/``.

One file per output (``<id>.txt``) plus a small ``<id>.json`` with what produced it. The directory is
git-ignored through ``ensure_meta`` and rotated: past ``max_outputs`` files the oldest are removed.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import secrets
import time

from ctxops_contracts.shared.files import atomic_write
from ctxops_contracts.shared.layout import OUTPUTS_DIR, ensure_meta, meta_path

log = logging.getLogger(__name__)

_ID = re.compile(r"^[0-9a-f]{8,16}$")


class OutputNotFound(LookupError):
    """No saved output has this id (never saved, or rotated away)."""


def outputs_dir(root: str) -> str:
    return meta_path(root, OUTPUTS_DIR)


def new_id() -> str:
    return secrets.token_hex(4)


def save(root: str, text: str, meta: dict[str, object], *, max_outputs: int = 200, max_bytes: int = 2_000_000) -> str:
    """Redact and keep ``text``; return its id. Old outputs beyond ``max_outputs`` are removed."""
    from ctxops_hooks_capture.redact import redact

    ensure_meta(root)
    folder = outputs_dir(root)
    os.makedirs(folder, exist_ok=True)
    output_id = new_id()
    body = redact(text)
    if len(body) > max_bytes:
        body = body[:max_bytes] + f"\n[ctxops: cut at {max_bytes} characters of {len(text)}]\n"
    atomic_write(os.path.join(folder, f"{output_id}.txt"), body, fsync=False)
    info = {"id": output_id, "ts": time.time(), "lines": body.count("\n") + 1, "chars": len(body), **meta}
    atomic_write(os.path.join(folder, f"{output_id}.json"), json.dumps(info, default=str), fsync=False)
    rotate(folder, max_outputs)
    return output_id


def rotate(folder: str, max_outputs: int) -> int:
    """Remove the oldest saved outputs past ``max_outputs``; return how many were removed."""
    try:
        entries = [e for e in os.scandir(folder) if e.name.endswith(".txt")]
    except OSError:
        return 0
    if len(entries) <= max_outputs:
        return 0
    entries.sort(key=lambda e: e.stat().st_mtime_ns)
    removed = 0
    for entry in entries[: len(entries) - max_outputs]:
        for suffix in (".txt", ".json"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(folder, entry.name[:-4] + suffix))
        removed += 1
    return removed


def _path(root: str, output_id: str, suffix: str) -> str:
    if not _ID.match(output_id):
        raise OutputNotFound(output_id)
    return os.path.join(outputs_dir(root), output_id + suffix)


def load(root: str, output_id: str) -> str:
    try:
        with open(_path(root, output_id, ".txt"), encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except FileNotFoundError:
        raise OutputNotFound(output_id) from None


def load_meta(root: str, output_id: str) -> dict[str, object]:
    try:
        with open(_path(root, output_id, ".json"), encoding="utf-8") as fh:
            data = json.load(fh)
    except (FileNotFoundError, ValueError):
        return {"id": output_id}
    return data if isinstance(data, dict) else {"id": output_id}


def select(
    text: str, *, lines: tuple[int, int] | None = None, grep: re.Pattern[str] | None = None
) -> list[tuple[int, str]]:
    """Numbered lines of ``text``: all, a 1-based inclusive range, or those matching ``grep``."""
    numbered = list(enumerate(text.splitlines(), start=1))
    if lines is not None:
        start, end = lines
        numbered = numbered[max(0, start - 1) : end]
    if grep is not None:
        numbered = [(n, line) for n, line in numbered if grep.search(line)]
    return numbered
