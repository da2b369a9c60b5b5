"""Fixtures: a temporary ledger directory and a small purpose-built model upstream on loopback.

The upstream speaks just enough of the Anthropic Messages and OpenAI chat/responses wire formats to
exercise the proxy and the SDK wrapper, including misbehaviour (a stream cut mid-way, slow streams, errors).
Every response it sends is logged with the usage it reported.
"""

from __future__ import annotations

import asyncio
import gzip
import itertools
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web


@pytest.fixture
def data_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "ledger"
    monkeypatch.setenv("CTXOPS_DATA_DIR", str(root))
    return root


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


@dataclass
class Upstream:
    url: str = ""
    sent: list[dict[str, Any]] = field(default_factory=list)
    seen_headers: list[dict[str, str]] = field(default_factory=list)
    counter: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def usage_for(self, n: int) -> dict[str, Any]:
        write = 100 * n
        return {
            "input_tokens": 10 + n,
            "cache_creation_input_tokens": write,
            "cache_read_input_tokens": 1000 * n,
            "cache_creation": {"ephemeral_5m_input_tokens": write - 30, "ephemeral_1h_input_tokens": 30},
            "output_tokens": 1,
        }

    async def messages(self, request: web.Request) -> web.StreamResponse:
        self.seen_headers.append(dict(request.headers))
        body = await request.json()
        n = next(self.counter)
        model = body.get("model", "claude-test")
        message_id, request_id = f"msg_{n:04d}", f"req_{n:04d}"
        usage = self.usage_for(n)
        final_output = 7 * n
        headers = {"request-id": request_id}
        if model == "overloaded":
            self.sent.append({"request_id": request_id, "status": 529})
            return web.json_response(
                {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
                status=529,
                headers=headers,
            )
        if not body.get("stream"):
            payload = {
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [{"type": "text", "text": "Hello there."}],
                "stop_reason": "end_turn",
                "usage": {**usage, "output_tokens": final_output},
            }
            self.sent.append({"request_id": request_id, "message_id": message_id, "usage": payload["usage"]})
            raw = json.dumps(payload).encode()
            if "gzip" in request.headers.get("Accept-Encoding", "") and model == "gzip":
                return web.Response(
                    body=gzip.compress(raw),
                    headers={**headers, "Content-Encoding": "gzip", "Content-Type": "application/json"},
                )
            return web.Response(body=raw, headers={**headers, "Content-Type": "application/json"})
        response = web.StreamResponse(headers={**headers, "Content-Type": "text/event-stream"})
        await response.prepare(request)
        raw = bytearray()

        async def send(data: bytes) -> None:
            raw.extend(data)
            await response.write(data)

        start = {
            "type": "message_start",
            "message": {
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "usage": usage,
            },
        }
        await send(_sse("message_start", start))
        await send(
            _sse(
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            )
        )
        words = ["The ", "order ", "total ", "is ", "wrong ", "because ", "of ", "rounding."] * (
            8 if model == "slow" else 1
        )
        for i, word in enumerate(words):
            await send(
                _sse(
                    "content_block_delta",
                    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": word}},
                )
            )
            if model == "close-mid-stream" and i == 2:
                self.sent.append({"request_id": request_id, "message_id": message_id, "usage": usage, "cut": True})
                assert request.transport is not None
                request.transport.abort()
                return response
            if model == "slow":
                await asyncio.sleep(0.02)
        await send(_sse("content_block_stop", {"type": "content_block_stop", "index": 0}))
        await send(
            _sse(
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "end_turn"},
                    "usage": {"output_tokens": final_output},
                },
            )
        )
        await send(_sse("message_stop", {"type": "message_stop"}))
        self.sent.append(
            {
                "request_id": request_id,
                "message_id": message_id,
                "usage": {**usage, "output_tokens": final_output},
                "raw": bytes(raw),
            }
        )
        await response.write_eof()
        return response

    async def chat(self, request: web.Request) -> web.StreamResponse:
        self.seen_headers.append(dict(request.headers))
        body = await request.json()
        n = next(self.counter)
        request_id = f"req_{n:04d}"
        usage = {
            "prompt_tokens": 500 + n,
            "completion_tokens": 20 + n,
            "total_tokens": 520 + 2 * n,
            "prompt_tokens_details": {"cached_tokens": 256},
            "completion_tokens_details": {"reasoning_tokens": 4},
        }
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        chat_id = f"chatcmpl-{n}"
        if not body.get("stream"):
            payload = {
                "id": chat_id,
                "object": "chat.completion",
                "created": 1,
                "model": body["model"],
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi!"}, "finish_reason": "stop"}],
                "usage": usage,
            }
            self.sent.append({"request_id": request_id, "usage": usage})
            return web.json_response(payload, headers={"x-request-id": request_id})
        response = web.StreamResponse(headers={"x-request-id": request_id, "Content-Type": "text/event-stream"})
        await response.prepare(request)
        for word in ["Hello", " from", " the", " model", "."]:
            chunk = {
                "id": chat_id,
                "object": "chat.completion.chunk",
                "created": 1,
                "model": body["model"],
                "choices": [{"index": 0, "delta": {"content": word}, "finish_reason": None}],
            }
            await response.write(f"data: {json.dumps(chunk)}\n\n".encode())
        if include_usage:
            chunk = {
                "id": chat_id,
                "object": "chat.completion.chunk",
                "created": 1,
                "model": body["model"],
                "choices": [],
                "usage": usage,
            }
            await response.write(f"data: {json.dumps(chunk)}\n\n".encode())
        await response.write(b"data: [DONE]\n\n")
        self.sent.append({"request_id": request_id, "usage": usage if include_usage else None})
        await response.write_eof()
        return response

    async def responses(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        n = next(self.counter)
        request_id = f"req_{n:04d}"
        usage = {
            "input_tokens": 800 + n,
            "input_tokens_details": {"cached_tokens": 512},
            "output_tokens": 40 + n,
            "output_tokens_details": {"reasoning_tokens": 16},
            "total_tokens": 840 + 2 * n,
        }
        resp_id = f"resp_{n}"
        response = web.StreamResponse(headers={"x-request-id": request_id, "Content-Type": "text/event-stream"})
        await response.prepare(request)
        base = {"id": resp_id, "object": "response", "model": body["model"], "status": "in_progress", "output": []}
        await response.write(
            _sse("response.created", {"type": "response.created", "sequence_number": 0, "response": base})
        )
        await response.write(
            _sse(
                "response.output_text.delta",
                {
                    "type": "response.output_text.delta",
                    "sequence_number": 1,
                    "item_id": "m1",
                    "output_index": 0,
                    "content_index": 0,
                    "delta": "Done.",
                },
            )
        )
        done = {**base, "status": "completed", "usage": usage}
        await response.write(
            _sse("response.completed", {"type": "response.completed", "sequence_number": 2, "response": done})
        )
        self.sent.append({"request_id": request_id, "usage": usage})
        await response.write_eof()
        return response

    async def models(self, request: web.Request) -> web.Response:
        return web.json_response({"data": [{"id": "claude-test"}]})


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    """The purpose-built upstream, served on 127.0.0.1 from a background thread."""
    state = Upstream()
    app = web.Application()
    app.router.add_post("/v1/messages", state.messages)
    app.router.add_post("/v1/chat/completions", state.chat)
    app.router.add_post("/v1/responses", state.responses)
    app.router.add_get("/v1/models", state.models)
    loop = asyncio.new_event_loop()
    # A short graceful shutdown: aiohttp 3.10.0 (the lowest-direct pin) can wait the full default 60 s
    # for a handler whose client already went away (seen once in ~30 runs of the mid-stream disconnect test).
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=2)
    ready = threading.Event()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(runner.setup())
        site = web.TCPSite(runner, "127.0.0.1", 0)
        loop.run_until_complete(site.start())
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        state.url = f"http://127.0.0.1:{port}"
        ready.set()
        loop.run_forever()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert ready.wait(10)
    yield state
    asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(10)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(10)
