"""OpenAI Responses API wire format (what Codex CLI speaks): a finished response as JSON or as its SSE stream.

A scripted `Turn` becomes output items: text blocks one `message` item each, tool calls `function_call`
items (`call_id` is what the client echoes back in its `function_call_output`). Usage follows OpenAI's
convention: `input_tokens` includes the cached part (`input_tokens_details.cached_tokens`), and the
scripted `Usage`'s cache-write figures are dropped (the Responses API reports none).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from .scenario import Text, ToolUse, Usage

TOOL_SEARCH = "tool_search"


def openai_usage(usage: Usage) -> dict[str, Any]:
    """The Responses API `usage` object for a scripted `Usage`."""
    cached = usage.cache_read_input_tokens
    total_input = usage.input_tokens + cached
    return {
        "input_tokens": total_input,
        "input_tokens_details": {"cached_tokens": cached},
        "output_tokens": usage.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": total_input + usage.output_tokens,
    }


@dataclass(frozen=True)
class OutgoingResponse:
    """A response ready to send: tool calls already carry their call ids."""

    response_id: str
    model: str
    blocks: tuple[tuple[Text | ToolUse, str], ...]  # (block, item id or call id)
    usage: Usage

    def call_ids(self) -> list[str]:
        return [block_id for block, block_id in self.blocks if isinstance(block, ToolUse)]

    def output(self) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        for block, block_id in self.blocks:
            if isinstance(block, Text):
                content = [{"type": "output_text", "text": block.text, "annotations": []}]
                item = {"id": block_id, "type": "message", "status": "completed", "role": "assistant"}
                items.append({**item, "content": content})
            elif block.name == TOOL_SEARCH:  # Codex's client-executed search over deferred (MCP) tools
                item = {"id": "ts_" + block_id.removeprefix("call_"), "type": "tool_search_call", "status": "completed"}
                items.append({**item, "call_id": block_id, "execution": "client", "arguments": block.input})
            elif block.freeform:
                item = {
                    "id": "ctc_" + block_id.removeprefix("call_"),
                    "type": "custom_tool_call",
                    "status": "completed",
                }
                items.append({**item, "call_id": block_id, "name": block.name, "input": str(block.input["input"])})
            else:
                arguments = json.dumps(block.input)
                item = {"id": "fc_" + block_id.removeprefix("call_"), "type": "function_call", "status": "completed"}
                item |= {"call_id": block_id, "name": block.name, "arguments": arguments}
                if block.namespace is not None:
                    item["namespace"] = block.namespace
                items.append(item)
        return items

    def as_json(self, status: str = "completed") -> dict[str, Any]:
        done = status == "completed"
        return {
            "id": self.response_id,
            "object": "response",
            "created_at": int(time.time()),
            "status": status,
            "model": self.model,
            "output": self.output() if done else [],
            "usage": openai_usage(self.usage) if done else None,
        }

    def sse_events(self) -> list[dict[str, Any]]:
        """The stream: created, each item added/delta/done, completed (with usage), numbered in order."""
        events: list[dict[str, Any]] = [
            {"type": "response.created", "response": self.as_json("in_progress")},
            {"type": "response.in_progress", "response": self.as_json("in_progress")},
        ]
        for index, item in enumerate(self.output()):
            started = {**item, "status": "in_progress"}
            if item["type"] == "message":
                started["content"] = []
                events.append({"type": "response.output_item.added", "output_index": index, "item": started})
                part = {"type": "output_text", "text": "", "annotations": []}
                where = {"item_id": item["id"], "output_index": index, "content_index": 0}
                events.append({"type": "response.content_part.added", **where, "part": part})
                text = item["content"][0]["text"]
                events.extend({"type": "response.output_text.delta", **where, "delta": d} for d in _split(text))
                events.append({"type": "response.output_text.done", **where, "text": text})
                events.append({"type": "response.content_part.done", **where, "part": item["content"][0]})
            elif item["type"] == "custom_tool_call":
                events.append(
                    {"type": "response.output_item.added", "output_index": index, "item": {**started, "input": ""}}
                )
                where = {"item_id": item["id"], "output_index": index}
                events.extend(
                    {"type": "response.custom_tool_call_input.delta", **where, "delta": d}
                    for d in _split(item["input"])
                )
                events.append({"type": "response.custom_tool_call_input.done", **where, "input": item["input"]})
            elif item["type"] == "tool_search_call":
                events.append({"type": "response.output_item.added", "output_index": index, "item": started})
            else:
                started["arguments"] = ""
                events.append({"type": "response.output_item.added", "output_index": index, "item": started})
                where = {"item_id": item["id"], "output_index": index}
                events.extend(
                    {"type": "response.function_call_arguments.delta", **where, "delta": d}
                    for d in _split(item["arguments"])
                )
                done = {"type": "response.function_call_arguments.done", **where, "arguments": item["arguments"]}
                events.append(done)
            events.append({"type": "response.output_item.done", "output_index": index, "item": item})
        events.append({"type": "response.completed", "response": self.as_json()})
        return [{**event, "sequence_number": number} for number, event in enumerate(events)]


def encode_sse(data: dict[str, Any]) -> bytes:
    return f"event: {data['type']}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def input_items(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The request's `input` as a list of items (a bare string is one user message)."""
    raw = body.get("input")
    if isinstance(raw, str):
        return [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": raw}]}]
    return [item for item in raw if isinstance(item, dict)] if isinstance(raw, list) else []


def function_outputs(body: dict[str, Any]) -> dict[str, str]:
    """call_id -> output text of every `function_call_output` (and `custom_tool_call_output`) in the input."""
    found: dict[str, str] = {}
    for item in input_items(body):
        if item.get("type") in ("function_call_output", "custom_tool_call_output"):
            output = item.get("output")
            if isinstance(output, list):  # content items
                output = "\n".join(str(p.get("text", "")) for p in output if isinstance(p, dict))
            found[str(item.get("call_id"))] = output if isinstance(output, str) else json.dumps(output)
    return found


def request_text(body: dict[str, Any]) -> str:
    """Everything textual the model would read: instructions and every input item, as one string."""
    return json.dumps({"instructions": body.get("instructions"), "input": input_items(body)}, ensure_ascii=False)


def _split(value: str, size: int = 24) -> list[str]:
    return [value[i : i + size] for i in range(0, len(value), size)] or [""]
