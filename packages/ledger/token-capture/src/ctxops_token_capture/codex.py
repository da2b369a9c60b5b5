"""Codex CLI rollouts (``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl``) to UsageRecords.

``session_meta`` names the session, ``turn_context`` the model, and each ``event_msg`` whose payload is a
``token_count`` carries ``info.last_token_usage`` (this turn) and ``info.total_token_usage`` (running
total). A turn's usage is ``last_token_usage``, else the growth of ``total_token_usage``. Codex counts
cached input inside ``input_tokens`` and reasoning inside ``output_tokens``; records use the ledger's
convention (input excludes cache reads, as Anthropic reports it). A ``token_count`` event that repeats the
previous running total adds nothing and is skipped.

Forks (Codex 0.171, recorded in ``tests/data/codex-0.171.0-fork``): the first ``session_meta`` of a file is
its own session; ``forked_from_id`` (or ``parent_thread_id``) names the parent. A subagent spawned with the
parent's history (``spawn_agent``, ``fork_turns="all"``) copies the parent's lines, its ``session_meta``
included, ahead of its own, which start at ``subagent_history_start_ordinal`` (``codex exec fork`` copies
nothing and starts at ``forked_from_ordinal_exclusive``). A later ``session_meta`` is such a copy and never
renames the session; a ``token_count`` among the copied lines (an ``ordinal`` below the start or, in a
file without ordinals, a timestamp older than the fork's ``session_meta``) is the parent's turn and is
counted once, under the parent, with the parent's own key. The child's turns carry the parent in
``parent_session_id``.
"""

from __future__ import annotations

import contextlib
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec
from ctxops_contracts import UsageRecord

from .counts import CountError, token_count
from .ids import stable_ulid
from .line_decode import decode_line
from .machine import this_machine
from .report import IngestReport
from .repos import repo_of
from .timestamps import TimestampError, parse_timestamp

PROVIDER = "openai"
FALLBACK_MODEL = "gpt-5"  # what ccusage assumes for legacy rollouts that never name a model
_FIELDS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens")
_NEEDLES = (b'"token_count"', b'"turn_context"', b'"session_meta"')


class _Entry(msgspec.Struct):
    type: Any = None
    timestamp: Any = None
    payload: Any = None
    ordinal: Any = None


_decoder = msgspec.json.Decoder(_Entry)


def _usage(raw: Any, name: str) -> dict[str, int] | None:
    if not isinstance(raw, dict):
        return None
    usage = {field: token_count(raw.get(field), f"{name}.{field}") for field in _FIELDS}
    if usage["cached_input_tokens"] == 0 and "cache_read_input_tokens" in raw:
        usage["cached_input_tokens"] = token_count(raw["cache_read_input_tokens"], f"{name}.cache_read_input_tokens")
    return usage


def _model_in(payload: dict[str, Any]) -> str | None:
    info = payload.get("info")
    candidates: list[Any] = []
    if isinstance(info, dict):
        candidates += [info.get("model"), info.get("model_name")]
        if isinstance(info.get("metadata"), dict):
            candidates.append(info["metadata"].get("model"))
    candidates.append(payload.get("model"))
    if isinstance(payload.get("metadata"), dict):
        candidates.append(payload["metadata"].get("model"))
    for candidate in candidates:
        if isinstance(candidate, str) and candidate.strip():
            return candidate.strip()
    return None


