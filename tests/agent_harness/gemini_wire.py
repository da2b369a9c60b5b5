"""Gemini API wire format (what Gemini CLI speaks): `generateContent` JSON and `streamGenerateContent` SSE.

A scripted `Turn` becomes one candidate whose parts are `text` and `functionCall` parts (with an `id`,
which the client echoes in its `functionResponse`). Usage follows Gemini's convention:
`promptTokenCount` includes `cachedContentTokenCount`; the scripted cache-write figures are dropped (the
API reports none). The stream sends the text in several chunks and the usage once, on the last chunk.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .scenario import Text, ToolUse, Usage

GENERATE = "generateContent"
STREAM = "streamGenerateContent"
COUNT = "countTokens"


def gemini_usage(usage: Usage) -> dict[str, Any]:
    """The `usageMetadata` object for a scripted `Usage`."""
    prompt = usage.input_tokens + usage.cache_read_input_tokens
    out: dict[str, Any] = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": usage.output_tokens,
        "totalTokenCount": prompt + usage.output_tokens,
    }
    if usage.cache_read_input_tokens:
        out["cachedContentTokenCount"] = usage.cache_read_input_tokens
    return out


def parse_path(path: str) -> tuple[str, str] | None:
    """(model, method) of `/v1beta/models/MODEL:METHOD`, or None for any other path."""
    path = path.split("?", 1)[0]
    prefix = "/v1beta/models/"
    if not path.startswith(prefix) or ":" not in path:
        return None
    model, method = path[len(prefix) :].rsplit(":", 1)
    return (model, method) if model and method in (GENERATE, STREAM, COUNT) else None


@dataclass(frozen=True)
class OutgoingCandidate:
    """A model turn ready to send: function calls already carry their ids."""

    response_id: str
    model: str
    blocks: tuple[tuple[Text | ToolUse, str | None], ...]  # (block, function call id or None)
    usage: Usage

    def call_ids(self) -> list[str]:
        return [block_id for _, block_id in self.blocks if block_id is not None]

    def parts(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for block, block_id in self.blocks:
            if isinstance(block, Text):
                out.append({"text": block.text})
            else:
                out.append({"functionCall": {"id": block_id, "name": block.name, "args": block.input}})
        return out

    def _chunk(self, parts: list[dict[str, Any]], *, last: bool) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        chunk: dict[str, Any] = {"candidates": [candidate], "modelVersion": self.model, "responseId": self.response_id}
        if last:
            candidate["finishReason"] = "STOP"
            chunk["usageMetadata"] = gemini_usage(self.usage)
        return chunk

    def as_json(self) -> dict[str, Any]:
        return self._chunk(self.parts(), last=True)

    def sse_chunks(self) -> list[dict[str, Any]]:
        """Text split over several chunks, each function call whole in its own, usage on the last."""
        pieces: list[dict[str, Any]] = []
        for part in self.parts():
            if "text" in part:
                pieces.extend({"text": t} for t in _split(part["text"]))
            else:
                pieces.append(part)
        chunks = [self._chunk([piece], last=False) for piece in pieces[:-1]]
        chunks.append(self._chunk(pieces[-1:], last=True))
        return chunks


def encode_sse(data: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(data, separators=(',', ':'))}\r\n\r\n".encode()


def function_responses(body: dict[str, Any]) -> dict[str, str]:
    """id (or name, when the client sent no id) -> the JSON of each `functionResponse.response`."""
    found: dict[str, str] = {}
    for content in body.get("contents") or []:
        for part in content.get("parts") or [] if isinstance(content, dict) else []:
            reply = part.get("functionResponse") if isinstance(part, dict) else None
            if isinstance(reply, dict):
                key = str(reply.get("id") or reply.get("name"))
                found[key] = json.dumps(reply.get("response"), ensure_ascii=False)
    return found


def declared_tools(body: dict[str, Any]) -> list[str]:
    """Names of the function declarations the request offers the model."""
    names: list[str] = []
    for tool in body.get("tools") or []:
        for declaration in tool.get("functionDeclarations") or [] if isinstance(tool, dict) else []:
            if isinstance(declaration, dict) and isinstance(declaration.get("name"), str):
                names.append(declaration["name"])
    return names


def request_text(body: dict[str, Any]) -> str:
    """Everything textual the model would read: system instruction and contents, as one string."""
    return json.dumps(
        {"system": body.get("systemInstruction") or body.get("system_instruction"), "contents": body.get("contents")},
        ensure_ascii=False,
    )


def schema_example(schema: Any) -> Any:
    """A minimal value matching a JSON schema (enum: its first value), for JSON-mode helper calls."""
    if not isinstance(schema, dict):
        return None
    if schema.get("enum"):
        return schema["enum"][0]
    kind = str(schema.get("type", "object")).lower()
    if kind == "object":
        properties = schema.get("properties") or {}
        return {name: schema_example(sub) for name, sub in properties.items()}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return 0
    if kind == "boolean":
        return False
    return "scripted"


def _split(value: str, size: int = 24) -> list[str]:
    return [value[i : i + size] for i in range(0, len(value), size)] or [""]
