"""The scripted server's OpenAI Responses and Gemini wires: scripted turns, streams, usage, retries, logs."""

from __future__ import annotations

import http.client
import json
from typing import Any
from urllib.parse import urlsplit

from agent_harness import Scenario, ScriptedModelServer, Usage, freeform_tool, tool_use, turn
from agent_harness.gemini_wire import function_responses, parse_path, schema_example
from agent_harness.responses_wire import function_outputs, request_text

USAGE = Usage(input_tokens=30, output_tokens=7, cache_read_input_tokens=100)


def _post(url: str, path: str, body: dict[str, Any]) -> tuple[int, bytes]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=10)
    conn.request("POST", path, json.dumps(body), {"content-type": "application/json", "authorization": "Bearer sk-x"})
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, data


def _sse(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in data.decode().splitlines() if line.startswith("data: ")]


def _responses_body(items: list[dict[str, Any]], stream: bool = True) -> dict[str, Any]:
    return {"model": "gpt-5.5", "stream": stream, "input": items, "tools": [{"type": "function", "name": "x"}]}


def test_responses_stream_scripted_turns_and_usage() -> None:
    scenario = Scenario(
        [
            turn("Looking.", tool_use("exec_command", {"cmd": "ls"}), usage=USAGE),
            turn(tool_use("code_def", {"name": "f"}, namespace="mcp__ctxops"), tool_use("tool_search", {"query": "q"})),
            turn(freeform_tool("apply_patch", "*** Begin Patch\n*** End Patch\n")),
        ],
        final_text="Finished.",
    )
    user = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
    with ScriptedModelServer(scenario, seed=5) as server:
        status, data = _post(server.url, "/v1/responses", _responses_body([user]))
        assert status == 200
        events = _sse(data)
        assert [e["sequence_number"] for e in events] == list(range(len(events)))
        assert events[0]["type"] == "response.created" and events[-1]["type"] == "response.completed"
        done = events[-1]["response"]
        assert [i["type"] for i in done["output"]] == ["message", "function_call"]
        assert "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta") == "Looking."
        call = done["output"][1]
        assert json.loads(call["arguments"]) == {"cmd": "ls"} and call["call_id"].startswith("call_")
        assert done["usage"] == {
            "input_tokens": 130,
            "input_tokens_details": {"cached_tokens": 100},
            "output_tokens": 7,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 137,
        }
        # A retry of the same conversation gets the same answer; the next one the next turn.
        _, again = _post(server.url, "/v1/responses", _responses_body([user]))
        assert _sse(again)[-1]["response"]["output"] == done["output"]
        answer = {"type": "function_call_output", "call_id": call["call_id"], "output": "a.py\n"}
        _, second = _post(server.url, "/v1/responses", _responses_body([user, call, answer], stream=False))
        body = json.loads(second)
        named, search = body["output"]
        assert (named["name"], named["namespace"]) == ("code_def", "mcp__ctxops")
        assert search["type"] == "tool_search_call" and search["arguments"] == {"query": "q"}
        _, third = _post(server.url, "/v1/responses", _responses_body([user, named]))
        (patch,) = _sse(third)[-1]["response"]["output"]
        assert patch["type"] == "custom_tool_call" and patch["input"].startswith("*** Begin Patch")
        _, final = _post(server.url, "/v1/responses", _responses_body([user, patch]))
        assert _sse(final)[-1]["response"]["output"][0]["content"][0]["text"] == "Finished."
    sent = server.responses()
    assert [r["turn_index"] for r in sent] == [0, 0, 1, 2, None]  # a retry names the turn it repeats
    assert [r["note"] for r in sent] == [None, "retry", None, None, None]
    assert {r["wire"] for r in sent} == {"openai-responses"}
    assert all("authorization" not in r["headers"] for r in server.requests())
    assert function_outputs(_responses_body([user, answer])) == {call["call_id"]: "a.py\n"}
    assert "hi" in request_text(_responses_body([user]))


def _gemini_body(contents: list[dict[str, Any]], *, tools: bool = True, **config: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"contents": contents, "systemInstruction": {"parts": [{"text": "be brief"}]}}
    if tools:
        body["tools"] = [{"functionDeclarations": [{"name": "run_shell_command"}]}]
    if config:
        body["generationConfig"] = config
    return body


def test_gemini_stream_json_helpers_and_count_tokens() -> None:
    scenario = Scenario(
        [turn("Running it now, then I report.", tool_use("run_shell_command", {"command": "ls"}), usage=USAGE)]
    )
    user = {"role": "user", "parts": [{"text": "list files"}]}
    with ScriptedModelServer(scenario, seed=2) as server:
        path = "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
        status, data = _post(server.url, path, _gemini_body([user]))
        assert status == 200
        chunks = _sse(data)
        assert len(chunks) > 2 and all("usageMetadata" not in c for c in chunks[:-1])
        parts = [p for c in chunks for p in c["candidates"][0]["content"]["parts"]]
        assert "".join(p.get("text", "") for p in parts) == "Running it now, then I report."
        (call,) = [p["functionCall"] for p in parts if "functionCall" in p]
        assert call["name"] == "run_shell_command" and call["args"] == {"command": "ls"}
        assert chunks[-1]["candidates"][0]["finishReason"] == "STOP"
        assert chunks[-1]["usageMetadata"] == {
            "promptTokenCount": 130,
            "candidatesTokenCount": 7,
            "totalTokenCount": 137,
            "cachedContentTokenCount": 100,
        }
        # A JSON-mode helper call (routing, next speaker) gets a schema-shaped answer and consumes no turn.
        schema = {"type": "object", "properties": {"next_speaker": {"type": "string", "enum": ["user", "model"]}}}
        helper = _gemini_body([user], tools=False, responseMimeType="application/json", responseJsonSchema=schema)
        _, answer = _post(server.url, "/v1beta/models/gemini-2.5-flash:generateContent", helper)
        text = json.loads(answer)["candidates"][0]["content"]["parts"][0]["text"]
        assert json.loads(text) == {"next_speaker": "user"}
        _, counted = _post(server.url, "/v1beta/models/gemini-2.5-pro:countTokens", {"contents": [user]})
        assert json.loads(counted)["totalTokens"] >= 1
        reply = {
            "role": "user",
            "parts": [{"functionResponse": {"id": call["id"], "name": "ls", "response": {"o": 1}}}],
        }
        _, last = _post(server.url, "/v1beta/models/gemini-2.5-pro:generateContent", _gemini_body([user, reply]))
        assert json.loads(last)["candidates"][0]["content"]["parts"] == [{"text": "All done."}]
    assert [(r["role"], r["turn_index"]) for r in server.responses()] == [("main", 0), ("aux", None), ("main", None)]
    assert function_responses(_gemini_body([user, reply])) == {call["id"]: '{"o": 1}'}


def test_gemini_paths_and_schema_examples() -> None:
    assert parse_path("/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse") == (
        "gemini-2.5-pro",
        "streamGenerateContent",
    )
    assert parse_path("/v1beta/models/m:embedContent") is None and parse_path("/v1/messages") is None
    schema = {
        "type": "OBJECT",
        "properties": {"n": {"type": "integer"}, "ok": {"type": "boolean"}, "xs": {"type": "array"}, "s": {}},
    }
    assert schema_example(schema) == {"n": 0, "ok": False, "xs": [], "s": {}}
    assert schema_example({"type": "string"}) == "scripted" and schema_example(None) is None
