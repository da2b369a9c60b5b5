# ruff: noqa: PTH105, PTH110, PTH111, PTH118, PTH202
# os.path on the hook path: the capture command does without importing pathlib.
"""Where the capture command's own failures go: ``.meta/logs/`` of the repository, else a per-user log.

A line says when, which agent, the kind of failure and where in the code, never the payload: messages
are redacted and capped, and the errors this package raises for bad payloads name no payload bytes.
"""

from __future__ import annotations

import os
import traceback
from datetime import UTC, datetime

from ctxops_contracts.shared.files import append_lines
from ctxops_contracts.shared.layout import ensure_meta

LOG_NAME = "hooks-capture.log"
_MAX_LOG_BYTES = 1_000_000
_MAX_MESSAGE = 300


def user_log_dir() -> str:
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(state, "ctxops", "logs")


def describe(exc: BaseException) -> str:
    """``Type: message`` of ``exc``, redacted and capped, safe to write anywhere."""
    from .redact import redact

    message = redact(str(exc).replace("\n", " "))
    if len(message) > _MAX_MESSAGE:
        message = message[:_MAX_MESSAGE] + "..."
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def log_failure(root: str | None, agent: str, exc: BaseException) -> str | None:
    """Append one entry for ``exc``; return the log's path, or None when no log could be written."""
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    where = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    origin = f" at {where[0].filename.rsplit(os.sep, 1)[-1]}:{where[0].lineno}" if where else ""
    line = f"{stamp} {agent}: {describe(exc)}{origin}\n".encode("utf-8", "replace")
    candidates = [os.path.join(root, ".meta", "logs")] if root else []
    candidates.append(user_log_dir())
    for directory in candidates:
        try:
            if root and directory.startswith(os.path.join(root, ".meta")):
                ensure_meta(root)
            path = os.path.join(directory, LOG_NAME)
            if os.path.exists(path) and os.path.getsize(path) > _MAX_LOG_BYTES:
                os.replace(path, path + ".1")  # one generation of history keeps the log bounded
            append_lines(path, line, lock_timeout=0.1, fsync=False)
            return path
        except OSError:
            continue
    return None
