"""Reading usage off the wire: request bodies, JSON responses and SSE streams of Anthropic, OpenAI and Gemini APIs.

Shared by the proxy and the SDK wrapper. The observer is fed the response bytes exactly as they pass
(possibly gzip/deflate-compressed) and never changes them.
"""

from __future__ import annotations

import time
import zlib
from dataclasses import dataclass, field
from typing import Any, Literal

import msgspec

from .counts import CountError, token_count
from .estimate import estimate_tokens, text_of

Api = Literal["anthropic", "openai-chat", "openai-responses", "gemini"]
# Gemini API model calls: POST .../models/MODEL:generateContent or :streamGenerateContent (countTokens is free).
GEMINI_METHODS = (":generateContent", ":streamGenerateContent")
MAX_JSON_BODY = 64 << 20  # a non-streaming body larger than this is passed through but not parsed
MAX_TEXT = 4 << 20  # generated text kept for estimation when no usage comes


def api_of(method: str, path: str) -> Api | None:
    """Which model-call API a request path is (None: not a model call, e.g. ``/v1/models``)."""
    if method.upper() != "POST":
        return None
    clean = path.split("?", 1)[0].rstrip("/")
    if clean.endswith("/messages"):
        return "anthropic"
    if clean.endswith("/chat/completions"):
        return "openai-chat"
    if clean.endswith("/responses"):
        return "openai-responses"
    if clean.endswith(GEMINI_METHODS) and "/models/" in clean:
        return "gemini"
    return None


def gemini_model_of(path: str) -> str | None:
    """MODEL of ``.../models/MODEL:METHOD`` (Gemini names the model in the path, not the body)."""
    clean = path.split("?", 1)[0]
    _, _, tail = clean.rpartition("/models/")
    model = tail.rpartition(":")[0]
    return model or None


@dataclass
class RequestInfo:
    model: str | None = None
    stream: bool = False
    message_count: int | None = None
    prompt: str = ""  # text of system + messages, for estimation only (never stored)


def _prompt_text(body: dict[str, Any]) -> str:
    parts: list[str] = []
    for key in ("system", "instructions", "messages", "input", "systemInstruction", "contents", "tools"):
        value = body.get(key)
        if value is None:
            continue
        text = text_of(value)
        if not text and not isinstance(value, str):
            text = msgspec.json.encode(value).decode("utf-8", "replace")
        parts.append(text)
    return "\n".join(parts)


def request_info(body: bytes, path: str = "") -> RequestInfo:
    """Model, stream flag and message count of a JSON request body (empty info if it is not JSON); a Gemini
    request's model and streaming are in its ``path``."""
    try:
        parsed = msgspec.json.decode(body) if body else None
    except msgspec.DecodeError:
        return RequestInfo()
    if not isinstance(parsed, dict):
        return RequestInfo()
    messages = parsed.get("messages")
    if messages is None:
        messages = parsed.get("input")
    if messages is None:
        messages = parsed.get("contents")
    count = len(messages) if isinstance(messages, list) else (1 if isinstance(messages, str) else None)
    model = parsed.get("model")
    gemini = api_of("POST", path) == "gemini" if path else False
    if gemini:
        model = gemini_model_of(path)
    return RequestInfo(
        model=model if isinstance(model, str) else None,
        stream=parsed.get("stream") is True or (gemini and ":streamGenerateContent" in path),
        message_count=count,
        prompt=_prompt_text(parsed),
    )


