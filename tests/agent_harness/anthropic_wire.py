"""Anthropic Messages API wire format: a finished assistant message as JSON or as the SSE event stream."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .scenario import Text, ToolUse, Usage


@dataclass(frozen=True)
class OutgoingMessage:
    """An assistant message ready to send: blocks already carry their tool_use ids."""

    message_id: str
    model: str
    blocks: tuple[tuple[Text | ToolUse, str | None], ...]  # (block, tool_use id or None)
    usage: Usage

    @property
    def stop_reason(self) -> str:
        return "tool_use" if any(isinstance(b, ToolUse) for b, _ in self.blocks) else "end_turn"

    def content(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for block, block_id in self.blocks:
            if isinstance(block, Text):
                out.append({"type": "text", "text": block.text})
            else:
                out.append({"type": "tool_use", "id": block_id, "name": block.name, "input": block.input})
        return out

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.message_id,
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": self.content(),
            "stop_reason": self.stop_reason,
            "stop_sequence": None,
            "usage": self.usage.full_dict(),
        }

    def sse_events(self) -> list[tuple[str, dict[str, Any]]]:
        start = {**self.as_json(), "content": [], "stop_reason": None, "usage": self.usage.start_dict()}
        events: list[tuple[str, dict[str, Any]]] = [("message_start", {"type": "message_start", "message": start})]
        events.append(("ping", {"type": "ping"}))
        for index, block in enumerate(self.content()):
            if block["type"] == "text":
                empty: dict[str, Any] = {"type": "text", "text": ""}
                deltas = [{"type": "text_delta", "text": part} for part in _split(block["text"])]
            else:
                empty = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
                deltas = [
                    {"type": "input_json_delta", "partial_json": part} for part in _split(json.dumps(block["input"]))
                ]
            events.append(
                ("content_block_start", {"type": "content_block_start", "index": index, "content_block": empty})
            )
            events.extend(
                ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d}) for d in deltas
            )
            events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        final_usage = {
            "input_tokens": self.usage.input_tokens,
            "cache_creation_input_tokens": self.usage.cache_creation_input_tokens,
            "cache_read_input_tokens": self.usage.cache_read_input_tokens,
            "output_tokens": self.usage.output_tokens,
            **self.usage.extra_dict(),
        }
        events.append(
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": self.stop_reason, "stop_sequence": None},
                    "usage": final_usage,
                },
            )
        )
        events.append(("message_stop", {"type": "message_stop"}))
        return events


def encode_sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def _split(value: str, size: int = 24) -> list[str]:
    """Chunk a string the way a real stream does (several deltas); an empty string still gets one delta."""
    return [value[i : i + size] for i in range(0, len(value), size)] or [""]
