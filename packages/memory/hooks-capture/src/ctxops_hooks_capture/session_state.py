# ruff: noqa: PTH118
# os.path on the hook path: the capture command does without importing pathlib.
"""Per-session memory of the capture command between events (one small JSON file per session).

It remembers tool calls that started but have not finished (a rejected or interrupted tool shows up as
one that never finished), the tool_use_ids already stored (duplicates are dropped), and the last step
the agent took (what a user correction corrects).
"""

from __future__ import annotations

import os
import time

from ctxops_contracts.shared.confine import confined, ensure_dir, open_regular, read_regular
from ctxops_contracts.shared.regex import compile as re_compile

from . import jsontext

STATE_DIR = ".state"
_SEEN_LIMIT = 256
_PENDING_MAX_AGE_S = 3600.0
_SAFE = re_compile(r"[^A-Za-z0-9._-]")
_STATE_LIMIT = 1 << 20  # 256 ids and a few pending tools: far below this

TYPE_CHECKING = False  # typing is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    from typing import Any


class PendingTool:
    """A tool call that started (PreToolUse) and has not finished yet."""

    __slots__ = ("started", "summary", "tool_name")

    def __init__(self, tool_name: str | None, started: float, summary: str = "") -> None:
        self.tool_name = tool_name
        self.started = started
        self.summary = summary


class SessionState:
    """What one session's capture calls remember between events; stored as a small JSON object."""

    __slots__ = ("interrupted_step_id", "last_step_id", "pending", "seen_tool_use_ids")

    def __init__(self) -> None:
        self.seen_tool_use_ids: list[str] = []
        self.pending: dict[str, PendingTool] = {}
        self.last_step_id: str | None = None
        self.interrupted_step_id: str | None = None

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

    def to_json(self) -> dict[str, Any]:
        return {
            "seen_tool_use_ids": self.seen_tool_use_ids,
            "pending": {
                key: {"tool_name": tool.tool_name, "started": tool.started, "summary": tool.summary}
                for key, tool in self.pending.items()
            },
            "last_step_id": self.last_step_id,
            "interrupted_step_id": self.interrupted_step_id,
        }

    @classmethod
    def from_json(cls, data: Any) -> SessionState:
        """The state in ``data``; ValueError naming the first thing of the wrong shape."""
        if not isinstance(data, dict):
            raise ValueError("session state is not a JSON object")
        state = cls()
        seen = data.get("seen_tool_use_ids", [])
        if not isinstance(seen, list) or not all(isinstance(item, str) for item in seen):
            raise ValueError("seen_tool_use_ids must be a list of strings")
        state.seen_tool_use_ids = seen
        pending = data.get("pending", {})
        if not isinstance(pending, dict):
            raise ValueError("pending must be an object")
        for key, tool in pending.items():
            if not isinstance(tool, dict):
                raise ValueError(f"pending[{key!r}] must be an object")
            name, started, summary = tool.get("tool_name"), tool.get("started"), tool.get("summary", "")
            if not (name is None or isinstance(name, str)) or not isinstance(summary, str):
                raise ValueError(f"pending[{key!r}] has a tool_name or summary that is not a string")
            if isinstance(started, bool) or not isinstance(started, (int, float)):
                raise ValueError(f"pending[{key!r}].started must be a number")
            state.pending[key] = PendingTool(name, float(started), summary)
        for field in ("last_step_id", "interrupted_step_id"):
            value = data.get(field)
            if not (value is None or isinstance(value, str)):
                raise ValueError(f"{field} must be a string or null")
            setattr(state, field, value)
        return state


class SessionStore:
    """Load, change and save one session's state under a lock (hooks for one session may run at once)."""

    def __init__(self, events_dir: str, session_id: str | None) -> None:
        # The session id comes from the payload: letters, digits, '.', '_' and '-' only, then confined.
        name = _SAFE.sub("_", session_id or "no-session")[:120]
        directory = ensure_dir(os.path.join(events_dir, STATE_DIR))
        self.path = confined(directory, f"{name}.json")
        self.lock_path = self.path + ".lock"

    def load(self) -> SessionState:
        try:
            data = read_regular(self.path, _STATE_LIMIT)
            return SessionState.from_json(jsontext.parse(data.decode("utf-8", "replace")))
        except (OSError, ValueError):
            # A lost or damaged state (or a FIFO, a symlink a repository put there) only weakens dedupe.
            return SessionState()

    def save(self, state: SessionState) -> None:
        """Rewrite the state in place; the caller holds the session's lock (every writer takes it).

        Not a temporary file renamed over it (its create, chmod and rename cost ~0.2 ms of every event): the
        new text is written from the start and the file cut to its length. A process killed in between, or
        a full disk, leaves a state that does not parse, which ``load`` treats as lost; no fsync either: the
        state is a cache, and losing it only weakens dedupe for a moment.
        """
        data = jsontext.line(state.to_json())
        fd = open_regular(self.path, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            written = 0
            while written < len(data):
                written += os.pwrite(fd, data[written:], written)
            os.ftruncate(fd, len(data))
        finally:
            os.close(fd)


def now() -> float:
    return time.time()
