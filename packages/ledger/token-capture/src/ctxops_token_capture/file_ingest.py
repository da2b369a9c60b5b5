"""Read one transcript file from where the last run stopped into encoded UsageRecord lines."""

from __future__ import annotations

import gc
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ctxops_contracts import UsageRecord, encode_line

from .claude_code import ClaudeCodeParser
from .codex import CodexParser
from .gemini import GeminiParser
from .incremental import FileState, iter_new_lines
from .report import IngestReport


class _Parser(Protocol):
    def parse(self, offset: int, raw: bytes) -> UsageRecord | None: ...


@dataclass(frozen=True)
class SourceFile:
    kind: str  # "claude-code" | "codex" | "gemini"
    path: Path
    session_hint: str = ""


def read_source(
    source: SourceFile,
    previous: FileState | None,
    report: IngestReport,
    seen: dict[str, int],
    *,
    compat: str = "exact",
    looked_up: set[str] | None = None,
) -> tuple[bytes, int, FileState | None]:
    """The new records of ``source`` as JSONL (and how many), and the file's state to save (None: unreadable).

    ``seen`` maps every dedupe key met so far in this run (in read order) to its output count; ``looked_up``,
    when given, collects every Claude Code key this file asked ``seen`` about (see ``parallel``).
    """
    try:
        lines, result, state = iter_new_lines(source.path, previous)
    except OSError as exc:  # vanished or unreadable since discovery: report it, keep going
        report.refuse("rejected", str(source.path), f"unreadable file: {exc.strerror or exc}")
        return b"", 0, None
    parser: _Parser
    if source.kind == "claude-code":
        claude = ClaudeCodeParser(source.path, state.parser, report, seen, final_wins=compat != "ccusage")
        claude.looked_up = looked_up
        parser = claude
    elif source.kind == "gemini":
        parser = GeminiParser(source.path, source.session_hint, state.parser, report, seen)
    else:
        parser = CodexParser(source.path, source.session_hint, state.parser, report, seen)
    start = state.offset
    out: list[bytes] = []
    # Parsing makes a great many short-lived containers that reference counting frees; the cyclic collector's
    # passes over them find nothing and cost ~10% of the parse, so it waits until the file is done.
    collecting = gc.isenabled()
    gc.disable()
    parse = parser.parse
    read = 0
    try:
        for offset, raw in lines:
            read += 1
            record = parse(offset, raw)
            if record is not None:
                out.append(encode_line(record))
    finally:
        report.lines_read += read
        if collecting:
            gc.enable()
    from .incremental import MAX_LINE, NOT_JSON_AFTER

    for offset in result.oversized:
        report.refuse("rejected", f"{source.path}:{offset}", f"line longer than {MAX_LINE} bytes: skipped unread")
    for offset in result.not_json:
        report.refuse(
            "invalid_json",
            f"{source.path}:{offset}",
            f"not a JSON object (over {NOT_JSON_AFTER} bytes): skipped unread",
        )
    report.files_read += 1
    report.bytes_read += state.offset - (0 if result.restarted else start)
    report.files_restarted += int(result.restarted)
    report.incomplete_tails += int(result.pending_tail > 0)
    return b"".join(out), len(out), state