class CodexParser:
    """Parses the lines of one rollout file; carry-over (session, model, running total) is JSON-able."""

    def __init__(
        self, path: Path, session_hint: str, state: dict[str, Any], report: IngestReport, seen: dict[str, int]
    ):
        self.path = path
        self.state = state
        self.state.setdefault("session_id", session_hint)
        self.report = report
        self.seen = seen
        self.machine = this_machine()  # stamped on every record of the file

    def parse(self, offset: int, raw: bytes) -> UsageRecord | None:
        where = f"{self.path}:{offset}"
        entry = decode_line(raw, where, _decoder, _NEEDLES, self.report)
        if entry is None:
            return None
        payload = entry.payload if isinstance(entry.payload, dict) else {}
        if entry.type == "session_meta":
            if not self.state.get("meta_seen"):  # later ones are the parent's, copied with its history
                self._session_meta(payload)
            return None
        if entry.type == "turn_context":
            model = _model_in(payload)
            if model:
                self.state["model"] = model
            if isinstance(payload.get("cwd"), str):
                self.state["cwd"] = payload["cwd"]
            return None
        if entry.type != "event_msg" or payload.get("type") != "token_count":
            return None
        return self._token_count(entry, payload, where)

    def _session_meta(self, payload: dict[str, Any]) -> None:
        self.state["meta_seen"] = True
        if isinstance(payload.get("id"), str) and payload["id"]:
            self.state["session_id"] = payload["id"]
        parent = payload.get("forked_from_id") or payload.get("parent_thread_id")
        if isinstance(parent, str) and parent and parent != self.state["session_id"]:
            self.state["parent_session_id"] = parent
            start = payload.get("subagent_history_start_ordinal", payload.get("forked_from_ordinal_exclusive"))
            if isinstance(start, int) and not isinstance(start, bool):
                self.state["own_from_ordinal"] = start
            with contextlib.suppress(TimestampError):  # the fork's creation: none of its own turns is older
                self.state["forked_at"] = parse_timestamp(payload.get("timestamp"))[0].timestamp()
        if isinstance(payload.get("cwd"), str):
            self.state["cwd"] = payload["cwd"]
        git = payload.get("git")
        if isinstance(git, dict) and isinstance(git.get("branch"), str):
            self.state["git_branch"] = git["branch"]

    def _copied(self, entry: _Entry, ts: datetime) -> bool:
        """Whether ``entry`` is a line of the parent's history copied into this fork: an ``ordinal`` below the
        fork's own start, or (files without ordinals) a timestamp older than the fork itself."""
        start = self.state.get("own_from_ordinal")
        ordinal = entry.ordinal
        if start is not None and isinstance(ordinal, int) and not isinstance(ordinal, bool):
            return bool(ordinal < start)
        forked_at = self.state.get("forked_at")
        return forked_at is not None and "parent_session_id" in self.state and ts.timestamp() < forked_at

    def _token_count(self, entry: _Entry, payload: dict[str, Any], where: str) -> UsageRecord | None:
        info = payload.get("info")
        if not isinstance(info, dict):
            return None  # a rate-limit-only update: no usage
        try:
            last = _usage(info.get("last_token_usage"), "last_token_usage")
            ts, naive = parse_timestamp(entry.timestamp)
        except (CountError, TimestampError) as exc:
            self.report.refuse("rejected", where, str(exc))
            return None
        try:
            total = _usage(info.get("total_token_usage"), "total_token_usage")
        except CountError as exc:
            if last is None:
                self.report.refuse("rejected", where, str(exc))
                return None
            # A bad running total does not cost the turn: its own usage is right there.
            self.report.reasons["bad total_token_usage (used last_token_usage)"] += 1
            total = None
        previous = self.state.get("previous_total")
        if total is not None:
            self.state["previous_total"] = total
            if previous == total:
                self.report.duplicates += 1
                return None
        turn = last
        if turn is None and total is not None:
            base = previous or {}
            turn = {field: max(total[field] - base.get(field, 0), 0) for field in _FIELDS}
        if turn is None:
            self.report.no_usage += 1
            return None
        if not any(turn[f] for f in _FIELDS if f != "total_tokens"):
            return None
        if naive:
            self.report.naive_timestamps += 1
        model = _model_in(payload) or self.state.get("model")
        if model is None:
            model = FALLBACK_MODEL
        self.state["model"] = model
        copied = self._copied(entry, ts)
        parent = self.state.get("parent_session_id")
        # A copied turn is the parent's: its own key (session and running total) is the one the parent's
        # rollout gives it, so the ledger keeps it once.
        session_id = str(parent if copied else self.state["session_id"])
        marker = (
            f"{total['total_tokens']}:{total['input_tokens']}:{total['output_tokens']}"
            if total is not None
            else f"{entry.timestamp}:{turn['input_tokens']}:{turn['output_tokens']}"
        )
        key = f"codex:{session_id}:{marker}"
        if key in self.seen:
            self.report.duplicates += 1
            return None
        self.seen[key] = 0
        cached = min(turn["cached_input_tokens"], turn["input_tokens"])
        cwd = self.state.get("cwd")
        return UsageRecord(
            id=stable_ulid(int(ts.timestamp() * 1000), key),
            ts=ts,
            provider=PROVIDER,
            model=model,
            session_id=session_id,
            parent_session_id=None if copied else parent,
            repo=repo_of(cwd),
            cwd=cwd,
            git_branch=self.state.get("git_branch"),
            input_tokens=turn["input_tokens"] - cached,
            output_tokens=turn["output_tokens"],
            cache_read_tokens=cached,
            reasoning_tokens=turn["reasoning_output_tokens"],
            source="provider-reported",
            origin="transcript",
            dedupe_key=key,
            machine_id=self.machine,
        )
