"""Claude Code transcripts (``<config>/projects/**/*.jsonl``) to UsageRecords.

Claude Code writes one line per content block of a response, each repeating the response's usage, so
records are keyed on message id + request id (the key ccusage uses too); when a message's lines carry a
growing output count (streamed partials of older clients), the largest counts (``final_wins``).
Sidechain (subagent) lines carry their parent's ``sessionId`` and stay attributed to it.
Tool results that fed a request are attached to the next response of the same chain as Attribution.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec
from ctxops_contracts import Attribution, UsageRecord
from ctxops_contracts.redaction import redact_path, redact_value
from ctxops_contracts.redaction.record import hide_found

from .counts import CountError, field_count, token_count
from .estimate import attribution_tokens
from .ids import stable_ulid
from .line_decode import decode_at, needle_pattern
from .machine import this_machine
from .report import IngestReport
from .repos import repo_of
from .timestamps import TimestampError, parse_timestamp

PROVIDER = "anthropic"
_NEEDLES = (b'"usage"', b'"tool_use"', b'"tool_result"', b'"assistant"')
_NEEDLE_PATTERN = needle_pattern(_NEEDLES)
FILE_KEYS = ("file_path", "notebook_path", "path")
MAX_OPEN_TOOL_USES = 512
SYNTHETIC_MODEL = "<synthetic>"


class _Usage(msgspec.Struct):
    # Every field loose: a wrong-typed one is dropped (and counted) by ``_record``, never the whole call.
    input_tokens: Any = None
    output_tokens: Any = None
    cache_creation_input_tokens: Any = None
    cache_read_input_tokens: Any = None
    cache_creation: Any = None
    server_tool_use: Any = None
    inference_geo: Any = None
    service_tier: Any = None


class _Block(msgspec.Struct):
    # Loose on purpose: a block only feeds attribution, and an odd one (a numeric id, a string input) must
    # not make the line, and so the call's usage, fail to decode.
    type: Any = ""
    id: Any = None
    name: Any = None
    input: Any = None
    tool_use_id: Any = None
    content: Any = None


# How much of a message's tool inputs is read for secrets its file names repeat (``_hidden_across``).
INPUT_STRING_WINDOW = 8_000
INPUT_CHARS_LIMIT = 100_000


def _hidden_across(
    uses: list[tuple[str, str, list[str]]], blocks: list[_Block], found: list[str]
) -> list[tuple[str, str, list[str]]]:
    """The file names of one message's tool uses with every value hidden in any of its tool inputs hidden
    too: ``Read notes/kafka123.txt`` beside ``Bash: mysql -p kafka123`` (cross-field redaction, bounded)."""
    inputs = [block.input for block in blocks if block.type == "tool_use" and isinstance(block.input, dict)]
    redact_value(inputs, max_string=INPUT_STRING_WINDOW, max_chars=INPUT_CHARS_LIMIT, found=found)
    if not found:
        return uses
    return [(use_id, name, hide_found(files, found)) for use_id, name, files in uses]


class _Message(msgspec.Struct):
    id: Any = None
    model: Any = None
    usage: _Usage | None = None
    content: str | list[_Block] | None = None


class _Line(msgspec.Struct):
    type: Any = None
    timestamp: Any = None
    sessionId: Any = None
    requestId: Any = None
    isSidechain: Any = False
    agentId: Any = None
    cwd: Any = None
    gitBranch: Any = None
    uuid: Any = None
    message: _Message | None = None


_decoder = msgspec.json.Decoder(_Line)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def dedupe_key(message_id: str | None, request_id: str | None, session_id: str | None, uuid: str | None) -> str:
    """The key of one Anthropic response: message id + request id, shared with the proxy and the SDK wrapper."""
    if message_id and request_id:
        return f"anthropic:{message_id}:{request_id}"
    if message_id:
        # Message ids are unique per response: a replay into a resumed file under a new session id is the
        # same call (ccusage counts it twice when the line has no requestId).
        return f"claude-code:{message_id}"
    return f"claude-code:line:{session_id or '-'}:{uuid or '-'}"


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for item in content:
            if isinstance(item, dict):
                if isinstance(item.get("text"), str):
                    parts.append(item["text"])
                elif isinstance(item.get("source"), dict) and isinstance(item["source"].get("data"), str):
                    parts.append(item["source"]["data"])  # an image: its base64 bytes enter the context
            elif isinstance(item, str):
                parts.append(item)
        return "\n".join(parts)
    return ""


class ClaudeCodeParser:
    """Parses the lines of one transcript file; its carry-over state lives in a JSON-able dict."""

    def __init__(
        self, path: Path, state: dict[str, Any], report: IngestReport, seen: dict[str, int], *, final_wins: bool = True
    ) -> None:
        self.path = path
        self.state = state
        self.final_wins = final_wins
        self.tool_uses: dict[str, list[Any]] = state.setdefault("tool_uses", {})
        self.pending: dict[str, list[list[Any]]] = state.setdefault("pending", {})
        self.report = report
        self.seen = seen
        # Every dedupe key this file asks ``seen`` about, when a worker parses the file alone (``parallel``).
        self.looked_up: set[str] | None = None
        self.machine = this_machine()  # stamped on every record of the file

    def _chain(self, line: _Line) -> str:
        side = "side:" + (_str(line.agentId) or "") if line.isSidechain is True else "main"
        return f"{_str(line.sessionId) or '-'}|{side}"

    def _tool_uses(self, blocks: list[_Block]) -> None:
        uses: list[tuple[str, str, list[str]]] = []
        found: list[str] = []
        for block in blocks:
            if block.type == "tool_use" and isinstance(block.id, str | int) and block.id != "":
                files: list[str] = []
                if isinstance(block.input, dict):
                    for key in FILE_KEYS:
                        value = block.input.get(key)
                        if isinstance(value, str) and value:
                            files.append(redact_path(value, found=found))  # a file name can hold a secret too
                            break
                uses.append((str(block.id), _str(block.name) or "unknown", files))
        if any(files for _, _, files in uses):
            uses = _hidden_across(uses, blocks, found)
        for use_id, name, files in uses:
            self.tool_uses[use_id] = [name, files]
        while len(self.tool_uses) > MAX_OPEN_TOOL_USES:  # results that never came: forget the oldest
            del self.tool_uses[next(iter(self.tool_uses))]

    def _tool_results(self, line: _Line, blocks: list[_Block]) -> None:
        for block in blocks:
            if block.type != "tool_result":
                continue
            use_id = str(block.tool_use_id) if isinstance(block.tool_use_id, str | int) else ""
            name, files = self.tool_uses.pop(use_id, ["unknown", []])
            text = _result_text(block.content)
            # Bytes in UTF-8: an ASCII text (most tool output; ``isascii`` is a flag lookup) is its length.
            size = len(text) if text.isascii() else len(text.encode("utf-8", "replace"))
            tokens = attribution_tokens(text) if text else 0
            self.pending.setdefault(self._chain(line), []).append([name, files, size, tokens])

    def parse(self, offset: int, raw: bytes) -> UsageRecord | None:
        line = decode_at(raw, self.path, offset, _decoder, _NEEDLE_PATTERN, report=self.report)
        if line is None:
            return None
        message = line.message
        if message is None:
            return None
        blocks = message.content if isinstance(message.content, list) else []
        if blocks:
            if line.type == "assistant":
                self._tool_uses(blocks)
            elif line.type == "user":
                self._tool_results(line, blocks)
        if message.usage is None:
            if line.type == "assistant":
                self.report.no_usage += 1
            return None
        if message.model == SYNTHETIC_MODEL:  # Claude Code's own notices (errors, interruptions): no model call
            return None
        return self._record(line, message, message.usage, offset)

    def _record(self, line: _Line, message: _Message, usage: _Usage, offset: int) -> UsageRecord | None:
        session_id, message_id, request_id = line.sessionId, message.id, line.requestId
        # ``_str`` inlined (twice per call, on every line of a message): a non-empty string, else None.
        session_id = session_id if type(session_id) is str and session_id else _str(session_id)
        message_id = message_id if type(message_id) is str and message_id else _str(message_id)
        request_id = request_id if type(request_id) is str and request_id else _str(request_id)
        if message_id and request_id:
            key = f"anthropic:{message_id}:{request_id}"  # dedupe_key's first case, the usual one
        else:
            key = dedupe_key(message_id, request_id, session_id, None if message_id else _str(line.uuid))
        if self.looked_up is not None:
            self.looked_up.add(key)
        known = self.seen.get(key)
        if known is None and key == self.state.get("last_key"):
            known = int(self.state.get("last_output", 0))
        if known is not None:
            # Lines of one message repeat its usage; when they carry a growing output count (streamed partials),
            # the last is the truth: emit it again under the same key, the ledger keeps the largest.
            grown = isinstance(usage.output_tokens, int) and usage.output_tokens > known
            if not (self.final_wins and grown):
                self.report.duplicates += 1
                return None
            self.report.duplicates += 1
            self.report.grown_outputs += 1
        try:
            ts, naive = parse_timestamp(line.timestamp)
            input_tokens = token_count(usage.input_tokens, "input_tokens", required=True)
            output_tokens = token_count(usage.output_tokens, "output_tokens", required=True)
        except (TimestampError, CountError) as exc:
            self.report.refuse("rejected", f"{self.path}:{offset}", str(exc))
            return None
        # Any other count of the wrong type is read as none and counted: the call keeps its valid counts.
        dropped: list[str] = []
        cache_creation = field_count(usage.cache_creation_input_tokens, "cache_creation_input_tokens", dropped)
        cache_read = field_count(usage.cache_read_input_tokens, "cache_read_input_tokens", dropped)
        cache_1h = field_count(
            _member(usage.cache_creation, "ephemeral_1h_input_tokens", dropped, "cache_creation"),
            "cache_creation.ephemeral_1h_input_tokens",
            dropped,
        )
        server = usage.server_tool_use
        web_searches = field_count(
            _member(server, "web_search_requests", dropped, "server_tool_use"),
            "server_tool_use.web_search_requests",
            dropped,
        )
        web_fetches = field_count(
            _member(server, "web_fetch_requests", [], "server_tool_use"), "server_tool_use.web_fetch_requests", dropped
        )
        for reason in dropped:
            self.report.drop_field(f"{self.path}:{offset}", reason)
        if naive:
            self.report.naive_timestamps += 1
        self.seen[key] = output_tokens
        self.state["last_key"] = key
        self.state["last_output"] = output_tokens
        attribution = [
            Attribution(tool=name, files=files, bytes=size, tokens=tokens)
            for name, files, size, tokens in self.pending.pop(self._chain(line), [])
        ]
        cwd = _str(line.cwd)
        return UsageRecord(
            id=stable_ulid(_ms(ts), key),
            ts=ts,
            provider=PROVIDER,
            model=_str(message.model) or "unknown",
            session_id=session_id,
            parent_session_id=session_id if line.isSidechain is True else None,
            repo=repo_of(cwd),
            cwd=cwd,
            git_branch=_str(line.gitBranch),
            request_id=request_id,
            message_id=message_id,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            cache_creation_tokens=cache_creation,
            cache_creation_1h_tokens=min(cache_1h, cache_creation),
            cache_read_tokens=cache_read,
            web_search_requests=web_searches,
            web_fetch_requests=web_fetches,
            inference_geo=_str(usage.inference_geo),
            service_tier=_str(usage.service_tier),
            is_sidechain=line.isSidechain is True,
            source="provider-reported",
            origin="transcript",
            dedupe_key=key,
            attribution=attribution,
            machine_id=self.machine,
        )


def _member(value: Any, key: str, dropped: list[str], name: str) -> Any:
    """``value[key]`` when ``value`` is an object; None when absent; a non-object is dropped (noted)."""
    if value is None:
        return None
    if isinstance(value, dict):
        return value.get(key)
    dropped.append(f"{name} is not an object: {value!r:.40}")
    return None


def _ms(ts: datetime) -> int:
    return int(ts.timestamp() * 1000)


def first_timestamp(path: Path, limit: int = 1 << 16) -> str:
    """The first ``"timestamp"`` value in the head of a file (files are read oldest first, like ccusage)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(4096)  # almost always holds it: read the rest of the head only when not
            found = _first_timestamp_in(head)
            if found is None and len(head) == 4096:
                head += handle.read(limit - 4096)
                found = _first_timestamp_in(head)
    except OSError:
        return "~"
    return "~" if found is None else found  # "~" sorts after every date: files without timestamps go last


def _first_timestamp_in(head: bytes) -> str | None:
    at = head.find(b'"timestamp":"')
    while at >= 0:
        end = head.find(b'"', at + 13)
        if end < 0:
            return None
        newline = head.find(b"\n", at, end)
        if newline < 0:
            return head[at + 13 : end].decode("ascii", "replace")
        at = head.find(b'"timestamp":"', newline)  # a value cut by the end of its line: look further on
    return None
