# ruff: noqa: PTH103, PTH105, PTH118
# os.path on the hook path: the capture command does without importing pathlib.
"""Per-session memory of the capture command between events (one small JSON file per session).

It remembers tool calls that started but have not finished (a rejected or interrupted tool shows up as
one that never finished), the tool_use_ids already stored (duplicates are dropped), and the last step
the agent took (what a user correction corrects).
"""

from __future__ import annotations

import os
import re
import time

import msgspec

STATE_DIR = ".state"
_SEEN_LIMIT = 256
_PENDING_MAX_AGE_S = 3600.0
_SAFE = re.compile(r"[^A-Za-z0-9._-]")


class PendingTool(msgspec.Struct):
    tool_name: str | None
    started: float
    summary: str = ""


class SessionState(msgspec.Struct):
    seen_tool_use_ids: list[str] = msgspec.field(default_factory=list)
    pending: dict[str, PendingTool] = msgspec.field(default_factory=dict)
    last_step_id: str | None = None
    interrupted_step_id: str | None = None

    def seen(self, tool_use_id: str) -> bool:
        return tool_use_id in self.seen_tool_use_ids

    def remember(self, tool_use_id: str) -> None:
        self.seen_tool_use_ids.append(tool_use_id)
        del self.seen_tool_use_ids[:-_SEEN_LIMIT]

    def take_stale_pending(self, now: float) -> list[tuple[str, PendingTool]]:
        """Tools that started and never finished (recent ones only); removed from the state."""
        stale = [(k, v) for k, v in self.pending.items() if now - v.started <= _PENDING_MAX_AGE_S]
        self.pending.clear()
        return stale


class SessionStore:
    """Load, change and save one session's state under a lock (hooks for one session may run at once)."""

    def __init__(self, events_dir: str, session_id: str | None) -> None:
        name = _SAFE.sub("_", session_id or "no-session")[:120]
        directory = os.path.join(events_dir, STATE_DIR)
        os.makedirs(directory, exist_ok=True)
        self.path = os.path.join(directory, f"{name}.json")
        self.lock_path = self.path + ".lock"

    def load(self) -> SessionState:
        try:
            with open(self.path, "rb") as fh:
                return msgspec.json.decode(fh.read(), type=SessionState)
        except (FileNotFoundError, msgspec.DecodeError, msgspec.ValidationError):
            return SessionState()  # a lost or damaged state only weakens dedupe for a moment

    def save(self, state: SessionState) -> None:
        tmp = f"{self.path}.{os.getpid()}.tmp"
        with open(tmp, "wb") as fh:
            fh.write(msgspec.json.encode(state))
        os.replace(tmp, self.path)


def now() -> float:
    return time.time()
