"""Issue 25 item 5: the Gemini API on the wire (what `ctx proxy` reads), and a chat-file copy of a call folded into
its proxy copy in a real DuckDB ledger."""

from __future__ import annotations

import gzip
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
from ctxops_contracts import UsageRecord
from ctxops_token_capture.jsonl_store import append_records
from ctxops_token_capture.ledger import Ledger
from ctxops_token_capture.recording import call_record
from ctxops_token_capture.report import IngestReport
from ctxops_token_capture.wire import ResponseObserver, api_of, request_info

PATH = "/v1beta/models/gemini-2.5-pro:streamGenerateContent"
USAGE = {
    "promptTokenCount": 2000,
    "cachedContentTokenCount": 800,
    "candidatesTokenCount": 30,
    "thoughtsTokenCount": 12,
    "toolUsePromptTokenCount": 5,
    "totalTokenCount": 2047,
}


def _chunk(text: str, last: bool = False) -> dict:
    candidate: dict = {"content": {"role": "model", "parts": [{"text": text}]}, "index": 0}
    chunk: dict = {"candidates": [candidate], "modelVersion": "gemini-2.5-pro-002", "responseId": "resp_1"}
    if last:
        candidate["finishReason"] = "STOP"
        chunk["usageMetadata"] = USAGE
    return chunk


