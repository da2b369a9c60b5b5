"""Issue 25: server tool use, tier and geography read off the wire; wrong-typed fields; resumed sessions."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ctxops_contracts import UsageRecord, decode
from ctxops_token_capture.ingest import Sources, ingest
from ctxops_token_capture.wire import ResponseObserver


def _sse(event: str, data: dict) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def test_a_stream_s_server_tool_use_tier_and_geography_are_recorded() -> None:
    start = {
        "type": "message_start",
        "message": {
            "id": "msg_1",
            "model": "claude-opus-4-8",
            "usage": {"input_tokens": 10, "output_tokens": 1, "service_tier": "standard", "inference_geo": "us"},
        },
    }
    delta = {
        "type": "message_delta",
        "delta": {"stop_reason": "end_turn"},
        "usage": {"output_tokens": 40, "server_tool_use": {"web_search_requests": 2, "web_fetch_requests": 1}},
    }
    observer = ResponseObserver("anthropic", "text/event-stream", None)
    for chunk in (_sse("message_start", start), _sse("message_delta", delta), _sse("message_stop", {})):
        observer.feed(chunk)
    usage = observer.finish().usage
    assert (usage.web_search_requests, usage.web_fetch_requests) == (2, 1)
    assert (usage.service_tier, usage.inference_geo, usage.output_tokens) == ("standard", "us", 40)


def _line(message_id: str, ts: str, session: str, **usage: object) -> str:
    body = {"input_tokens": 100, "output_tokens": 20, **usage}
    line = {
        "type": "assistant",
        "timestamp": ts,
        "sessionId": session,
        "requestId": f"r-{message_id}",
        "cwd": "/tmp/x",
        "message": {"id": message_id, "model": "claude-sonnet-4-5", "usage": body},
    }
    return json.dumps(line) + "\n"


def _records(root: Path) -> list[UsageRecord]:
    return [
        decode(UsageRecord, line)
        for path in sorted((root / "usage").glob("*.jsonl"))
        for line in path.read_bytes().splitlines()
        if line.strip()
    ]


def test_a_wrong_typed_field_drops_the_field_not_the_call(tmp_path: Path, data_root: Path) -> None:
    config = tmp_path / "claude"
    (config / "projects" / "p").mkdir(parents=True)
    (config / "projects" / "p" / "a.jsonl").write_text(
        _line("m1", "2026-11-01T10:00:00Z", "s", cache_read_input_tokens="lots", cache_creation_input_tokens=7)
        + _line("m2", "2026-11-01T10:01:00Z", "s", cache_creation="odd", server_tool_use=[1])
    )
    report = ingest(Sources(claude_dirs=[config]), data_root)
    assert (report.records, report.rejected, report.dropped_fields) == (2, 0, 3)
    by_id = {r.message_id: r for r in _records(data_root)}
    assert (by_id["m1"].input_tokens, by_id["m1"].cache_read_tokens, by_id["m1"].cache_creation_tokens) == (100, 0, 7)
    assert by_id["m2"].output_tokens == 20
    assert "3 wrong-typed fields dropped (their calls kept)" in report.summary()


def test_a_resumed_session_replaying_its_original_leaves_the_calls_to_the_original(
    tmp_path: Path, data_root: Path
) -> None:
    config = tmp_path / "claude"
    folder = config / "projects" / "p"
    folder.mkdir(parents=True)
    original = folder / "zzz-original.jsonl"  # sorts after the resumed one by name
    resumed = folder / "aaa-resumed.jsonl"
    history = _line("m1", "2026-11-01T10:00:00Z", "orig") + _line("m2", "2026-11-01T10:05:00Z", "orig")
    original.write_text(history)
    replay = history.replace('"orig"', '"resumed"')  # the same first timestamp, under the new session's id
    resumed.write_text(replay + _line("m3", "2026-11-01T11:00:00Z", "resumed"))
    os.utime(original, ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))
    os.utime(resumed, ns=(1_700_000_100_000_000_000, 1_700_000_100_000_000_000))
    ingest(Sources(claude_dirs=[config]), data_root)
    sessions = {r.message_id: r.session_id for r in _records(data_root)}
    assert sessions == {"m1": "orig", "m2": "orig", "m3": "resumed"}
