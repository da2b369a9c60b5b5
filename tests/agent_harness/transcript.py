"""Read usage back out of Claude Code transcripts, to compare with what the server sent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def transcript_usages(path: Path) -> dict[str, dict[str, Any]]:
    """Usage per assistant message id in one transcript (Claude Code repeats it on every content-block line)."""
    found: dict[str, dict[str, Any]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        message = record.get("message") if isinstance(record, dict) else None
        if record.get("type") == "assistant" and isinstance(message, dict) and "usage" in message:
            entry = {"usage": message["usage"], "model": message.get("model"), "request_id": record.get("requestId")}
            found[str(message.get("id"))] = entry
    return found
