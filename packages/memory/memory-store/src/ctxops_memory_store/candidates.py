"""Memory candidates from captured events: corrections, "remember: ..." prompts, failing-then-passing tests.

``harvest`` reads the event JSONL incrementally (a checkpoint of byte offsets per day file), so running it
twice never proposes the same thing twice; content hashes catch what a lost checkpoint would repeat.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import msgspec
from ctxops_contracts import AgentEvent
from ctxops_contracts.shared.confine import ensure_dir, read_regular
from ctxops_contracts.shared.files import atomic_write
from ctxops_contracts.shared.regex import compile as re_compile
from ctxops_hooks_capture.event_log import EVENTS_DIR
from ctxops_hooks_capture.events_reader import ReadReport, read_new

from .rule import cut_at_sentence, rule_of, sentences
from .store import AddResult, MemoryStore, new_entry

CHECKPOINT = "memory-harvest.json"
TITLE_CHARS = 400  # a correction's rule, whole sentences: the title is what injection shows in one line
_REMEMBER = re_compile(
    r"^\s*(?:please\s+)?(?:remember|记住|请记住)\s*(?:that\b|:|：|,|，)?\s*(?P<text>.+)", re.I | re.S
)
_KIND_HINTS = (
    ("constraint", re_compile(r"\b(?:must|never|always|do not|don't|cannot|can't|required?)\b|必须|不能|禁止", re.I)),
    ("decision", re_compile(r"\b(?:we decided|decided|we chose|chose|we use|we'll use|going with)\b|决定", re.I)),
    ("convention", re_compile(r"\b(?:convention|naming|style|format|prefer to name|by convention)\b|约定|规范", re.I)),
    ("preference", re_compile(r"\b(?:i prefer|prefer|i like|i want)\b|喜欢|偏好", re.I)),
)


class _Failing(msgspec.Struct):
    event_id: str
    command: str
    text: str
    files: list[str] = msgspec.field(default_factory=list)


class _Checkpoint(msgspec.Struct):
    offsets: dict[str, int] = msgspec.field(default_factory=dict)
    failing: dict[str, _Failing] = msgspec.field(default_factory=dict)  # session -> the last failing test run
    steps: dict[str, dict[str, Any]] = msgspec.field(default_factory=dict)  # recent step events by id


@dataclass
class HarvestReport:
    """What one harvest read and proposed."""

    events_read: int = 0
    results: list[AddResult] = field(default_factory=list)
    bad_lines: list[str] = field(default_factory=list)

    @property
    def new_entries(self) -> list[AddResult]:
        return [r for r in self.results if r.action != "duplicate"]


def _first_sentence(text: str, limit: int = 80) -> str:
    """The first sentence of ``text``'s first line, cut at a word (never inside one) when longer than ``limit``."""
    line = text.strip().split("\n", 1)[0]
    return cut_at_sentence(sentences(line)[0] if line.strip() else line, limit)[0]


def infer_kind(text: str) -> str:
    for kind, pattern in _KIND_HINTS:
        if pattern.search(text):
            return kind
    return "fact"


def _step_summary(step: dict[str, Any] | None) -> str:
    if not step:
        return "the previous step"
    what = step.get("command") or step.get("text") or step.get("tool_name") or step.get("kind")
    files = ", ".join(step.get("files") or [])
    summary = f"{step.get('kind', 'step')} `{str(what)[:160]}`"
    return f"{summary} on {files}" if files else summary


class Harvester:
    """Turns new events into entries and candidates in one store."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self.path = store.index_dir / CHECKPOINT

    def _load(self) -> _Checkpoint:
        try:
            return msgspec.json.decode(read_regular(str(self.path), 64_000_000), type=_Checkpoint)
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            return _Checkpoint()  # content hashes keep a re-read from duplicating entries

    def harvest(self) -> HarvestReport:
        report = HarvestReport()
        state = self._load()
        events_dir = self.store.root / EVENTS_DIR
        if events_dir.is_dir():
            for day_file in sorted(events_dir.glob("*.jsonl")):
                offset = state.offsets.get(day_file.name, 0)
                if offset > day_file.stat().st_size:
                    offset = 0  # the file was replaced: read it again (hashes dedupe)
                bad = ReadReport()
                events, state.offsets[day_file.name] = read_new(day_file, offset, bad)
                report.bad_lines += bad.bad_lines
                for event in events:
                    report.events_read += 1
                    report.results += self._consider(event, state)
        if len(state.steps) > 500:  # keep the checkpoint small: recent steps are what corrections point at
            state.steps = dict(list(state.steps.items())[-500:])
        ensure_dir(self.path.parent)
        atomic_write(self.path, msgspec.json.encode(state))
        return report

    def _consider(self, event: AgentEvent, state: _Checkpoint) -> list[AddResult]:
        out: list[AddResult] = []
        session = event.session_id or ""
        text = event.text or ""
        if event.kind in {"user_message", "user_correction"}:
            remembered = _REMEMBER.match(text)
            if remembered:
                body = remembered.group("text").strip()
                entry = new_entry(
                    kind=infer_kind(body), title=_first_sentence(body), body=body, source=[event.id], tags=["remember"]
                )
                out.append(self.store.put(entry))
            elif event.kind == "user_correction":
                step = state.steps.get(event.corrects or "")
                rule = rule_of(text)
                title, _ = cut_at_sentence(rule, TITLE_CHARS)
                quoted = "\n".join(f"> {line}" for line in text.strip().splitlines())
                entry = new_entry(
                    kind="lesson",
                    title=title,  # the rule in the user's words, whole sentences (issue 23)
                    body=f"{rule}\n\nThe user corrected {_step_summary(step)}:\n\n{quoted}",
                    files=list(step.get("files") or []) if step else [],
                    source=[s for s in (event.corrects, event.id) if s],
                    tags=["correction"],
                    status="active" if self.store.config.accept_corrections else "pending",
                )
                out.append(self.store.put(entry))
        elif event.kind == "test_result" and event.command:
            failed = (event.tests_failed or 0) > 0 or (event.exit_status not in (None, 0))
            if failed:
                state.failing[session] = _Failing(event.id, event.command, text[-600:], [])
            elif session in state.failing:
                before = state.failing.pop(session)
                files = ", ".join(before.files) or "no recorded file edits"
                entry = new_entry(
                    kind="lesson",
                    title=f"Tests fixed: {_first_sentence(event.command, 60)}",
                    body=(
                        f"`{before.command}` failed, then `{event.command}` passed after changes to {files}.\n\n"
                        f"Failure output (tail):\n\n```\n{before.text.strip()}\n```"
                    ),
                    files=before.files,
                    source=[before.event_id, event.id],
                    tags=["tests"],
                    status="pending",
                )
                out.append(self.store.put(entry))
        elif event.kind == "file_modification" and session in state.failing:
            failing = state.failing[session]
            failing.files = list(dict.fromkeys([*failing.files, *event.files]))
        if event.kind in {
            "command_execution",
            "test_result",
            "file_modification",
            "file_read",
            "tool_call",
            "agent_message",
        }:
            state.steps[event.id] = {
                "kind": event.kind,
                "command": event.command,
                "text": text[:200],
                "files": event.files,
                "tool_name": event.tool_name,
            }
        return out


def harvest(store: MemoryStore) -> HarvestReport:
    """Read events captured since the last harvest and store what they teach."""
    return Harvester(store).harvest()
