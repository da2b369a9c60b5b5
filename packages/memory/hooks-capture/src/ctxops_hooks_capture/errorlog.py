# ruff: noqa: PTH103, PTH105, PTH110, PTH111, PTH118, PTH202
# os.path on the hook path: the capture command does without importing pathlib.
"""Where the capture command's own failures go: ``.meta/logs/`` of the repository, else a per-user log."""

from __future__ import annotations

import os
import traceback
from datetime import UTC, datetime

LOG_NAME = "hooks-capture.log"
_MAX_LOG_BYTES = 1_000_000


def user_log_dir() -> str:
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(state, "ctxops", "logs")


def log_failure(root: str | None, agent: str, exc: BaseException) -> str | None:
    """Append one entry for ``exc``; return the log's path, or None when no log could be written."""
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    where = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    origin = f" at {where[0].filename.rsplit(os.sep, 1)[-1]}:{where[0].lineno}" if where else ""
    line = f"{stamp} {agent}: {detail}{origin}\n"
    candidates = [os.path.join(root, ".meta", "logs")] if root else []
    candidates.append(user_log_dir())
    for directory in candidates:
        try:
            os.makedirs(directory, exist_ok=True)
            path = os.path.join(directory, LOG_NAME)
            if os.path.exists(path) and os.path.getsize(path) > _MAX_LOG_BYTES:
                os.replace(path, path + ".1")  # one generation of history keeps the log bounded
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(line)
            return path
        except OSError:
            continue
    return None
