"""Median latency the token-capture proxy adds per request on loopback (target < 5 ms).

    uv run python bench/proxy_latency.py [--requests 400]

A small upstream streams an Anthropic-style SSE response (message_start, 8 deltas, message_delta,
message_stop). The same keep-alive client alternates requests straight to it and through the proxy;
the figure is the difference of the medians of full-response times.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import httpx
from aiohttp import web
from ctxops_token_capture.proxy import ProxyConfig, serve


def _sse(data: dict[str, object]) -> bytes:
    return f"event: {data['type']}\ndata: {json.dumps(data)}\n\n".encode()


async def messages(request: web.Request) -> web.StreamResponse:
    await request.read()
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "request-id": "req_1"})
    await response.prepare(request)
    usage = {"input_tokens": 12, "cache_read_input_tokens": 4000, "cache_creation_input_tokens": 0, "output_tokens": 1}
    await response.write(_sse({"type": "message_start", "message": {"id": "msg_1", "model": "m", "usage": usage}}))
    for word in ["The ", "order ", "total ", "is ", "wrong ", "because ", "of ", "rounding."]:
        await response.write(
            _sse({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": word}})
        )
    await response.write(_sse({"type": "message_delta", "delta": {}, "usage": {"output_tokens": 9}}))
    await response.write(_sse({"type": "message_stop"}))
    await response.write_eof()
    return response


def start_in_thread(
    coro_factory: Callable[[], Coroutine[Any, Any, None]],
) -> tuple[asyncio.AbstractEventLoop, threading.Thread]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(
        target=lambda: (asyncio.set_event_loop(loop), loop.run_until_complete(coro_factory())), daemon=True
    )
    thread.start()
    return loop, thread


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=400)
    args = parser.parse_args()
    ports: dict[str, int] = {}
    ready = threading.Event()
    stop_upstream = threading.Event()

    async def upstream() -> None:
        app = web.Application()
        app.router.add_post("/v1/messages", messages)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        ports["upstream"] = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        ready.set()
        while not stop_upstream.is_set():
            await asyncio.sleep(0.05)
        await runner.cleanup()

    start_in_thread(upstream)
    ready.wait(10)
    root = Path(tempfile.mkdtemp(prefix="ctxops-bench-proxy-"))
    config = ProxyConfig.create(f"http://127.0.0.1:{ports['upstream']}", port=0, root=root)
    proxy_ready = threading.Event()
    stop_box: list[asyncio.Event] = []

    async def proxy() -> None:
        stop = asyncio.Event()
        stop_box.append(stop)
        await serve(config, lambda port: (ports.__setitem__("proxy", port), proxy_ready.set()), stop)

    proxy_loop, proxy_thread = start_in_thread(proxy)
    proxy_ready.wait(10)
    body = {"model": "m", "max_tokens": 64, "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    headers = {"x-api-key": "sk-bench", "anthropic-version": "2023-06-01"}
    direct_ms: list[float] = []
    proxied_ms: list[float] = []
    with httpx.Client() as client:
        targets = [
            (f"http://127.0.0.1:{ports['upstream']}/v1/messages", direct_ms),
            (f"http://127.0.0.1:{ports['proxy']}/v1/messages", proxied_ms),
        ]
        for i in range(args.requests + 20):
            for url, sink in targets if i % 2 else reversed(targets):
                started = time.perf_counter()
                with client.stream("POST", url, json=body, headers=headers) as response:
                    for _ in response.iter_raw():
                        pass
                if i >= 20:  # warm-up
                    sink.append((time.perf_counter() - started) * 1000)
    proxy_loop.call_soon_threadsafe(stop_box[0].set)
    proxy_thread.join(10)
    stop_upstream.set()
    recorded = sum(1 for p in (root / "usage").glob("proxy-*.jsonl") for _ in p.open())
    shutil.rmtree(root, ignore_errors=True)
    direct, proxied = statistics.median(direct_ms), statistics.median(proxied_ms)
    q = lambda xs: statistics.quantiles(xs, n=10)[-1]  # noqa: E731
    print(f"requests per path          : {len(direct_ms)}")
    print(f"direct  median / p90       : {direct:6.2f} / {q(direct_ms):6.2f} ms")
    print(f"proxied median / p90       : {proxied:6.2f} / {q(proxied_ms):6.2f} ms")
    print(f"added median latency       : {proxied - direct:6.2f} ms  (target < 5 ms)")
    print(f"records written by proxy   : {recorded}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
