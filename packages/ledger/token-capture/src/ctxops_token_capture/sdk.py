"""Record the usage of Anthropic and OpenAI Python SDK clients without changing what they do.

``instrument(client)`` wraps the HTTP transport under an ``Anthropic``/``AsyncAnthropic``/``OpenAI``/
``AsyncOpenAI`` client (works with the SDKs' ``httpx`` or ``httpx2``): every model call (sync, async,
streaming, retries included) passes through unchanged, its response bytes are observed on the side, and one
UsageRecord is appended to the ledger's JSONL when the response is closed. Recording problems are
logged, never raised into the caller's code.

    from anthropic import Anthropic
    from ctxops_token_capture.sdk import instrument
    client = instrument(Anthropic())
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

from ctxops_contracts import UsageRecord

from .jsonl_store import append_records
from .recording import call_record
from .wire import Api, ResponseObserver, api_of, request_info

log = logging.getLogger("ctxops.token_capture.sdk")
REQUEST_ID_HEADERS = ("request-id", "x-request-id", "openai-request-id")
Sink = Callable[[UsageRecord], None]
C = TypeVar("C")


def jsonl_sink(root: Path | None = None) -> Sink:
    """A sink appending each record to the ledger's JSONL truth (origin ``sdk``)."""

    def sink(record: UsageRecord) -> None:
        append_records([record], "sdk", root)

    return sink


class _Call:
    """One observed call: request facts, the response observer, and the single record it produces."""

    def __init__(self, api: Api, body: bytes, sink: Sink, session_id: str | None) -> None:
        self.api = api
        self.info = request_info(body)
        self.sink = sink
        self.session_id = session_id
        self.started_wall = datetime.now(UTC)
        self.started = time.perf_counter()
        self.observer: ResponseObserver | None = None
        self.status: int | None = None
        self.request_id: str | None = None
        self.done = False

    def responded(self, response: Any) -> None:
        self.status = int(response.status_code)
        headers = response.headers
        self.request_id = next((headers.get(h) for h in REQUEST_ID_HEADERS if headers.get(h)), None)
        self.observer = ResponseObserver(self.api, headers.get("content-type"), headers.get("content-encoding"))

    def feed(self, chunk: bytes) -> None:
        if self.observer is not None:
            try:
                self.observer.feed(chunk)
            except Exception:  # observing must never break the caller's stream
                log.exception("ctxops: could not read usage from a response chunk")
                self.observer = None

    def finish(self, error: str | None = None) -> None:
        if self.done:
            return
        self.done = True
        try:
            seen = (self.observer or ResponseObserver(self.api, None, None)).finish()
            if error is None and self.observer is not None and seen.text_size and not seen.stop:
                error = "response closed before the end of the stream"
            record = call_record(
                api=self.api,
                origin="sdk",
                started=self.started_wall,
                latency_ms=(time.perf_counter() - self.started) * 1000,
                status=self.status,
                request=self.info,
                seen=seen,
                request_id=self.request_id,
                session_id=self.session_id,
                error=error,
                started_perf=self.started,
            )
            self.sink(record)
        except Exception:
            log.exception("ctxops: could not record a model call's usage")


def _body(request: Any) -> bytes:
    try:
        content = request.content
    except Exception:  # a streaming request body that was not read: nothing to estimate from
        return b""
    return bytes(content) if content else b""


