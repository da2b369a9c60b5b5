"""The proxy streams through untouched, records usage once per call, and survives misbehaving peers."""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from ctxops_contracts import UsageRecord, decode
from ctxops_token_capture.proxy import ProxyConfig, serve
from ctxops_token_capture.totals import totals

SECRET = "sk-ant-api03-TEST-SECRET-should-never-be-stored"


class RunningProxy:
    def __init__(self, upstream: str, root: Path) -> None:
        self.root = root
        self.config = ProxyConfig.create(upstream, port=0, root=root)
        self.loop = asyncio.new_event_loop()
        self.stop = asyncio.Event()
        self.port = 0
        ready = threading.Event()

        def announce(port: int) -> None:
            self.port = port
            ready.set()

        def run() -> None:
            asyncio.set_event_loop(self.loop)
            self.loop.run_until_complete(serve(self.config, announce, self.stop))

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        assert ready.wait(10)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.stop.set)
        self.thread.join(10)

    def records(self, expected: int, timeout: float = 5.0) -> list[UsageRecord]:
        deadline = time.monotonic() + timeout
        while True:
            lines = (
                [
                    line
                    for path in sorted((self.root / "usage").glob("proxy-*.jsonl"))
                    for line in path.read_bytes().splitlines()
                    if line.strip()
                ]
                if (self.root / "usage").is_dir()
                else []
            )
            if len(lines) >= expected or time.monotonic() > deadline:
                return [decode(UsageRecord, line) for line in lines]
            time.sleep(0.02)


@pytest.fixture
def proxy(upstream: Any, data_root: Path) -> Iterator[RunningProxy]:
    running = RunningProxy(upstream.url, data_root)
    yield running
    running.close()


def _anthropic_headers() -> dict[str, str]:
    return {"x-api-key": SECRET, "anthropic-version": "2023-06-01", "content-type": "application/json"}


