# ruff: noqa: PTH108, PTH118, PTH208, SIM105
# os.path on the hook path: pathlib is not imported there (startup time).
"""Saved originals: the full text of each summarized tool output, redacted, under ``.meta/outputs/``.

One file per output (``<id>.txt``) plus a small ``<id>.json`` with what produced it. The directory is
git-ignored through ``ensure_meta`` and rotated: past ``max_outputs`` files the oldest are removed.
"""

from __future__ import annotations

import os
import time

from ctxops_contracts.shared import jsonlite, regex
from ctxops_contracts.shared.confine import checked_dir, ensure_dir, read_regular
from ctxops_contracts.shared.layout import OUTPUTS_DIR, STATE_DIR, ensure_meta, meta_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

# The hook saves outputs through this module: no json, re or contextlib imports here (~10 ms of a fresh
# process); the counter and `ctx out` import json where they read.
_ID = regex.lazy(r"^[0-9a-f]{8,16}$")
MAX_OUTPUT_BYTES = 64_000_000  # a saved output is what one tool printed; a bigger file is read only this far


class OutputNotFound(LookupError):
    """No saved output has this id (never saved, or rotated away)."""


def outputs_dir(root: str) -> str:
    return meta_path(root, OUTPUTS_DIR)


def new_id() -> str:
    return os.urandom(4).hex()


def save(
    root: str,
    text: str,
    meta: dict[str, object],
    *,
    max_outputs: int = 200,
    max_bytes: int = 2_000_000,
    defer: bool = False,
) -> str:
    """Keep ``text`` (redacted) and return its id; outputs beyond ``max_outputs`` are rotated away.

    With ``defer`` the text is only staged (``.meta/.state/guard/pending/<id>.raw``, mode 0600) and the
    guard's background counter redacts it into ``.meta/outputs/``: redacting 100 kB costs more than the
    hook's whole budget. :func:`load` finalizes a staged output on demand, so the id works at once.
    """
    ensure_meta(root)
    output_id = new_id()
    body = (
        text
        if len(text) <= max_bytes
        else text[:max_bytes] + f"\n[ctxops: cut at {max_bytes} characters of {len(text)}]\n"
    )
    info = {
        "id": output_id,
        "ts": time.time(),
        "lines": body.count("\n") + 1,
        "chars": len(body),
        "max_outputs": max_outputs,
        **meta,
    }
    staging = ensure_dir(staging_dir(root))  # 0700; a symlinked .meta/.state is refused
    raw = os.path.join(staging, f"{output_id}.raw")
    fd = os.open(raw, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as fh:
        fh.write(_dumps(info) + "\n" + body)
    if not defer:
        finalize(root, output_id)
    return output_id


def _dumps(info: dict[str, object]) -> str:
    """``json.dumps(info, default=str)``, through jsonlite when every value is JSON already."""
    try:
        return jsonlite.dumps(info)
    except (TypeError, ValueError):
        import json

        return json.dumps(info, default=str)


def staging_dir(root: str) -> str:
    return meta_path(root, STATE_DIR, "guard", "pending")


def finalize(root: str, output_id: str) -> bool:
    """Redact a staged output into ``.meta/outputs/``; False when there is nothing staged under the id."""
    from ctxops_contracts.shared.files import atomic_write
    from ctxops_hooks_capture.redact import redact, redact_value

    if not _ID.match(output_id):
        return False  # not a name the guard stages under (a repository can put files there)
    raw = os.path.join(staging_dir(root), f"{output_id}.raw")
    try:  # a regular file only, capped: never a symlink, FIFO or device a repository put there
        if not checked_dir(staging_dir(root)):
            return False
        text = read_regular(raw, MAX_OUTPUT_BYTES).decode("utf-8", "replace")
        header, _, body = text.partition("\n")
    except FileNotFoundError:
        return False
    try:
        info = jsonlite.loads(header)
    except ValueError:
        info = {"id": output_id}
    if not isinstance(info, dict):
        info = {"id": output_id}
    folder = ensure_dir(outputs_dir(root))  # 0700; a symlinked .meta/outputs is refused
    max_outputs = int(info.pop("max_outputs", 200))
    atomic_write(os.path.join(folder, f"{output_id}.txt"), redact(body), fsync=False)
    atomic_write(os.path.join(folder, f"{output_id}.json"), _dumps(redact_value(info)), fsync=False)
    try:
        os.unlink(raw)
    except FileNotFoundError:
        pass
    rotate(folder, max_outputs)
    return True


def finalize_all(root: str) -> int:
    """Finalize every staged output (the background counter's first step)."""
    try:
        names = [n for n in os.listdir(staging_dir(root)) if n.endswith(".raw")]
    except FileNotFoundError:
        return 0
    return sum(1 for name in names if finalize(root, name[:-4]))


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
            try:
                os.unlink(os.path.join(folder, entry.name[:-4] + suffix))
            except FileNotFoundError:
                pass
        removed += 1
    return removed


def _path(root: str, output_id: str, suffix: str) -> str:
    if not _ID.match(output_id):
        raise OutputNotFound(output_id)
    return os.path.join(outputs_dir(root), output_id + suffix)


def _read(root: str, output_id: str, suffix: str) -> str:
    """A saved file, read only as a regular file directly in a real ``.meta/outputs`` (UnsafePath else)."""
    path = _path(root, output_id, suffix)
    if not checked_dir(outputs_dir(root)):
        raise FileNotFoundError(path)
    return read_regular(path, MAX_OUTPUT_BYTES).decode("utf-8", "replace")


def load(root: str, output_id: str) -> str:
    if _ID.match(output_id) and not os.path.lexists(_path(root, output_id, ".txt")):
        finalize(root, output_id)  # staged, the counter has not got to it yet
    try:
        return _read(root, output_id, ".txt")
    except FileNotFoundError:
        raise OutputNotFound(output_id) from None


def load_meta(root: str, output_id: str) -> dict[str, object]:
    try:
        data = jsonlite.loads(_read(root, output_id, ".json"))
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