def test_paths_and_requests() -> None:
    assert api_of("POST", PATH + "?alt=sse") == "gemini"
    assert api_of("POST", "/v1beta/models/gemini-2.5-flash-lite:generateContent") == "gemini"
    assert api_of("POST", "/v1/models/gemini-2.5-pro:generateContent") == "gemini"
    assert api_of("POST", "/v1beta/models/gemini-2.5-pro:countTokens") is None  # not billed
    assert api_of("GET", PATH) is None
    body = json.dumps({"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "systemInstruction": {}}).encode()
    info = request_info(body, PATH)
    assert (info.model, info.stream, info.message_count) == ("gemini-2.5-pro", True, 1)
    info = request_info(body, "/v1beta/models/gemini-2.5-flash-lite:generateContent")
    assert (info.model, info.stream) == ("gemini-2.5-flash-lite", False)


def _check(observer: ResponseObserver) -> None:
    seen = observer.finish()
    usage = seen.usage
    assert seen.stop and seen.input_seen and seen.output_final
    assert (seen.message_id, seen.model, seen.text) == ("resp_1", "gemini-2.5-pro-002", "Hello there")
    # The chat-file reader's convention: input excludes the cached tokens and includes tool-use prompt tokens;
    # thoughts are output (and reasoning).
    assert (usage.input_tokens, usage.cache_read_tokens) == (2000 - 800 + 5, 800)
    assert (usage.output_tokens, usage.reasoning_tokens) == (30 + 12, 12)


def test_sse_stream_split_anywhere_and_gzip() -> None:
    raw = b"".join(f"data: {json.dumps(c)}\r\n\r\n".encode() for c in (_chunk("Hello"), _chunk(" there", last=True)))
    observer = ResponseObserver("gemini", "text/event-stream", None)
    for i in range(0, len(raw), 7):  # chunk boundaries inside lines
        observer.feed(raw[i : i + 7])
    _check(observer)
    observer = ResponseObserver("gemini", "text/event-stream", "gzip")
    observer.feed(gzip.compress(raw))
    _check(observer)


def test_json_body_and_json_array_stream() -> None:
    whole = _chunk("Hello there", last=True)
    observer = ResponseObserver("gemini", "application/json", None)
    observer.feed(json.dumps(whole).encode())
    _check(observer)
    observer = ResponseObserver("gemini", "application/json", None)  # streamGenerateContent without alt=sse
    observer.feed(json.dumps([_chunk("Hello"), _chunk(" there", last=True)]).encode())
    _check(observer)


def test_an_error_body_is_an_error_and_a_cut_stream_is_not_complete() -> None:
    observer = ResponseObserver("gemini", "application/json", None)
    observer.feed(json.dumps({"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "message": "x"}}).encode())
    assert observer.finish().error == "upstream error: RESOURCE_EXHAUSTED"
    observer = ResponseObserver("gemini", "text/event-stream", None)
    observer.feed(f"data: {json.dumps(_chunk('Hello'))}\r\n\r\n".encode())
    assert not observer.finish().stop  # no finishReason: the proxy marks the call incomplete


def _proxy_record(ts: datetime, prompt: int, output: int, n: int) -> UsageRecord:
    observer = ResponseObserver("gemini", "application/json", None)
    chunk = _chunk("ok", last=True) | {"responseId": f"resp_{n}", "modelVersion": "gemini-2.5-pro"}
    chunk["usageMetadata"] = {"promptTokenCount": prompt, "candidatesTokenCount": output}
    observer.feed(json.dumps(chunk).encode())
    info = request_info(b'{"contents": []}', "/v1beta/models/gemini-2.5-pro:generateContent")
    return call_record(
        api="gemini",
        origin="proxy",
        started=ts,
        latency_ms=900.0,
        status=200,
        request=info,
        seen=observer.finish(),
        request_id=f"req_{n}",
    )


def _chat_record(ts: datetime, prompt: int, output: int, n: int, session: str = "sess-1") -> UsageRecord:
    return UsageRecord(
        id=f"01K{n:023d}",
        ts=ts,
        provider="google",
        model="gemini-2.5-pro",
        session_id=session,
        message_id=f"chat-{n}",
        cwd="/home/dev/proj",
        input_tokens=prompt,
        output_tokens=output,
        source="provider-reported",
        origin="transcript",
        dedupe_key=f"gemini:{session}:chat-{n}",
    )


def _rows(root: Path) -> list[tuple]:
    Ledger(root).load(IngestReport())
    with duckdb.connect(str(root / "ledger.duckdb"), read_only=True) as con:
        return con.execute(
            "SELECT origin, message_id, input_tokens, output_tokens, session_id, cwd, latency_ms FROM usage ORDER BY ts"
        ).fetchall()


def test_a_chat_file_copy_folds_into_its_proxy_copy(tmp_path: Path) -> None:
    t0 = datetime(2026, 11, 3, 10, 0, tzinfo=UTC)
    root = tmp_path / "ledger"
    # Two identical-looking calls a minute and a half apart (same counts), one router-like call, one call the
    # proxy never saw, one proxy call with no chat copy.
    append_records(
        [
            _proxy_record(t0, 1000, 10, 1),
            _proxy_record(t0 + timedelta(seconds=90), 1000, 10, 2),
            _proxy_record(t0 + timedelta(seconds=100), 77, 12, 3),
        ],
        "proxy",
        root,
    )
    assert len(_rows(root)) == 3  # loaded before the chat file is ingested: the fold works either way round
    append_records(
        [
            _chat_record(t0 + timedelta(seconds=1), 1000, 10, 1),
            _chat_record(t0 + timedelta(seconds=91), 1000, 10, 2),
            _chat_record(t0 + timedelta(seconds=400), 500, 5, 4),  # not through the proxy
        ],
        "transcript",
        root,
    )
    rows = _rows(root)
    assert [(r[0], r[1], r[2], r[4]) for r in rows] == [
        ("proxy", "resp_1", 1000, "sess-1"),
        ("proxy", "resp_2", 1000, "sess-1"),
        ("proxy", "resp_3", 77, None),  # the router: no chat copy, no session
        ("transcript", "chat-4", 500, "sess-1"),
    ]
    assert rows[0][5] == "/home/dev/proj" and rows[0][6] == 900.0  # the chat file's cwd, the wire's latency
    with duckdb.connect(str(root / "ledger.duckdb"), read_only=True) as con:
        hourly = con.execute("SELECT sum(calls), sum(input_tokens) FROM usage_hourly").fetchone()
    assert hourly == (4, 1000 + 1000 + 77 + 500)  # the roll-up agrees: nothing counted twice


def test_both_copies_in_one_load_and_a_rebuild_give_the_same(tmp_path: Path) -> None:
    t0 = datetime(2026, 11, 3, 10, 0, tzinfo=UTC)
    root = tmp_path / "ledger"
    append_records([_chat_record(t0 + timedelta(seconds=1), 300, 3, 9)], "transcript", root)
    append_records([_proxy_record(t0, 300, 3, 9)], "proxy", root)
    first = _rows(root)
    assert [(r[0], r[4]) for r in first] == [("proxy", "sess-1")]
    (root / "ledger.duckdb").unlink()
    (root / "state" / "loaded.json").unlink()
    assert _rows(root) == first
