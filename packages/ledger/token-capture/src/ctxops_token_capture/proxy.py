"""A recording proxy between an agent and its provider (Anthropic Messages, OpenAI chat/responses, Gemini
``generateContent``/``streamGenerateContent``).

It binds to loopback only, forwards requests and streams responses back chunk by chunk as they arrive
(bytes untouched), reads usage from them on the side, and appends one UsageRecord per model call to the
JSONL truth after the response has been delivered. Credentials pass through in headers and are never
stored or logged; only the method, path (without query) and status are ever printed.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit, urlunsplit

from aiohttp import ClientError, ClientSession, ClientTimeout, TCPConnector, web

from .jsonl_store import append_records
from .paths import data_dir
from .recording import call_record
from .wire import Api, ResponseObserver, api_of, request_info

HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "trailers",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
    }
)
READABLE_ENCODINGS = ("gzip", "deflate", "identity")
SESSION_HEADERS = ("x-claude-code-session-id", "x-session-id")
REQUEST_ID_HEADERS = ("request-id", "x-request-id", "openai-request-id")


@dataclass(frozen=True)
class ProxyConfig:
    upstream: str  # scheme://host[:port][/base path], without credentials or query
    host: str = "127.0.0.1"
    port: int = 8787
    root: Path | None = None

    @classmethod
    def create(
        cls, upstream: str, *, host: str = "127.0.0.1", port: int = 8787, root: Path | None = None
    ) -> ProxyConfig:
        parts = urlsplit(upstream)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"--upstream must be an http(s) URL such as https://api.anthropic.com, got {upstream!r}")
        if parts.username or parts.password or parts.query:
            raise ValueError("--upstream must not carry credentials or a query string (send keys in headers)")
        if not _is_loopback(host):
            raise ValueError(f"the proxy binds to loopback only (127.0.0.1, ::1, localhost); refusing {host!r}")
        if not 0 <= port <= 65535:
            raise ValueError(f"--port must be 0..65535, got {port}")
        base = urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))
        return cls(upstream=base, host=host, port=port, root=root)

    @property
    def display_upstream(self) -> str:
        parts = urlsplit(self.upstream)
        return f"{parts.scheme}://{parts.hostname}{f':{parts.port}' if parts.port else ''}"


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _forward_headers(headers: Any) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in headers.items():
        lower = name.lower()
        if lower in HOP_BY_HOP:
            continue
        if lower == "accept-encoding":
            # Keep the response readable for usage while staying compressed where the client allows it.
            allowed = [e.strip() for e in value.split(",") if e.split(";")[0].strip().lower() in READABLE_ENCODINGS]
            if allowed:
                out[name] = ", ".join(allowed)
            continue
        out[name] = value
    return out


def _first_header(headers: Any, names: tuple[str, ...]) -> str | None:
    for name in names:
        value = headers.get(name)
        if value:
            return str(value)
    return None


Recorder = Callable[[Any], None]


@dataclass(frozen=True)
class Refusal:
    """Why a call is not sent upstream: the one line the agent shows, and when it may succeed (seconds; None:
    not by waiting)."""

    message: str
    retry_in_s: float | None = None


class Gate(Protocol):
    """Decides whether a model call may go upstream (budgets, ``ctxops_ledger_report.proxy_budget``).

    Both methods run on the event loop and must not block: the decision is made from what is in memory."""

    def refusal(self, api: Api, session_id: str | None) -> Refusal | None:
        """None to let the call through, else why not."""

    def charge(self, record: Any) -> None:
        """A call went through: count what it cost (the record the ledger gets)."""


BUDGET_ERROR_TYPE = "budget_exceeded"


# Gemini CLI waits and retries a quota error whose message says "Please retry in Ns" for N up to 300 s, and shows
# it and stops above that (0.61: classifyGoogleError); a refusal says at least this, so it is never waited on.
GEMINI_TERMINAL_RETRY_S = 301


def refusal_response(api: Api, refusal: Refusal) -> web.Response:
    """A refused call, shaped as the route's provider shapes its own quota errors, so the agent shows the message
    and does not retry: HTTP 429 with ``x-should-retry: false`` (the Anthropic and OpenAI SDKs and Claude Code
    honour it), the body of Anthropic's ``rate_limit_error``, OpenAI's ``insufficient_quota`` (not retried by its
    clients) or Google's ``RESOURCE_EXHAUSTED`` whose message says when to retry (past Gemini CLI's longest
    wait: it shows the message and stops)."""
    message = refusal.message
    body: dict[str, Any]
    if api == "anthropic":
        body = {"type": "error", "error": {"type": "rate_limit_error", "message": message}}
    elif api in ("openai-chat", "openai-responses"):
        body = {
            "error": {"message": message, "type": "insufficient_quota", "param": None, "code": "insufficient_quota"}
        }
    else:
        wait = max(GEMINI_TERMINAL_RETRY_S, round(refusal.retry_in_s or 0))
        message = f"{message}. Please retry in {wait}s."
        body = {"error": {"code": 429, "message": message, "status": "RESOURCE_EXHAUSTED"}}
    return web.json_response(body, status=429, headers={"x-should-retry": "false"})


class Proxy:
    """The aiohttp application and its upstream client session."""

    def __init__(self, config: ProxyConfig, recorder: Recorder | None = None, gate: Gate | None = None) -> None:
        self.config = config
        self.root = config.root or data_dir()
        self.recorder = recorder or self._append
        self.gate = gate
        self.session: ClientSession | None = None
        self.pending: set[asyncio.Future[Any]] = set()
        self.calls = 0

    def _append(self, record: Any) -> None:
        append_records([record], "proxy", self.root)

    def app(self) -> web.Application:
        app = web.Application(client_max_size=256 << 20, handler_args={"max_field_size": 65536})
        app.router.add_route("*", "/{tail:.*}", self.handle)
        app.on_startup.append(self._startup)
        app.on_cleanup.append(self._cleanup)
        return app

    async def _startup(self, _app: web.Application) -> None:
        self.session = ClientSession(
            connector=TCPConnector(limit=0, ttl_dns_cache=300),
            timeout=ClientTimeout(total=None, sock_connect=30),
            auto_decompress=False,
            skip_auto_headers=("User-Agent", "Accept-Encoding", "Content-Type"),
        )

    async def _cleanup(self, _app: web.Application) -> None:
        if self.pending:
            await asyncio.gather(*self.pending, return_exceptions=True)
        if self.session is not None:
            await self.session.close()

    def _record_unanswered(
        self, api: Any, info: Any, *, started_wall: Any, started: float, status: int, session_id: Any, error: str
    ) -> None:
        """Record a call the provider never answered (refused by a budget, upstream unreachable)."""
        self._record_later(
            call_record(
                api=api,
                origin="proxy",
                started=started_wall,
                latency_ms=(time.perf_counter() - started) * 1000,
                status=status,
                request=info,
                seen=ResponseObserver(api, None, None).finish(),
                request_id=None,
                session_id=session_id,
                error=error,
            )
        )

    def _record_later(self, record: Any) -> None:
        """Append off the event loop, after the client already has its response."""
        if self.gate is not None:
            self.gate.charge(record)
        future = asyncio.get_running_loop().run_in_executor(None, self.recorder, record)
        self.pending.add(future)
        future.add_done_callback(self.pending.discard)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        started_wall = datetime.now(UTC)
        started = time.perf_counter()
        body = await request.read()
        api = api_of(request.method, request.path)
        info = request_info(body, request.path) if api else None
        if api and self.gate is not None:
            session_id = _first_header(request.headers, SESSION_HEADERS)
            refusal = self.gate.refusal(api, session_id)
            if refusal is not None:
                if info is not None:
                    self._record_unanswered(
                        api,
                        info,
                        started_wall=started_wall,
                        started=started,
                        status=429,
                        session_id=session_id,
                        error=f"{BUDGET_ERROR_TYPE}: {refusal.message}",
                    )
                return refusal_response(api, refusal)
        target = self.config.upstream + request.path_qs
        assert self.session is not None
        try:
            upstream = await self.session.request(
                request.method,
                target,
                headers=_forward_headers(request.headers),
                data=body or None,
                allow_redirects=False,
            )
        except (TimeoutError, ClientError, OSError) as exc:
            message = f"upstream unreachable: {type(exc).__name__}"
            if api and info is not None:
                session_id = _first_header(request.headers, SESSION_HEADERS)
                self._record_unanswered(
                    api,
                    info,
                    started_wall=started_wall,
                    started=started,
                    status=502,
                    session_id=session_id,
                    error=message,
                )
            return web.json_response(
                {"type": "error", "error": {"type": "proxy_upstream_error", "message": message}}, status=502
            )
        response = web.StreamResponse(status=upstream.status, reason=upstream.reason)
        for name, value in upstream.headers.items():
            if name.lower() not in HOP_BY_HOP or name.lower() == "content-length":
                response.headers.add(name, value)
        observer = (
            ResponseObserver(api, upstream.headers.get("Content-Type"), upstream.headers.get("Content-Encoding"))
            if api
            else None
        )
        error: str | None = None
        try:
            await response.prepare(request)
            async for chunk in upstream.content.iter_any():
                if observer is not None:
                    observer.feed(chunk)
                try:
                    await response.write(chunk)
                except (ConnectionError, RuntimeError) as exc:
                    error = f"client disconnected mid-stream: {type(exc).__name__}"
                    break
        except (TimeoutError, ClientError) as exc:
            error = f"upstream closed mid-stream: {type(exc).__name__}"
        else:
            if error is None and observer is not None and observer.sse and not observer.observed.stop:
                # A close-delimited stream that ends before its terminal event looks complete on the wire.
                error = "incomplete stream: ended before its terminal event (message_stop, [DONE], response.completed)"
        finally:
            upstream.release() if error is None else upstream.close()
        if error is None:
            with contextlib.suppress(ConnectionError, RuntimeError):
                await response.write_eof()
        elif request.transport is not None:
            # The client must not take a cut-off stream for a complete one: drop the connection.
            request.transport.abort()
        latency_ms = (time.perf_counter() - started) * 1000
        if api and info is not None and observer is not None:
            self.calls += 1
            self._record_later(
                call_record(
                    api=api,
                    origin="proxy",
                    started=started_wall,
                    latency_ms=latency_ms,
                    status=None if error and error.startswith("incomplete") else upstream.status,
                    request=info,
                    seen=observer.finish(),
                    request_id=_first_header(upstream.headers, REQUEST_ID_HEADERS),
                    session_id=_first_header(request.headers, SESSION_HEADERS),
                    error=error,
                    started_perf=started,
                )
            )
        return response


async def serve(
    config: ProxyConfig,
    ready: Callable[[int], None] | None = None,
    stop: asyncio.Event | None = None,
    gate: Gate | None = None,
) -> None:
    """Run the proxy until ``stop`` is set (or SIGINT/SIGTERM); ``ready`` gets the bound port."""
    proxy = Proxy(config, gate=gate)
    runner = web.AppRunner(proxy.app(), access_log=None, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, config.host, config.port, reuse_address=True)
    await site.start()
    server = getattr(site, "_server", None)
    sockets = getattr(server, "sockets", None) or []
    port = sockets[0].getsockname()[1] if sockets else config.port
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    if ready is not None:
        ready(port)
    try:
        await stop.wait()
    finally:
        await runner.cleanup()


def run_proxy(config: ProxyConfig, ready: Callable[[int], None] | None = None, gate: Gate | None = None) -> None:
    """Blocking entry point for the command line: serve until SIGINT/SIGTERM; ``OSError`` if it cannot bind."""
    asyncio.run(serve(config, ready, gate=gate))
