"""Deterministic session digests: goal, files changed, commands and test outcomes, corrections, open items.

Written at PreCompact, SessionEnd and Stop from the session's captured events, no model needed (a
``Summarizer`` may replace the text). One digest per session: a later trigger of the same session revises
it in place (same id and file) instead of piling up entries. Stored as a ``summary`` memory tagged
``digest``, ``session:<id>`` and ``branch:<name>``; the memory store redacts it like every write.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ctxops_contracts import AgentEvent
from ctxops_contracts.shared.confine import checked_dir, open_regular
from ctxops_memory_store import MemoryStore, new_entry
from ctxops_memory_store.rule import cut_at_sentence, rule_of

from .build import DIGEST_TAG, current_branch

MAX_FILES = 12
MAX_COMMANDS = 6


class Summarizer(Protocol):
    """An optional summarizer (a local model, say) that rewrites a digest's body; the default keeps it."""

    def summarize(self, body: str, events: Sequence[AgentEvent]) -> str: ...


@dataclass
class Digest:
    title: str
    body: str
    session_id: str


def _sentence(text: str, limit: int = 140) -> str:
    line = " ".join((text or "").split())
    first = re.split(r"(?<=[.!?。！？])\s", line, maxsplit=1)[0]
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"


def digest_of(events: Sequence[AgentEvent], session_id: str) -> Digest | None:
    """The digest of one session's events, or None when nothing happened worth keeping."""
    mine = [e for e in events if e.session_id == session_id]
    prompts = [e for e in mine if e.kind in {"user_message", "user_correction"} and e.text]
    if not prompts:
        return None
    goal = _sentence(prompts[0].text or "")
    changed = list(dict.fromkeys(f for e in mine if e.kind == "file_modification" for f in e.files))
    commands = [e for e in mine if e.kind in {"command_execution", "test_result"} and e.command]
    tests = [e for e in mine if e.kind == "test_result"]
    corrections = [e for e in mine if e.kind == "user_correction" and e.text]
    lines = [f"Goal: {goal}"]
    if changed:
        more = f" (+{len(changed) - MAX_FILES} more)" if len(changed) > MAX_FILES else ""
        lines.append(f"Files changed: {', '.join(changed[:MAX_FILES])}{more}")
    for event in commands[-MAX_COMMANDS:]:
        status = "" if event.exit_status is None else f" -> exit {event.exit_status}"
        counts = ""
        if event.kind == "test_result" and (event.tests_passed is not None or event.tests_failed is not None):
            counts = f" ({event.tests_passed or 0} passed, {event.tests_failed or 0} failed)"
        lines.append(f"Ran: `{_sentence(event.command or '', 100)}`{status}{counts}")
    for event in corrections:
        # The rule and its fix in the user's words, whole sentences (issue 23: never the opener alone).
        lines.append(f"Correction: {cut_at_sentence(rule_of(event.text or ''), 300)[0]}")
    open_items = []
    if tests and ((tests[-1].tests_failed or 0) > 0 or tests[-1].exit_status not in (None, 0)):
        open_items.append(f"tests still failing: `{_sentence(tests[-1].command or '', 80)}`")
    last_prompt = prompts[-1]
    replies = [e for e in mine if e.kind == "agent_message" and e.ts >= last_prompt.ts]
    if not replies:
        open_items.append(f"unanswered: {_sentence(last_prompt.text or '', 100)}")
    if open_items:
        lines.append(f"Open: {'; '.join(open_items)}")
    return Digest(f"Session {session_id[:8]}: {goal}", "\n".join(lines), session_id)


def session_events(root: str, session_id: str) -> list[AgentEvent]:
    """The captured events of one session: lines without its id are skipped before decoding, so a digest
    at every Stop costs a scan of the event files, not a decode of months of events."""
    from ctxops_contracts import ContractError, UnsupportedSchemaVersion, decode
    from ctxops_hooks_capture.event_log import EVENTS_DIR

    needle = session_id.encode()
    events: list[AgentEvent] = []
    directory = Path(root) / EVENTS_DIR
    if not directory.is_dir():
        return events
    if not checked_dir(directory):  # a symlinked .meta/events is refused (UnsafePath)
        return events
    for path in sorted(directory.glob("*.jsonl")):
        try:
            fd = open_regular(str(path))  # never a FIFO or a symlink to /dev/zero
        except OSError:
            continue
        with os.fdopen(fd, "rb") as fh:
            for line in fh:
                if needle not in line:
                    continue
                try:
                    event = decode(AgentEvent, line)
                except (ContractError, UnsupportedSchemaVersion):
                    continue  # a torn or foreign line: the capture side reports those
                if event.session_id == session_id:
                    events.append(event)
    return events


def write_digest(
    root: str | os.PathLike[str],
    session_id: str,
    *,
    agent: str | None = None,
    summarizer: Summarizer | None = None,
    harvest: bool = True,
) -> str | None:
    """Write (or revise) the digest of ``session_id``; returns its entry id, or None when there was nothing.

    With ``harvest`` the session's events are first turned into memory candidates (corrections become
    lessons, per the store's review policy).
    """
    store = MemoryStore(Path(root))
    if harvest:
        from ctxops_memory_store.candidates import harvest as run_harvest

        run_harvest(store)
    events = session_events(os.fspath(root), session_id)
    digest = digest_of(events, session_id)
    if digest is None:
        return None
    body = summarizer.summarize(digest.body, events) if summarizer is not None else digest.body
    tags = [DIGEST_TAG, f"session:{session_id}"]
    branch = current_branch(os.fspath(root))
    if branch:
        tags.append(f"branch:{branch}")
    if agent:
        tags.append(f"agent:{agent}")
    existing = next(
        (
            e
            for e in store.list_entries(kinds=["summary"], statuses=["active"])
            if f"session:{session_id}" in e.tags and DIGEST_TAG in e.tags
        ),
        None,
    )
    if existing is not None:
        revised = store.revise(existing.id, title=digest.title, body=body, tags=tags)
        store.save_catalog()
        return str(revised.id)
    entry = new_entry(kind="summary", title=digest.title, body=body, tags=tags, source=[session_id])
    result = store.put(entry)
    store.save_catalog()
    return str(result.entry.id)
