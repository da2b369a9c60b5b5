# os.path on the hook path: the capture command does without importing pathlib.
"""The capture pipeline: payload -> adapter drafts -> filters -> redaction and caps -> AgentEvent JSONL.

Only the standard library and the light contracts modules (``ids``, ``versioning``) are imported here: the
events are built as plain records by ``event_record.agent_event`` and written with ``json``.
"""

from __future__ import annotations

import time

from ctxops_contracts.ids import new_ulid
from ctxops_contracts.shared.layout import EVENTS_DIR as EVENTS_SUBDIR
from ctxops_contracts.shared.layout import meta_subdir
from ctxops_contracts.shared.locks import LockBusy, file_lock
from ctxops_contracts.shared.repo import repo_relative, try_find_root

from . import jsontext
from . import text as textops
from .adapters import get_adapter
from .draft import Draft
from .event_log import RAW_DIR, Deadline, append_events, append_raw, merge_spills
from .event_record import agent_event, utc_now
from .payload import PayloadError, parse_payload
from .redact import redact, redact_path, redact_record, window
from .self_ignore import is_own_command, is_own_path
from .session_state import PendingTool, SessionState, SessionStore, now

TYPE_CHECKING = False  # typing is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    from datetime import datetime
    from typing import Any

    from .event_record import EventRecord

PROMPT_LIMIT = 4000
TEXT_LIMIT = 2000
OUTPUT_LIMIT = 2000
COMMAND_LIMIT = 2000
RAW_STRING_LIMIT = 2000
RAW_ITEMS_LIMIT = 50
RAW_DEPTH_LIMIT = 8
# The payload is redacted once, bounded, before any adapter reads it: strings keep their first 8,000 and
# last 4,000 characters, containers 500 entries, nesting 16 levels, text 100,000 characters in all.
PAYLOAD_STRING_WINDOW = 8_000
PAYLOAD_ITEMS_LIMIT = 500
PAYLOAD_DEPTH_LIMIT = 16
PAYLOAD_CHARS_LIMIT = 100_000
CORRECTION_SCAN_LIMIT = 4000
LOCK_BUDGET_S = 0.2  # all lock waits of one event together: a held lock costs at most this, then spills

_AGENT_OF = {"codex-notify": "codex"}
_STEP_KINDS = frozenset(
    {"command_execution", "test_result", "file_modification", "file_read", "tool_call", "agent_message"}
)


__all__ = ["CaptureResult", "NoRepository", "PayloadError", "capture", "parse_payload", "prepare", "shrink"]


class NoRepository(RuntimeError):
    """No ``.git`` or ``.meta`` at or above the payload's working directory."""


class CaptureResult:
    """What one capture call stored (``AgentEvent`` records as dicts) and what it dropped, by reason.

    ``ctxops_contracts.convert(AgentEvent, record)`` turns a stored record into the struct.
    """

    __slots__ = ("dropped", "events", "root")

    def __init__(self) -> None:
        self.root: str | None = None
        self.events: list[EventRecord] = []
        self.dropped: dict[str, int] = {}

    def drop(self, reason: str) -> None:
        self.dropped[reason] = self.dropped.get(reason, 0) + 1


def prepare(text: str | None, limit: int, *, tail: bool = False) -> str | None:
    """Window, clean, redact and cap one piece of text (in that order, so huge text stays cheap).

    The text comes from a payload already redacted; redacting again after cleaning catches a secret that
    ANSI codes or carriage-return redraws had split.
    """
    if text is None:
        return None
    margin = limit * 2 + 1024
    piece = window(text, 0, margin) if tail else window(text, margin)
    piece = redact(textops.clean(piece))
    return textops.cap_tail(piece, limit) if tail else textops.cap_head(piece, limit)


def shrink(value: Any, depth: int = 0) -> Any:
    """A bounded copy of a raw payload: long strings cut, long lists cut, deep nesting summarised."""
    if isinstance(value, str):
        return textops.cap_head(textops.window(value, RAW_STRING_LIMIT), RAW_STRING_LIMIT)
    if depth >= RAW_DEPTH_LIMIT and isinstance(value, (dict, list)):
        return f"[{type(value).__name__} nested too deep]"
    if isinstance(value, dict):
        return {str(k): shrink(v, depth + 1) for k, v in list(value.items())[:RAW_ITEMS_LIMIT]}
    if isinstance(value, list):
        items = [shrink(v, depth + 1) for v in value[:RAW_ITEMS_LIMIT]]
        if len(value) > RAW_ITEMS_LIMIT:
            items.append(f"[{len(value) - RAW_ITEMS_LIMIT} more items]")
        return items
    return value


def _timestamp(draft: Draft) -> datetime | str:
    if draft.ts:  # only the generic form carries its own time: datetime is imported for it alone
        from datetime import UTC, datetime

        try:
            parsed = datetime.fromisoformat(draft.ts.replace("Z", "+00:00"))
            if parsed.tzinfo is not None:
                return parsed.astimezone(UTC)
        except ValueError:
            pass
    return utc_now()