@dataclass
class Usage:
    """Token counts in the ledger's convention (input excludes cache reads and writes)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_tokens: int = 0
    cache_creation_1h_tokens: int = 0
    cache_read_tokens: int = 0
    reasoning_tokens: int = 0
    web_search_requests: int = 0  # server tools billed per request (Anthropic's usage.server_tool_use)
    web_fetch_requests: int = 0
    inference_geo: str | None = None
    service_tier: str | None = None


@dataclass
class Observed:
    """What a response said: usage (if any), ids, model, and the text generated."""

    usage: Usage = field(default_factory=Usage)
    input_seen: bool = False  # the provider reported input-side usage
    output_final: bool = False  # the provider reported final output usage
    model: str | None = None
    message_id: str | None = None
    text_parts: list[str] = field(default_factory=list)
    text_size: int = 0
    error: str | None = None
    stop: bool = False  # a terminal event (message_stop, [DONE], response.completed) arrived
    first_text_at: float | None = None  # time.perf_counter() when the first generated text arrived

    def add_text(self, text: Any) -> None:
        if self.first_text_at is None and isinstance(text, str) and text:
            self.first_text_at = time.perf_counter()
        if isinstance(text, str) and text and self.text_size < MAX_TEXT:
            self.text_parts.append(text)
            self.text_size += len(text)

    @property
    def text(self) -> str:
        return "".join(self.text_parts)


def _anthropic_usage(raw: Any, into: Usage) -> bool:
    if not isinstance(raw, dict):
        return False
    if "input_tokens" in raw and raw["input_tokens"] is not None:
        into.input_tokens = token_count(raw["input_tokens"], "input_tokens")
    if raw.get("cache_creation_input_tokens") is not None:
        into.cache_creation_tokens = token_count(raw["cache_creation_input_tokens"], "cache_creation_input_tokens")
    if raw.get("cache_read_input_tokens") is not None:
        into.cache_read_tokens = token_count(raw["cache_read_input_tokens"], "cache_read_input_tokens")
    split = raw.get("cache_creation")
    if isinstance(split, dict) and split.get("ephemeral_1h_input_tokens") is not None:
        into.cache_creation_1h_tokens = token_count(split["ephemeral_1h_input_tokens"], "ephemeral_1h_input_tokens")
    if raw.get("output_tokens") is not None:
        into.output_tokens = token_count(raw["output_tokens"], "output_tokens")
    server = raw.get("server_tool_use")
    if isinstance(server, dict):  # message_delta repeats the running totals: the largest is the call's
        for name in ("web_search_requests", "web_fetch_requests"):
            if server.get(name) is not None:
                setattr(into, name, max(getattr(into, name), token_count(server[name], f"server_tool_use.{name}")))
    for name in ("inference_geo", "service_tier"):
        if isinstance(raw.get(name), str) and raw[name]:
            setattr(into, name, raw[name])
    return True


def _openai_usage(raw: Any, into: Usage) -> bool:
    """Chat (prompt/completion) or Responses (input/output) usage; cached input is split out of input."""
    if not isinstance(raw, dict):
        return False
    total_in = raw.get("prompt_tokens", raw.get("input_tokens"))
    out = raw.get("completion_tokens", raw.get("output_tokens"))
    in_details = raw.get("prompt_tokens_details") or raw.get("input_tokens_details") or {}
    out_details = raw.get("completion_tokens_details") or raw.get("output_tokens_details") or {}
    total_in_n = token_count(total_in, "input_tokens")
    cached = min(token_count(in_details.get("cached_tokens"), "cached_tokens"), total_in_n)
    into.input_tokens = total_in_n - cached
    into.cache_read_tokens = cached
    into.output_tokens = token_count(out, "output_tokens")
    into.reasoning_tokens = token_count(out_details.get("reasoning_tokens"), "reasoning_tokens")
    return True


def _gemini_usage(raw: Any, into: Usage) -> bool:
    """``usageMetadata``: ``promptTokenCount`` includes the cached tokens; thoughts are billed as output, tool-use
    prompt tokens as input (the convention of the chat-file reader, ``gemini``)."""
    if not isinstance(raw, dict):
        return False
    prompt = token_count(raw.get("promptTokenCount"), "promptTokenCount")
    cached = min(token_count(raw.get("cachedContentTokenCount"), "cachedContentTokenCount"), prompt)
    thoughts = token_count(raw.get("thoughtsTokenCount"), "thoughtsTokenCount")
    into.input_tokens = prompt - cached + token_count(raw.get("toolUsePromptTokenCount"), "toolUsePromptTokenCount")
    into.cache_read_tokens = cached
    into.output_tokens = token_count(raw.get("candidatesTokenCount"), "candidatesTokenCount") + thoughts
    into.reasoning_tokens = thoughts
    return True


class ResponseObserver:
    """Fed the raw response bytes; finds usage in an SSE stream or a JSON body."""

    def __init__(self, api: Api, content_type: str | None, content_encoding: str | None) -> None:
        self.api = api
        self.sse = "text/event-stream" in (content_type or "").lower()
        encoding = (content_encoding or "").strip().lower()
        self._inflate = zlib.decompressobj(47) if encoding in ("gzip", "x-gzip", "deflate") else None
        self.readable = encoding in ("", "identity", "gzip", "x-gzip", "deflate")
        self.observed = Observed()
        self._buffer = bytearray()
        self._too_big = False

    def feed(self, chunk: bytes) -> None:
        if not self.readable or not chunk:
            return
        if self._inflate is not None:
            try:
                chunk = self._inflate.decompress(chunk)
            except zlib.error:
                self.readable = False
                return
        if self.sse:
            self._buffer += chunk
            self._drain_lines()
        elif not self._too_big:
            self._buffer += chunk
            if len(self._buffer) > MAX_JSON_BODY:
                self._too_big = True
                self._buffer.clear()

    def _drain_lines(self) -> None:
        start = 0
        buffer = self._buffer
        while True:
            end = buffer.find(b"\n", start)
            if end < 0:
                break
            line = bytes(buffer[start:end]).rstrip(b"\r")
            start = end + 1
            if line.startswith(b"data:"):
                self._on_data(line[5:].strip())
        del buffer[:start]

    def _on_data(self, data: bytes) -> None:
        if data == b"[DONE]":
            self.observed.stop = True
            return
        try:
            event = msgspec.json.decode(data)
        except msgspec.DecodeError:
            return
        if isinstance(event, dict):
            try:
                self._on_event(event)
            except CountError as exc:
                self.observed.error = f"bad usage in stream: {exc}"

    def _on_event(self, event: dict[str, Any]) -> None:
        seen = self.observed
        kind = event.get("type")
        if self.api == "anthropic":
            if kind == "message_start" and isinstance(event.get("message"), dict):
                message = event["message"]
                seen.message_id = message.get("id") or seen.message_id
                seen.model = message.get("model") or seen.model
                seen.input_seen = _anthropic_usage(message.get("usage"), seen.usage) or seen.input_seen
            elif kind == "message_delta":
                if _anthropic_usage(event.get("usage"), seen.usage):
                    seen.output_final = True
            elif kind == "content_block_delta" and isinstance(event.get("delta"), dict):
                delta = event["delta"]
                seen.add_text(delta.get("text") or delta.get("partial_json") or delta.get("thinking"))
            elif kind == "message_stop":
                seen.stop = True
            elif kind == "error":
                error = event.get("error")
                seen.error = f"upstream error event: {error.get('type') if isinstance(error, dict) else error}"
        elif self.api == "gemini":
            self._on_gemini(event)
        elif self.api == "openai-chat":
            seen.message_id = event.get("id") or seen.message_id
            seen.model = event.get("model") or seen.model
            for choice in event.get("choices") or []:
                if isinstance(choice, dict) and isinstance(choice.get("delta"), dict):
                    seen.add_text(choice["delta"].get("content"))
            if event.get("usage"):
                _openai_usage(event["usage"], seen.usage)
                seen.input_seen = seen.output_final = True
        else:  # openai-responses
            response = event.get("response")
            if isinstance(response, dict):
                seen.message_id = response.get("id") or seen.message_id
                seen.model = response.get("model") or seen.model
                if response.get("usage"):
                    _openai_usage(response["usage"], seen.usage)
                    seen.input_seen = seen.output_final = True
            if kind == "response.output_text.delta":
                seen.add_text(event.get("delta"))
            if kind in ("response.completed", "response.failed", "response.incomplete"):
                seen.stop = True

    def _on_gemini(self, chunk: dict[str, Any]) -> None:
        """One ``GenerateContentResponse`` (a whole body, or one chunk of a stream: usage on the last, or running
        totals on each; the last seen wins)."""
        seen = self.observed
        if isinstance(chunk.get("responseId"), str):
            seen.message_id = chunk["responseId"]
        if isinstance(chunk.get("modelVersion"), str):
            seen.model = chunk["modelVersion"]
        if _gemini_usage(chunk.get("usageMetadata"), seen.usage):
            seen.input_seen = seen.output_final = True
        for candidate in chunk.get("candidates") or []:
            if not isinstance(candidate, dict):
                continue
            content = candidate.get("content")
            for part in (content.get("parts") or []) if isinstance(content, dict) else []:
                if isinstance(part, dict) and not part.get("thought"):
                    seen.add_text(part.get("text"))
            if candidate.get("finishReason"):
                seen.stop = True
        error = chunk.get("error")
        if isinstance(error, dict):
            seen.error = f"upstream error: {error.get('status') or error.get('code')}"

    def finish(self) -> Observed:
        """Parse a buffered JSON body (non-streaming responses) and return what was seen."""
        seen = self.observed
        if self.sse:
            if self._buffer:
                self._drain_lines()
            return seen
        if self._too_big or not self._buffer:
            return seen
        try:
            body = msgspec.json.decode(bytes(self._buffer))
        except msgspec.DecodeError:
            return seen
        self._buffer.clear()
        if self.api == "gemini" and isinstance(body, list):  # streamGenerateContent without alt=sse: an array
            try:
                for chunk in body:
                    if isinstance(chunk, dict):
                        self._on_gemini(chunk)
            except CountError as exc:
                seen.error = f"bad usage in response: {exc}"
            return seen
        if not isinstance(body, dict):
            return seen
        try:
            self._on_body(body)
        except CountError as exc:
            seen.error = f"bad usage in response: {exc}"
        return seen

    def _on_body(self, body: dict[str, Any]) -> None:
        seen = self.observed
        if self.api == "gemini":
            self._on_gemini(body)
            seen.stop = True
            return
        seen.stop = True
        seen.message_id = body.get("id") if isinstance(body.get("id"), str) else None
        seen.model = body.get("model") if isinstance(body.get("model"), str) else None
        if body.get("type") == "error" or body.get("error"):
            error = body.get("error")
            seen.error = f"upstream error: {error.get('type') if isinstance(error, dict) else error}"
        if self.api == "anthropic":
            if _anthropic_usage(body.get("usage"), seen.usage):
                seen.input_seen = seen.output_final = True
            seen.add_text(text_of(body.get("content")))
        else:
            if body.get("usage") and _openai_usage(body["usage"], seen.usage):
                seen.input_seen = seen.output_final = True
            if self.api == "openai-chat":
                for choice in body.get("choices") or []:
                    if isinstance(choice, dict):
                        seen.add_text(text_of((choice.get("message") or {}).get("content")))
            else:
                seen.add_text(text_of(body.get("output")))


def settle_usage(seen: Observed, request: RequestInfo, *, succeeded: bool) -> tuple[Usage, bool]:
    """The usage to record and whether it is estimated: reported counts win, the tokenizer fills gaps.

    A failed call that reported nothing is recorded with zero tokens: the provider bills nothing for it.
    A stream cut short keeps the input it reported and the larger of reported and estimated output.
    """
    usage = seen.usage
    if seen.input_seen and seen.output_final:
        return usage, False
    estimated = seen.input_seen  # reported input, but the final output count never came
    if not seen.input_seen and succeeded and request.prompt:
        usage.input_tokens = estimate_tokens(request.prompt)
        estimated = True
    if (succeeded or seen.input_seen) and seen.text:
        guess = estimate_tokens(seen.text)
        if guess > usage.output_tokens:
            usage.output_tokens = guess
            estimated = True
    return usage, estimated
