"""Markdown with TOML front matter (``+++`` fences): parse strictly, render deterministically.

Rendering uses a fixed key order and one value per line so a change to one field is a one-line diff.
"""

from __future__ import annotations

import json
import re
import tomllib
from datetime import UTC, datetime
from typing import Any

FENCE = "+++"
_TOML_LINE = re.compile(r"at line (\d+)")


class FrontMatterError(ValueError):
    """A memory file whose front matter cannot be read; names the file and the line."""

    def __init__(self, path: str, line: int, message: str) -> None:
        self.path = path
        self.line = line
        self.message = message
        super().__init__(f"{path}:{line}: {message}")


def split(text: str, path: str) -> tuple[dict[str, Any], str, int]:
    """(front matter, body, line number where the body starts) of one file."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != FENCE:
        raise FrontMatterError(path, 1, f"expected '{FENCE}' on the first line to open the front matter")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == FENCE)
    except StopIteration:
        raise FrontMatterError(
            path, len(lines), f"front matter opened on line 1 is never closed with '{FENCE}'"
        ) from None
    try:
        data = tomllib.loads("\n".join(lines[1:end]))
    except tomllib.TOMLDecodeError as exc:
        match = _TOML_LINE.search(str(exc))
        # tomllib counts from the first front-matter line; "at end of document" means the last one.
        line = int(match.group(1)) + 1 if match else max(end, 2)
        raise FrontMatterError(path, line, f"invalid TOML: {exc}") from None
    body_lines = lines[end + 1 :]
    start = end + 2
    if body_lines and not body_lines[0].strip():
        body_lines = body_lines[1:]
        start += 1
    return data, "\n".join(body_lines).rstrip("\n"), start


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to front matter")


def render(fields: list[tuple[str, Any]], body: str) -> str:
    """A Markdown file: front matter with ``fields`` in the given order (None values omitted), then ``body``."""
    out = [FENCE]
    out += [f"{key} = {_value(value)}" for key, value in fields if value is not None]
    out.append(FENCE)
    out.append("")
    if body:
        out.append(body.rstrip("\n"))
    return "\n".join(out) + "\n"