class _Builder:
    """Turns drafts into events, consulting and updating the session state."""

    def __init__(self, agent: str, root: str, state: SessionState, raw_ref: str, result: CaptureResult) -> None:
        self.agent = _AGENT_OF.get(agent, agent)
        self.root = root
        self.state = state
        self.raw_ref = raw_ref
        self.result = result

    def event(self, draft: Draft, **overrides: Any) -> EventRecord:
        fields: dict[str, Any] = {
            "id": new_ulid(),
            "ts": _timestamp(draft),
            "agent": self.agent,
            "kind": draft.kind,
            "event_name": draft.event_name,
            "session_id": draft.session_id,
            "task_id": draft.task_id,
            "repo": self.root,
            "cwd": draft.cwd,
            "tool_name": draft.tool_name,
            "tool_use_id": draft.tool_use_id,
            "text": prepare(draft.text, PROMPT_LIMIT if draft.prompt else TEXT_LIMIT),
            "files": [
                redact_path(repo_relative(self.root, f, draft.cwd)) for f in draft.files
            ],  # names hold secrets too
            "command": prepare(draft.command, COMMAND_LIMIT),
            "exit_status": draft.exit_status,
            "raw_ref": self.raw_ref,
        }
        fields.update(overrides)
        return agent_event(**fields)

    def build(self, draft: Draft) -> list[EventRecord]:
        if draft.noise:
            self.result.drop("noise")
            return []
        if draft.pending:
            if draft.tool_use_id:
                self.state.pending[draft.tool_use_id] = PendingTool(tool_name=draft.tool_name, started=now())
            self.result.drop("pending-tool")
            return []
        if draft.tool_use_id:
            self.state.pending.pop(draft.tool_use_id, None)
            if self.state.seen(draft.tool_use_id):
                self.result.drop("duplicate")
                return []
            self.state.remember(draft.tool_use_id)
        if is_own_command(draft.command):
            self.result.drop("self")
            return []
        files = [repo_relative(self.root, f, draft.cwd) for f in draft.files]
        if files and all(is_own_path(f) for f in files):
            self.result.drop("self")
            return []
        if draft.prompt:
            return self._prompt(draft)
        overrides: dict[str, Any] = {}
        if draft.kind == "command_execution":
            output = prepare(draft.output, OUTPUT_LIMIT, tail=True)
            overrides["text"] = output
            from .runner_output import looks_like_test_command, parse_counts  # only commands pay for these regexes

            if draft.command and looks_like_test_command(draft.command):
                counts = parse_counts(textops.window(draft.output or "", OUTPUT_LIMIT * 4, tail=True))
                overrides["kind"] = "test_result"
                if counts:
                    overrides["tests_passed"], overrides["tests_failed"] = counts
        event = self.event(draft, **overrides)
        if event["kind"] in _STEP_KINDS:
            self.state.last_step_id = event["id"]
        if draft.interrupted:
            self.state.interrupted_step_id = event["id"]
        return [event]

    def _prompt(self, draft: Draft) -> list[EventRecord]:
        from .corrections import is_correction  # only prompts pay for these regexes

        events: list[EventRecord] = []
        corrected = self.state.interrupted_step_id
        for tool_use_id, pending in self.state.take_stale_pending(now()):
            # A tool that started and never finished before the next prompt: rejected or interrupted.
            unfinished = self.event(
                Draft(
                    kind="tool_call",
                    event_name="ToolNotCompleted",
                    session_id=draft.session_id,
                    task_id=draft.task_id,
                    cwd=draft.cwd,
                    tool_name=pending.tool_name,
                    tool_use_id=tool_use_id,
                    text=f"{pending.tool_name or 'tool'} did not complete (rejected or interrupted)",
                )
            )
            events.append(unfinished)
            corrected = unfinished["id"]
        self.state.interrupted_step_id = None
        text = draft.text or ""
        if corrected or is_correction(text[:CORRECTION_SCAN_LIMIT]):
            events.append(self.event(draft, kind="user_correction", corrects=corrected or self.state.last_step_id))
        else:
            events.append(self.event(draft))
        return events


def safe_payload(payload: dict[str, Any]) -> dict[str, Any]:
    """``payload`` bounded and redacted, before any adapter, window or cap sees it. A value hidden in one
    field is hidden in all of them (``redact_record``): the file path of a Write whose content assigns it."""
    safe = redact_record(
        payload,
        max_string=PAYLOAD_STRING_WINDOW,
        max_items=PAYLOAD_ITEMS_LIMIT,
        max_depth=PAYLOAD_DEPTH_LIMIT,
        max_chars=PAYLOAD_CHARS_LIMIT,
    )
    return safe if isinstance(safe, dict) else {}


