"""Gemini CLI chat recordings (``~/.gemini/tmp/<project>/chats/session-*.jsonl``) to UsageRecords.

Checked with Gemini CLI 0.61 (tests/e2e/test_gemini_e2e.py): the first line names the session
(``sessionId``); each model reply is a ``"type": "gemini"`` message with ``tokens`` (``input``, which
includes ``cached``; ``output``; ``thoughts``; ``tool``) and ``model``; a message is written again, same
``id``, when its tool calls complete, so a message id counts once; ``{"$set": ...}`` lines update
metadata only. The project's root is in ``../.project_root`` next to ``chats/``. Records use the ledger's
convention: input excludes cache reads (tool-use prompt tokens are input), thoughts are billed as output
and also reported as reasoning.
"""

from __future__ import annotations

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

PROVIDER = "google"
_NEEDLES = (b'"tokens"', b'"sessionId"')


class _Line(msgspec.Struct):
    id: Any = None
    type: Any = None
    timestamp: Any = None
    tokens: Any = None
    model: Any = None
    sessionId: Any = None


_decoder = msgspec.json.Decoder(_Line)


def project_root_of(path: Path) -> str | None:
    """The project directory Gemini CLI recorded for this chat file (``<project>/.project_root``)."""
    try:
        text = (path.parent.parent / ".project_root").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return text or None


class GeminiParser:
    """Parses the lines of one chat recording; carry-over (session, cwd) is JSON-able."""

    def __init__(
        self, path: Path, session_hint: str, state: dict[str, Any], report: IngestReport, seen: dict[str, int]
    ):
        self.path = path
        self.state = state
        self.state.setdefault("session_id", session_hint)
        if "cwd" not in self.state:
            self.state["cwd"] = project_root_of(path)
        self.report = report
        self.seen = seen
        self.machine = this_machine()  # stamped on every record of the file

    def parse(self, offset: int, raw: bytes) -> UsageRecord | None:
        where = f"{self.path}:{offset}"
        line = decode_line(raw, where, _decoder, _NEEDLES, self.report)
        if line is None:
            return None
        if isinstance(line.sessionId, str) and line.sessionId and line.type is None:
            self.state["session_id"] = line.sessionId
            return None
        if line.type != "gemini" or not isinstance(line.tokens, dict):
            return None
        tokens = line.tokens
        try:
            counts = {k: token_count(tokens.get(k), f"tokens.{k}") for k in ("input", "output", "cached", "thoughts")}
            counts["tool"] = token_count(tokens.get("tool"), "tokens.tool")
            ts, naive = parse_timestamp(line.timestamp)
        except (CountError, TimestampError) as exc:
            self.report.refuse("rejected", where, str(exc))
            return None
        session_id = str(self.state["session_id"])
        key = f"gemini:{session_id}:{line.id}"
        if key in self.seen:  # the same message written again with its tool results
            self.report.duplicates += 1
            return None
        self.seen[key] = 0
        if naive:
            self.report.naive_timestamps += 1
        cached = min(counts["cached"], counts["input"])
        cwd = self.state.get("cwd")
        return UsageRecord(
            id=stable_ulid(int(ts.timestamp() * 1000), key),
            ts=ts,
            provider=PROVIDER,
            model=str(line.model) if isinstance(line.model, str) and line.model else "gemini",
            session_id=session_id,
            message_id=str(line.id) if line.id is not None else None,
            repo=repo_of(cwd),
            cwd=cwd,
            input_tokens=counts["input"] - cached + counts["tool"],
            output_tokens=counts["output"] + counts["thoughts"],
            cache_read_tokens=cached,
            reasoning_tokens=counts["thoughts"],
            source="provider-reported",
            origin="transcript",
            dedupe_key=key,
            machine_id=self.machine,
        )