def test_anthropic_stream_passes_through_byte_for_byte_and_is_recorded(proxy: RunningProxy, upstream: Any) -> None:
    body = {"model": "claude-test", "max_tokens": 100, "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    chunks: list[bytes] = []
    with httpx.stream("POST", proxy.url + "/v1/messages", json=body, headers=_anthropic_headers()) as response:
        assert response.status_code == 200
        assert response.headers["request-id"] == "req_0001"
        assert response.headers["content-type"] == "text/event-stream"
        chunks.extend(response.iter_raw())
    assert b"".join(chunks) == upstream.sent[0]["raw"]  # byte for byte what the upstream wrote
    (record,) = proxy.records(1)
    sent = upstream.sent[0]
    assert record.request_id == sent["request_id"] and record.message_id == sent["message_id"]
    assert record.input_tokens == sent["usage"]["input_tokens"]
    assert record.output_tokens == sent["usage"]["output_tokens"] == 7
    assert record.cache_creation_tokens == sent["usage"]["cache_creation_input_tokens"]
    assert record.cache_creation_1h_tokens == 30
    assert record.cache_read_tokens == sent["usage"]["cache_read_input_tokens"]
    assert record.source == "provider-reported" and record.origin == "proxy"
    assert record.status == 200 and record.message_count == 1 and record.model == "claude-test"
    assert record.dedupe_key == f"anthropic:{sent['message_id']}:{sent['request_id']}"
    assert record.latency_ms is not None and record.latency_ms > 0


def test_stream_arrives_incrementally_not_buffered(proxy: RunningProxy) -> None:
    body = {"model": "slow", "max_tokens": 100, "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    arrivals: list[float] = []
    start = time.perf_counter()
    with httpx.stream("POST", proxy.url + "/v1/messages", json=body, headers=_anthropic_headers()) as response:
        for _chunk in response.iter_raw():
            arrivals.append(time.perf_counter() - start)
    # The upstream writes 64 deltas 20 ms apart (>= 1.26 s, however loaded the machine: a sleep only gets
    # longer). Passed through as they come, the client's chunks span most of that; buffered, they would
    # arrive together at the end. (A ratio to the total time failed under load: the first chunk's latency
    # grows with the load, the span does not shrink.)
    assert len(arrivals) > 10
    assert arrivals[-1] - arrivals[0] > 0.6 * 63 * 0.020
    # Time to first token is recorded beside the whole call's latency: the first delta, not the last.
    (record,) = proxy.records(1)
    assert record.ttft_ms is not None and record.latency_ms is not None
    assert 0 < record.ttft_ms < record.latency_ms - 1000  # 63 more deltas, each at least 20 ms later


def test_non_stream_gzip_body_is_untouched_and_usage_read(proxy: RunningProxy, upstream: Any) -> None:
    body = {
        "model": "gzip",
        "max_tokens": 10,
        "messages": [
            {"role": "user", "content": "a"},
            {"role": "assistant", "content": "b"},
            {"role": "user", "content": "c"},
        ],
    }
    headers = {**_anthropic_headers(), "accept-encoding": "gzip, br"}
    with httpx.Client() as client:
        response = client.post(proxy.url + "/v1/messages", json=body, headers=headers)
    assert response.headers["content-encoding"] == "gzip"
    assert response.json()["content"][0]["text"] == "Hello there."
    assert "br" not in upstream.seen_headers[-1].get("Accept-Encoding", "")
    (record,) = proxy.records(1)
    assert record.output_tokens == upstream.sent[0]["usage"]["output_tokens"]
    assert record.message_count == 3 and record.source == "provider-reported"


def test_openai_chat_stream_reads_the_final_usage_chunk(proxy: RunningProxy, upstream: Any) -> None:
    body = {
        "model": "gpt-test",
        "stream": True,
        "stream_options": {"include_usage": True},
        "messages": [{"role": "user", "content": "hi"}],
    }
    text = httpx.post(proxy.url + "/v1/chat/completions", json=body, headers={"authorization": f"Bearer {SECRET}"}).text
    assert text.rstrip().endswith("data: [DONE]")
    (record,) = proxy.records(1)
    usage = upstream.sent[0]["usage"]
    assert record.provider == "openai" and record.model == "gpt-test"
    assert record.input_tokens == usage["prompt_tokens"] - 256 and record.cache_read_tokens == 256
    assert record.output_tokens == usage["completion_tokens"] and record.reasoning_tokens == 4
    assert record.source == "provider-reported"


def test_openai_chat_stream_without_usage_is_estimated(proxy: RunningProxy) -> None:
    body = {
        "model": "gpt-test",
        "stream": True,
        "messages": [{"role": "user", "content": "Say hello from the model please."}],
    }
    httpx.post(proxy.url + "/v1/chat/completions", json=body)
    (record,) = proxy.records(1)
    assert record.source == "estimated"
    assert record.input_tokens > 3 and record.output_tokens == 5  # "Hello from the model." in o200k


def test_openai_responses_stream(proxy: RunningProxy, upstream: Any) -> None:
    body = {"model": "gpt-5", "stream": True, "input": "hello"}
    httpx.post(proxy.url + "/v1/responses", json=body)
    (record,) = proxy.records(1)
    usage = upstream.sent[0]["usage"]
    assert record.input_tokens == usage["input_tokens"] - 512 and record.cache_read_tokens == 512
    assert record.output_tokens == usage["output_tokens"] and record.reasoning_tokens == 16
    assert record.message_count == 1


def test_upstream_error_is_passed_through_and_recorded(proxy: RunningProxy) -> None:
    body = {"model": "overloaded", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}
    response = httpx.post(proxy.url + "/v1/messages", json=body)
    assert response.status_code == 529 and response.json()["error"]["type"] == "overloaded_error"
    (record,) = proxy.records(1)
    assert record.status == 529 and record.input_tokens == 0 and record.output_tokens == 0
    assert record.error is not None and "overloaded_error" in record.error


def test_upstream_closing_mid_stream_reaches_the_client_as_an_error(proxy: RunningProxy, upstream: Any) -> None:
    body = {
        "model": "close-mid-stream",
        "max_tokens": 10,
        "stream": True,
        "messages": [{"role": "user", "content": "hi"}],
    }
    with pytest.raises(httpx.HTTPError), httpx.stream("POST", proxy.url + "/v1/messages", json=body) as response:
        for _ in response.iter_raw():
            pass
    (record,) = proxy.records(1)
    assert record.error is not None and "upstream closed mid-stream" in record.error
    assert record.input_tokens == upstream.sent[0]["usage"]["input_tokens"]  # from message_start
    assert record.source == "estimated"  # the final output count never came


def test_client_disconnect_mid_stream_is_recorded(proxy: RunningProxy) -> None:
    payload = json.dumps(
        {"model": "slow", "max_tokens": 10, "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    )
    connection = http.client.HTTPConnection("127.0.0.1", proxy.port, timeout=10)
    connection.request("POST", "/v1/messages", body=payload, headers={"content-type": "application/json"})
    response = connection.getresponse()
    response.read1(200)
    connection.sock.shutdown(socket.SHUT_RDWR)
    connection.close()
    (record,) = proxy.records(1, timeout=15)
    assert record.error is not None and "client disconnected" in record.error
    assert record.input_tokens > 0


def test_unreachable_upstream_gives_502_and_a_record(data_root: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        dead_port = probe.getsockname()[1]
    running = RunningProxy(f"http://127.0.0.1:{dead_port}", data_root)
    try:
        response = httpx.post(running.url + "/v1/messages", json={"model": "m", "messages": []})
        assert response.status_code == 502
        (record,) = running.records(1)
        assert record.status == 502 and record.error is not None and "unreachable" in record.error
    finally:
        running.close()


def test_non_model_paths_pass_through_without_records(proxy: RunningProxy) -> None:
    assert httpx.get(proxy.url + "/v1/models").json()["data"][0]["id"] == "claude-test"
    # The signal: a model call made after it is recorded; had /v1/models been recorded, it would be there
    # too (one client, requests in sequence, each record appended before its response completes).
    body = {"model": "claude-test", "max_tokens": 10, "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    assert httpx.post(proxy.url + "/v1/messages", json=body, headers=_anthropic_headers()).status_code == 200
    records = proxy.records(1)
    assert [r.model for r in records] == ["claude-test"]


def test_credentials_are_never_stored_or_logged(
    proxy: RunningProxy, data_root: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    body = {"model": "claude-test", "max_tokens": 10, "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    httpx.post(proxy.url + "/v1/messages?key=" + SECRET, json=body, headers=_anthropic_headers())
    httpx.post(
        proxy.url + "/v1/chat/completions",
        json={"model": "x", "messages": []},
        headers={"authorization": f"Bearer {SECRET}"},
    )
    proxy.records(2)
    for path in data_root.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
    out, err = capfd.readouterr()
    assert SECRET not in out and SECRET not in err


def test_proxy_records_show_up_in_totals(proxy: RunningProxy, data_root: Path) -> None:
    body = {"model": "claude-test", "max_tokens": 10, "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    for _ in range(3):
        httpx.post(proxy.url + "/v1/messages", json=body)
    records = proxy.records(3)
    result = totals(["model"], root=data_root)
    (row,) = result.rows
    assert row["calls"] == 3
    assert row["output_tokens"] == sum(r.output_tokens for r in records)


def test_config_refuses_non_loopback_and_credentials() -> None:
    with pytest.raises(ValueError, match="loopback"):
        ProxyConfig.create("https://api.anthropic.com", host="0.0.0.0")
    with pytest.raises(ValueError, match="credentials"):
        ProxyConfig.create("https://user:pw@api.anthropic.com")
    with pytest.raises(ValueError, match="http"):
        ProxyConfig.create("ftp://example")


def test_command_line_proxy_runs_and_stops(upstream: Any, data_root: Path) -> None:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ctxops_token_capture",
            "proxy",
            "--upstream",
            upstream.url,
            "--port",
            "0",
            "--data-dir",
            str(data_root),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert "listening on http://127.0.0.1:" in line
        port = int(line.split("http://127.0.0.1:")[1].split()[0])
        body = {
            "model": "claude-test",
            "max_tokens": 10,
            "stream": True,
            "messages": [{"role": "user", "content": "hi"}],
        }
        assert (
            httpx.post(f"http://127.0.0.1:{port}/v1/messages", json=body, headers=_anthropic_headers()).status_code
            == 200
        )
    finally:
        process.terminate()
        process.wait(10)
    assert process.returncode == 0
    assert SECRET not in (process.stderr.read() if process.stderr else "")
    assert totals(["model"], root=data_root).total["calls"] == 1


def test_a_close_delimited_stream_cut_before_message_stop_is_incomplete(data_root: Path) -> None:
    """An upstream that ends the body by closing the connection (no length, not chunked) after a few events:
    on the wire that is a normal end, so only the missing `message_stop` tells it was cut."""
    events = (
        b'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_cut","model":"claude-test",'
        b'"usage":{"input_tokens":42,"output_tokens":1}}}\n\n'
        b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
        b'"delta":{"type":"text_delta","text":"The order"}}\n\n'
    )
    ready = threading.Event()
    port: list[int] = []

    def serve() -> None:
        with socket.socket() as server:
            server.bind(("127.0.0.1", 0))
            server.listen(1)
            port.append(server.getsockname()[1])
            ready.set()
            connection, _ = server.accept()
            with connection:
                connection.recv(65536)
                connection.sendall(
                    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nrequest-id: req_cut\r\n"
                    b"connection: close\r\n\r\n" + events
                )

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    assert ready.wait(5)
    running = RunningProxy(f"http://127.0.0.1:{port[0]}", data_root)
    try:
        body = {
            "model": "claude-test",
            "max_tokens": 10,
            "stream": True,
            "messages": [{"role": "user", "content": "hi"}],
        }
        with pytest.raises(httpx.HTTPError), httpx.stream("POST", running.url + "/v1/messages", json=body) as response:
            for _ in response.iter_raw():  # the client sees a cut stream too, not a complete one
                pass
        (record,) = running.records(1)
        assert record.status is None and record.error is not None and record.error.startswith("incomplete stream")
        assert record.input_tokens == 42 and record.source == "estimated"
    finally:
        running.close()
        thread.join(5)