# Where the agent runs: the user's own directories, stored as given like the repository root itself. A
# redacted working directory (a path segment such as `proj-71xp0ivf` reads as a token) names no directory,
# so the repository would not be found and nothing captured.
_LOCATION_KEYS = ("cwd", "workspace_roots")
# The agent's own session file as given (Codex's rollout, read for a command's exit code): for the adapter
# only, under a key of ours; the stored raw payload keeps the redacted `transcript_path` alone.
TRANSCRIPT_KEY = "ctxops_transcript_path"


def _keep_location(payload: dict[str, Any], safe: dict[str, Any]) -> None:
    for key in _LOCATION_KEYS:
        value = payload.get(key)
        if isinstance(value, str) and len(value) <= 4096:
            safe[key] = value
        elif isinstance(value, list) and value and all(isinstance(v, str) and len(v) <= 4096 for v in value[:16]):
            safe[key] = value[:16]


def capture(
    agent: str, data: bytes | str, *, cwd_fallback: str | None = None, parsed: dict[str, Any] | None = None
) -> CaptureResult:
    """Capture one payload of ``agent``: store its events under the repository's ``.meta/events/``.

    Raises PayloadError, NoRepository, ValueError (unknown agent) or OSError; the CLI turns every one
    of them into a log line and exit status 0. A lock held by another process costs at most
    ``LOCK_BUDGET_S`` in all: the session state is then read without being updated, and the lines go to
    a spill file that a later capture merges.
    """
    adapter = get_adapter(agent)
    if parsed is None:
        payload, truncated = parse_payload(data)
    else:  # ``data`` as the caller read it with parse_payload already (core's `ctx hook`): not parsed twice
        payload, truncated = parsed, int(parsed.get("ctxops_truncated_bytes") or 0)
    prompt = payload.get("prompt")
    if isinstance(prompt, str) and prompt:
        # ctxops's own blocks out of the whole prompt before the window cuts it (a block cut in half
        # would be half-kept); the adapters strip again what reaches them another way.
        from .injected import strip_injected

        payload = {**payload, "prompt": strip_injected(prompt)}
    safe = safe_payload(payload)
    _keep_location(payload, safe)
    transcript = payload.get("transcript_path")
    # only where the Codex adapter reads it (never in an unknown event's text)
    codex_tool = agent == "codex" and payload.get("hook_event_name") == "PostToolUse"
    if codex_tool and isinstance(transcript, str) and len(transcript) <= 4096:
        safe[TRANSCRIPT_KEY] = transcript
    if truncated:
        safe["ctxops_truncated_bytes"] = truncated
    drafts = adapter(safe)
    result = CaptureResult()
    cwd = next((d.cwd for d in drafts if d.cwd), None) or cwd_fallback
    root = try_find_root(cwd) if cwd else None
    if root is None:
        raise NoRepository("no .git or .meta at or above the working directory; nothing captured")
    result.root = root
    # .meta and .meta/events are real directories of this user, or nothing is written (UnsafePath).
    events_dir = meta_subdir(root, EVENTS_SUBDIR)
    deadline = Deadline(LOCK_BUDGET_S)
    merge_spills(events_dir)
    session_id = next((d.session_id for d in drafts if d.session_id), None)
    store = SessionStore(events_dir, session_id)
    event_day = time.strftime("%Y-%m-%d", time.gmtime())
    raw_id = new_ulid()
    raw_ref = f"{RAW_DIR}/{event_day}.jsonl#{raw_id}"
    try:
        with file_lock(store.lock_path, timeout=deadline.left()):
            state = store.load()
            _store(
                agent=agent,
                root=root,
                state=state,
                raw_ref=raw_ref,
                result=result,
                drafts=drafts,
                events_dir=events_dir,
                event_day=event_day,
                raw_id=raw_id,
                safe=safe,
                deadline=deadline,
            )
            store.save(state)
    except LockBusy:
        # Another capture of this session holds its state: keep the event, skip the state update.
        result.drop("state-busy")
        _store(
            agent=agent,
            root=root,
            state=store.load(),
            raw_ref=raw_ref,
            result=result,
            drafts=drafts,
            events_dir=events_dir,
            event_day=event_day,
            raw_id=raw_id,
            safe=safe,
            deadline=deadline,
        )
    return result


def _store(
    *,
    agent: str,
    root: str,
    state: SessionState,
    raw_ref: str,
    result: CaptureResult,
    drafts: list[Draft],
    events_dir: str,
    event_day: str,
    raw_id: str,
    safe: dict[str, Any],
    deadline: Deadline,
) -> None:
    builder = _Builder(agent, root, state, raw_ref, result)
    for draft in drafts:
        result.events.extend(builder.build(draft))
    if result.events:
        stored = {k: v for k, v in safe.items() if k != TRANSCRIPT_KEY}
        raw_line = jsontext.line({"id": raw_id, "agent": agent, "payload": shrink(stored)})
        append_raw(events_dir, event_day, raw_line, deadline)
        append_events(events_dir, result.events, deadline)