@cache
def _classes(mod: ModuleType) -> tuple[type, type]:
    """Transport classes built on the SDK's own HTTP module (``httpx`` or ``httpx2``)."""

    class RecordingStream(mod.SyncByteStream):  # type: ignore[misc,name-defined]
        def __init__(self, inner: Any, call: _Call) -> None:
            self.inner, self.call = inner, call

        def __iter__(self) -> Iterator[bytes]:
            try:
                for chunk in self.inner:
                    self.call.feed(chunk)
                    yield chunk
            except Exception as exc:
                self.call.finish(f"upstream closed mid-stream: {type(exc).__name__}")
                raise

        def close(self) -> None:
            try:
                self.inner.close()
            finally:
                self.call.finish()

    class AsyncRecordingStream(mod.AsyncByteStream):  # type: ignore[misc,name-defined]
        def __init__(self, inner: Any, call: _Call) -> None:
            self.inner, self.call = inner, call

        async def __aiter__(self) -> AsyncIterator[bytes]:
            try:
                async for chunk in self.inner:
                    self.call.feed(chunk)
                    yield chunk
            except Exception as exc:
                self.call.finish(f"upstream closed mid-stream: {type(exc).__name__}")
                raise

        async def aclose(self) -> None:
            try:
                await self.inner.aclose()
            finally:
                self.call.finish()

    class RecordingTransport(mod.BaseTransport):  # type: ignore[misc,name-defined]
        def __init__(self, inner: Any, sink: Sink, session_id: str | None = None) -> None:
            self.inner, self.sink, self.session_id = inner, sink, session_id

        def handle_request(self, request: Any) -> Any:
            api = api_of(request.method, request.url.path)
            if api is None:
                return self.inner.handle_request(request)
            call = _Call(api, _body(request), self.sink, self.session_id)
            try:
                response = self.inner.handle_request(request)
            except Exception as exc:
                call.finish(f"upstream unreachable: {type(exc).__name__}")
                raise
            call.responded(response)
            response.stream = RecordingStream(response.stream, call)
            return response

        def close(self) -> None:
            self.inner.close()

        def __enter__(self) -> Any:
            self.inner.__enter__()
            return self

        def __exit__(self, *exc: Any) -> None:
            self.inner.__exit__(*exc)

    class AsyncRecordingTransport(mod.AsyncBaseTransport):  # type: ignore[misc,name-defined]
        def __init__(self, inner: Any, sink: Sink, session_id: str | None = None) -> None:
            self.inner, self.sink, self.session_id = inner, sink, session_id

        async def handle_async_request(self, request: Any) -> Any:
            api = api_of(request.method, request.url.path)
            if api is None:
                return await self.inner.handle_async_request(request)
            call = _Call(api, _body(request), self.sink, self.session_id)
            try:
                response = await self.inner.handle_async_request(request)
            except Exception as exc:
                call.finish(f"upstream unreachable: {type(exc).__name__}")
                raise
            call.responded(response)
            response.stream = AsyncRecordingStream(response.stream, call)
            return response

        async def aclose(self) -> None:
            await self.inner.aclose()

        async def __aenter__(self) -> Any:
            await self.inner.__aenter__()
            return self

        async def __aexit__(self, *exc: Any) -> None:
            await self.inner.__aexit__(*exc)

    return RecordingTransport, AsyncRecordingTransport


def _http_module(obj: Any) -> ModuleType:
    """The HTTP library (``httpx`` or ``httpx2``) an object's class comes from, through subclasses."""
    for cls in type(obj).__mro__:
        top = cls.__module__.split(".")[0]
        module = sys.modules.get(top)
        if module is not None and hasattr(module, "SyncByteStream") and hasattr(module, "BaseTransport"):
            return module
    raise TypeError(f"{type(obj).__name__} is not an httpx-style client or transport")


def recording_transport(inner: Any, *, sink: Sink | None = None, session_id: str | None = None) -> Any:
    """Wrap an ``httpx``/``httpx2`` transport (sync or async) so that model calls through it are recorded."""
    mod = _http_module(inner)
    sync_cls, async_cls = _classes(mod)
    cls = async_cls if isinstance(inner, mod.AsyncBaseTransport) else sync_cls
    return cls(inner, sink or jsonl_sink(), session_id)


def instrument(client: C, *, root: Path | None = None, sink: Sink | None = None, session_id: str | None = None) -> C:
    """Record every model call ``client`` makes; returns the same client (instrumenting twice is a no-op)."""
    http = getattr(client, "_client", None)
    if http is None or not hasattr(http, "_transport"):
        raise TypeError(f"instrument() takes an Anthropic or OpenAI SDK client, not {type(client).__name__}")
    mod = _http_module(http)
    recording = _classes(mod)
    if isinstance(http._transport, recording):
        return client
    chosen = sink or jsonl_sink(root)
    http._transport = recording_transport(http._transport, sink=chosen, session_id=session_id)
    mounts = getattr(http, "_mounts", None)
    if isinstance(mounts, dict):
        for pattern, transport in list(mounts.items()):
            if transport is not None and not isinstance(transport, recording):
                mounts[pattern] = recording_transport(transport, sink=chosen, session_id=session_id)
    return client
