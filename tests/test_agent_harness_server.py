"""The scripted model server speaks Anthropic's wire format, routes conversations, and survives a proxy."""

from __future__ import annotations

import http.client
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from agent_harness import Scenario, ScriptedModelServer, Usage, subagent, tool_use, turn

TOOLS = [{"name": "Agent", "input_schema": {}}, {"name": "Read", "input_schema": {}}]


def _post(url: str, path: str, body: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=10)
    conn.request("POST", path, json.dumps(body), {"content-type": "application/json", "x-api-key": "sk-secret"})
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, data


def _events(data: bytes) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for frame in data.decode().split("\n\n"):
        if frame.strip():
            lines = dict(line.split(": ", 1) for line in frame.splitlines())
            out.append((lines["event"], json.loads(lines["data"])))
    return out


def _request(
    messages: list[dict[str, Any]], stream: bool = True, tools: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    return {
        "model": "claude-test-1",
        "max_tokens": 1000,
        "stream": stream,
        "tools": TOOLS if tools is None else tools,
        "messages": messages,
    }


def _assemble(events: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """Rebuild the message from the stream the way the SDK does."""
    message = dict(events[0][1]["message"])
    blocks: list[dict[str, Any]] = []
    partial: dict[int, str] = {}
    for name, data in events[1:]:
        if name == "content_block_start":
            blocks.append(dict(data["content_block"]))
        elif name == "content_block_delta":
            delta = data["delta"]
            if delta["type"] == "text_delta":
                blocks[data["index"]]["text"] += delta["text"]
            else:
                partial[data["index"]] = partial.get(data["index"], "") + delta["partial_json"]
        elif name == "content_block_stop" and data["index"] in partial:
            blocks[data["index"]]["input"] = json.loads(partial[data["index"]])
        elif name == "message_delta":
            message["stop_reason"] = data["delta"]["stop_reason"]
            message["usage"] = {**message["usage"], **data["usage"]}
    message["content"] = blocks
    return message


def test_stream_follows_the_anthropic_event_order_and_script() -> None:
    usage = Usage(10, 20, cache_creation_5m=30, cache_creation_1h=40, cache_read_input_tokens=50)
    scenario = Scenario([turn("reading", tool_use("Read", {"file_path": "/x"}), usage=usage), turn("done")])
    with ScriptedModelServer(scenario) as server:
        status, headers, data = _post(
            server.url, "/v1/messages?beta=true", _request([{"role": "user", "content": "hi"}])
        )
        assert status == 200 and headers["content-type"].startswith("text/event-stream")
        assert headers["request-id"] == headers["x-request-id"] and headers["request-id"].startswith("req_")
        events = _events(data)
        names = [n for n, _ in events]
        assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
        message = _assemble(events)
        assert message["id"].startswith("msg_") and message["model"] == "claude-test-1"
        assert message["stop_reason"] == "tool_use"
        assert message["content"][0] == {"type": "text", "text": "reading"}
        tool = message["content"][1]
        assert tool["name"] == "Read" and tool["input"] == {"file_path": "/x"}
        assert message["usage"]["output_tokens"] == 20 and message["usage"]["cache_read_input_tokens"] == 50
        assert events[0][1]["message"]["usage"]["cache_creation"] == {
            "ephemeral_5m_input_tokens": 30,
            "ephemeral_1h_input_tokens": 40,
        }

        history = [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": message["content"]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool["id"], "content": "x"}]},
        ]
        status, _, data = _post(server.url, "/v1/messages", _request(history, stream=False))
        body = json.loads(data)
        assert body["content"] == [{"type": "text", "text": "done"}] and body["stop_reason"] == "end_turn"
        # a retried request gets the same answer and does not consume the script
        _, _, again = _post(server.url, "/v1/messages", _request(history, stream=False))
        assert json.loads(again)["id"] == body["id"]

        logged = server.responses("main")
        assert [r["turn_index"] for r in logged] == [0, 1, None] and logged[2]["note"] == "retry"
        assert logged[0]["request_id"] == headers["request-id"] and logged[0]["message_id"] == message["id"]
        assert all("x-api-key" not in r["headers"] for r in server.requests())


def test_aux_subagent_compaction_and_exhausted_script_are_told_apart() -> None:
    scenario = Scenario(
        [turn(subagent("Do the sub task.", [turn("sub result")])), turn("main done")], final_text="nothing more"
    )
    with ScriptedModelServer(scenario, seed=5) as server:
        _post(server.url, "/v1/messages", _request([{"role": "user", "content": "go"}], stream=False))
        # a title-generation style call: no tools
        _, _, aux = _post(
            server.url, "/v1/messages", _request([{"role": "user", "content": "title?"}], stream=False, tools=[])
        )
        sub = [{"role": "user", "content": [{"type": "text", "text": "Do the sub task."}]}]
        _, _, sub_reply = _post(server.url, "/v1/messages", _request(sub, stream=False))
        compact = [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": "x"},
            {"role": "user", "content": "Write a summary in <summary></summary> tags. Do NOT call any tools."},
        ]
        _, _, compact_reply = _post(server.url, "/v1/messages", _request(compact, stream=False))
        later = [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": "x"},
            {"role": "user", "content": "next"},
        ]
        _, _, main_reply = _post(server.url, "/v1/messages", _request(later, stream=False))
        _, _, exhausted = _post(
            server.url,
            "/v1/messages",
            _request(
                [*later, {"role": "assistant", "content": "y"}, {"role": "user", "content": "more"}], stream=False
            ),
        )
        status, _, counted = _post(server.url, "/v1/messages/count_tokens", {"model": "m", "messages": later})
        unknown_status, _, _ = _post(server.url, "/v1/nowhere", {})
    assert json.loads(aux)["content"][0]["text"] == "OK."
    assert json.loads(sub_reply)["content"][0]["text"] == "sub result"
    assert "<summary>" in json.loads(compact_reply)["content"][0]["text"]
    assert json.loads(main_reply)["content"][0]["text"] == "main done"
    assert json.loads(exhausted)["content"][0]["text"] == "nothing more"
    assert status == 200 and json.loads(counted)["input_tokens"] > 0
    assert unknown_status == 404 and server.unknown_paths() == ["/v1/nowhere"]
    assert [r["role"] for r in server.responses()] == ["main", "aux", "subagent", "compact", "main", "main"]


class _Proxy(BaseHTTPRequestHandler):
    """A minimal pass-through proxy that relays the upstream stream chunk by chunk."""

    upstream = ""
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["content-length"]))
        parts = urlsplit(self.upstream)
        conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=10)
        conn.request("POST", self.path, body, {k: v for k, v in self.headers.items() if k.lower() != "host"})
        response = conn.getresponse()
        self.send_response(response.status)
        for key, value in response.getheaders():
            if key.lower() not in ("transfer-encoding", "content-length", "connection"):
                self.send_header(key, value)
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        while chunk := response.read1(4096):
            self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
        self.wfile.write(b"0\r\n\r\n")
        conn.close()


def test_works_behind_a_pass_through_proxy() -> None:
    with ScriptedModelServer(Scenario([turn("through the proxy")])) as server:
        handler = type("Proxy", (_Proxy,), {"upstream": server.url})
        proxy = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=proxy.serve_forever, daemon=True).start()
        try:
            _, headers, data = _post(
                f"http://127.0.0.1:{proxy.server_address[1]}",
                "/v1/messages",
                _request([{"role": "user", "content": "hi"}]),
            )
        finally:
            proxy.shutdown()
            proxy.server_close()
    message = _assemble(_events(data))
    assert message["content"] == [{"type": "text", "text": "through the proxy"}]
    assert headers["request-id"] == server.responses()[0]["request_id"]
