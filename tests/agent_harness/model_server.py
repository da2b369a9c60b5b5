"""A scripted model server on loopback, for driving real agents in tests.

It speaks three wires on one port: Anthropic Messages (`POST /v1/messages`, Claude Code), OpenAI Responses
(`POST /v1/responses`, Codex CLI) and Gemini (`POST /v1beta/models/M:generateContent` and
`:streamGenerateContent?alt=sse`, Gemini CLI).
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from . import gemini_wire, responses_wire
from .anthropic_wire import OutgoingMessage, encode_sse
from .conversations import Routed, Router, new_id
from .scenario import Scenario, Text, ToolUse, Turn, Usage
from .turn_script import TurnScript

# Never logged: whatever could carry a credential.
SECRET_HEADERS = frozenset({"x-api-key", "authorization", "proxy-authorization", "cookie"})


class ScriptedModelServer:
    """Answers the model requests of a real agent from a `Scenario`; logs every request and response.

    Use as a context manager; `.url` is the base URL to give Claude Code as ANTHROPIC_BASE_URL (Codex:
    `.url + "/v1"` as a provider's `base_url`; Gemini CLI: `.url` as GOOGLE_GEMINI_BASE_URL).
    `.log` holds dicts with `"kind": "request" | "response"`; `log_path` mirrors it as JSONL. Response
    entries carry `"wire"` ("anthropic", "openai-responses" or "gemini") and the usage in that wire's shape.
    """

    def __init__(
        self,
        scenario: Scenario | None = None,
        *,
        seed: int = 0,
        port: int = 0,
        log_path: Path | str | None = None,
    ) -> None:
        self.router = Router(scenario or Scenario(), seed)
        self.seed = seed
        self.turn_script = TurnScript(scenario or Scenario(), seed)  # the OpenAI and Gemini wires
        self.log: list[dict[str, Any]] = []
        self.log_path = Path(log_path) if log_path is not None else None
        self._log_lock = threading.Lock()
        self._seq = 0
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------------

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ScriptedModelServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="scripted-model", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- scripting and inspection ------------------------------------------------------------------

    def set_scenario(self, scenario: Scenario) -> None:
        """Script the main conversation of the next run (e.g. a resumed session)."""
        self.router.set_scenario(scenario)
        self.turn_script = TurnScript(scenario, self.seed)

    def responses(self, role: str | None = None) -> list[dict[str, Any]]:
        """Logged model responses, optionally only those of role main / subagent / aux."""
        with self._log_lock:
            return [e for e in self.log if e["kind"] == "response" and (role is None or e["role"] == role)]

    def requests(self) -> list[dict[str, Any]]:
        with self._log_lock:
            return [e for e in self.log if e["kind"] == "request"]

    def unknown_paths(self) -> list[str]:
        with self._log_lock:
            return [e["path"] for e in self.log if e["kind"] == "request" and e.get("unknown")]

    # -- internals used by the handler ---------------------------------------------------------------

    def _record(self, entry: dict[str, Any]) -> None:
        with self._log_lock:
            self.log.append(entry)
            if self.log_path is not None:
                with self.log_path.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps(entry, sort_keys=True) + "\n")

    def _next_seq(self) -> int:
        with self._log_lock:
            self._seq += 1
            return self._seq


def _handler_for(server: ScriptedModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(_Handler):
        owner = server

    return Handler


class _Handler(BaseHTTPRequestHandler):
    owner: ScriptedModelServer
    protocol_version = "HTTP/1.1"  # keep-alive and chunked streams, like the real API

    def log_message(self, format: str, *args: Any) -> None:  # the server's own log is enough
        return

    # -- request plumbing ---------------------------------------------------------------------------

    def _read_body(self) -> bytes:
        if self.headers.get("transfer-encoding", "").lower() == "chunked":
            parts: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length else b""

    def _log_request(self, seq: int, body: Any, unknown: bool) -> None:
        headers = {k.lower(): v for k, v in self.headers.items() if k.lower() not in SECRET_HEADERS}
        entry = {"kind": "request", "seq": seq, "time": time.time(), "method": self.command, "path": self.path}
        entry |= {"headers": headers, "body": body, "unknown": unknown}
        self.owner._record(entry)

    def _send_json(self, status: int, payload: dict[str, Any], request_id: str) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", request_id)
        self.send_header("x-request-id", request_id)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _dispatch(self) -> None:
        seq = self.owner._next_seq()
        request_id = new_id("req_")
        raw = self._read_body()
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        path = self.path.split("?", 1)[0].rstrip("/")
        if path == "/api/hello":  # Claude Code's connectivity probe (HEAD) when non-essential traffic is on
            self._log_request(seq, body, unknown=False)
            self._send_json(200, {"message": "hello"}, request_id)
            return
        if self.command == "POST" and path.endswith("/v1/responses") and isinstance(body, dict):
            self._log_request(seq, body, unknown=False)
            self._responses(seq, request_id, body)
            return
        gemini = gemini_wire.parse_path(self.path) if self.command == "POST" else None
        if gemini is not None and isinstance(body, dict):
            self._log_request(seq, body, unknown=False)
            self._gemini(seq, request_id, body, *gemini)
            return
        known = self.command == "POST" and path in ("/v1/messages", "/v1/messages/count_tokens")
        self._log_request(seq, body, unknown=not known)
        if not known:
            # Unknown endpoints (seen only with non-essential traffic enabled): log them, answer an
            # Anthropic-shaped 404 so the client takes its "feature unavailable" path.
            error = {"type": "not_found_error", "message": f"scripted server: no {self.command} {path}"}
            self._send_json(404, {"type": "error", "error": error}, request_id)
            return
        if not isinstance(body, dict):
            error = {"type": "invalid_request_error", "message": "request body must be a JSON object"}
            self._send_json(400, {"type": "error", "error": error}, request_id)
            return
        if path.endswith("/count_tokens"):
            # A rough, deterministic estimate: ~4 characters a token, like the client's own fallback.
            estimate = max(1, len(json.dumps(body.get("messages", []))) // 4)
            self._send_json(200, {"input_tokens": estimate}, request_id)
            return
        routed = self.owner.router.route(body)
        stream = bool(body.get("stream"))
        self._log_response(seq, request_id, routed, stream)
        if stream:
            self._send_stream(routed.message, request_id)
        else:
            self._send_json(200, routed.message.as_json(), request_id)

    def _log_response(self, seq: int, request_id: str, routed: Routed, stream: bool) -> None:
        message = routed.message
        entry = {"kind": "response", "seq": seq, "time": time.time(), "request_id": request_id, "wire": "anthropic"}
        entry |= {"message_id": message.message_id, "model": message.model, "usage": message.usage.full_dict()}
        entry |= {"stop_reason": message.stop_reason, "role": routed.role, "thread": routed.thread}
        entry |= {"turn_index": routed.turn_index, "stream": stream, "note": routed.note}
        entry["tool_use_ids"] = [i for _, i in message.blocks if i is not None]
        self.owner._record(entry)

    def _send_stream(self, message: OutgoingMessage, request_id: str) -> None:
        self._send_chunks([encode_sse(event, data) for event, data in message.sse_events()], request_id)

    def _send_chunks(self, chunks: list[bytes], request_id: str) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("request-id", request_id)
        self.send_header("x-request-id", request_id)
        self.end_headers()
        for chunk in chunks:
            self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    # -- OpenAI Responses (Codex CLI) ----------------------------------------------------------------

    def _responses(self, seq: int, request_id: str, body: dict[str, Any]) -> None:
        def build(scripted: Turn, usage: Usage) -> responses_wire.OutgoingResponse:
            blocks = tuple(
                (block, new_id("call_") if isinstance(block, ToolUse) else new_id("msg_")) for block in scripted.blocks
            )
            model = scripted.model or str(body.get("model", "unknown"))
            return responses_wire.OutgoingResponse(new_id("resp_"), model, blocks, usage)

        answer = self.owner.turn_script.answer(responses_wire.input_items(body), build, body)
        response = answer.message
        entry = {"kind": "response", "seq": seq, "time": time.time(), "request_id": request_id}
        entry |= {"wire": "openai-responses", "message_id": response.response_id, "model": response.model}
        entry |= {"usage": responses_wire.openai_usage(response.usage), "role": "main", "thread": "main"}
        entry |= {"turn_index": answer.turn_index, "stream": bool(body.get("stream"))}
        entry |= {"note": "retry" if answer.retry else None, "tool_use_ids": response.call_ids()}
        self.owner._record(entry)
        if body.get("stream"):
            self._send_chunks([responses_wire.encode_sse(e) for e in response.sse_events()], request_id)
        else:
            self._send_json(200, response.as_json(), request_id)

    # -- Gemini (Gemini CLI) -------------------------------------------------------------------------

    def _gemini(self, seq: int, request_id: str, body: dict[str, Any], model: str, method: str) -> None:
        if method == gemini_wire.COUNT:
            estimate = max(1, len(json.dumps(body.get("contents", []))) // 4)
            self._send_json(200, {"totalTokens": estimate}, request_id)
            return
        config = body.get("generationConfig") or {}
        schema = config.get("responseJsonSchema") or config.get("responseSchema")
        helper = not gemini_wire.declared_tools(body) or config.get("responseMimeType") == "application/json"
        if helper:  # routing, next-speaker and similar helper calls: never consume the script
            reply = json.dumps(gemini_wire.schema_example(schema)) if schema is not None else "OK."
            usage = Usage(max(1, len(json.dumps(body)) // 40), 12)
            candidate = gemini_wire.OutgoingCandidate(new_id("resp_"), model, ((Text(reply), None),), usage)
            role, index, note = "aux", None, None
        else:

            def build(scripted: Turn, usage: Usage) -> gemini_wire.OutgoingCandidate:
                blocks = tuple(
                    (block, new_id("call_") if isinstance(block, ToolUse) else None) for block in scripted.blocks
                )
                return gemini_wire.OutgoingCandidate(new_id("resp_"), scripted.model or model, blocks, usage)

            answer = self.owner.turn_script.answer(body.get("contents"), build, body)
            candidate, role, index = answer.message, "main", answer.turn_index
            note = "retry" if answer.retry else None
        stream = method == gemini_wire.STREAM
        entry = {"kind": "response", "seq": seq, "time": time.time(), "request_id": request_id, "wire": "gemini"}
        entry |= {"message_id": candidate.response_id, "model": candidate.model, "role": role, "thread": role}
        entry |= {"usage": gemini_wire.gemini_usage(candidate.usage), "turn_index": index, "stream": stream}
        entry |= {"note": note, "tool_use_ids": candidate.call_ids()}
        self.owner._record(entry)
        if stream:
            self._send_chunks([gemini_wire.encode_sse(c) for c in candidate.sse_chunks()], request_id)
        else:
            self._send_json(200, candidate.as_json(), request_id)

    do_POST = _dispatch
    do_GET = _dispatch
    do_HEAD = _dispatch
    do_PUT = _dispatch
    do_DELETE = _dispatch
