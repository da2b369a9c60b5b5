"""Markdown with TOML front matter (``+++`` fences): parse strictly, render deterministically.

Rendering goes through a real TOML writer (tomli-w, which escapes control characters) in a fixed key
order, so what is written always reads back, and a change to one field is a small diff.
"""

from __future__ import annotations

from datetime import UTC, datetime

from ctxops_contracts.shared.regex import compile as re_compile

TYPE_CHECKING = False  # typing is not imported on the inject hook's path; type checkers treat this as True
if TYPE_CHECKING:
    from typing import Any

FENCE = "+++"
_TOML_LINE = re_compile(r"at line (\d+)")


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
    front = "\n".join(lines[1:end])
    from .frontmatter_fast import parse

    found = parse(front)  # what the store writes, without tomllib's import (~8-15 ms of a fresh process)
    data = found if found is not None else _tomllib_loads(path, front, end)
    body_lines = lines[end + 1 :]
    start = end + 2
    if body_lines and not body_lines[0].strip():
        body_lines = body_lines[1:]
        start += 1
    return data, "\n".join(body_lines).rstrip("\n"), start


def _tomllib_loads(path: str, front: str, end: int) -> dict[str, Any]:
    import tomllib  # any other TOML a person wrote: tomllib reads it, and names the line of an error

    try:
        return tomllib.loads(front)
    except tomllib.TOMLDecodeError as exc:
        match = _TOML_LINE.search(str(exc))
        # tomllib counts from the first front-matter line; "at end of document" means the last one.
        line = int(match.group(1)) + 1 if match else max(end, 2)
        raise FrontMatterError(path, line, f"invalid TOML: {exc}") from None


def _plain(value: Any) -> Any:
    """Datetimes in UTC (a reviewer reads one zone); everything else as TOML takes it."""
    if isinstance(value, datetime):
        return value.astimezone(UTC)
    return value


def render(fields: list[tuple[str, Any]], body: str) -> str:
    """A Markdown file: front matter with ``fields`` in the given order (None values omitted), then ``body``."""
    import tomli_w  # only writers pay for it

    table = {key: _plain(value) for key, value in fields if value is not None}
    out = [FENCE, tomli_w.dumps(table).rstrip("\n"), FENCE]
    out.append("")
    if body:
        out.append(body.rstrip("\n"))
    return "\n".join(out) + "\n"
