"""One memory entry as one Markdown file: stable name, TOML front matter with the entry's fields, body below."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxops_contracts import ContractError, MemoryEntry, UnsupportedSchemaVersion, convert, to_builtins
from ctxops_contracts.shared.confine import checked_dir, read_regular

from .fields import DEFAULTS, FIELD_ORDER, file_name_of
from .frontmatter import FrontMatterError, render, split

_DEFAULTS = DEFAULTS
MAX_ENTRY_BYTES = 1_000_000  # as the catalog: a memory is a paragraph or two


def file_name(entry: MemoryEntry) -> str:
    """``<kind>-<slug>-<last 6 of id>.md``: readable, sorted by kind, unique by id, stable after edits."""
    return file_name_of(entry.id, entry.kind, entry.title)


def render_entry(entry: MemoryEntry) -> str:
    fields: list[tuple[str, Any]] = []
    for name in FIELD_ORDER:
        value = getattr(entry, name)
        if name in _DEFAULTS and value == _DEFAULTS[name] and name not in {"scope", "tags"}:
            continue
        if name == "ties":
            value = [{k: v for k, v in to_builtins(t).items() if v is not None} for t in value]
        fields.append((name, value))
    return render(fields, entry.body)


def parse_entry(text: str, path: str) -> MemoryEntry:
    """The entry in one file; FrontMatterError names the path and line of any problem."""
    data, body, _ = split(text, path)
    data["body"] = body
    try:
        return convert(MemoryEntry, data, where=path)
    except (ContractError, UnsupportedSchemaVersion) as exc:
        field = re.search(r"`\$\.(\w+)`", str(exc))
        line = _line_of(text, field.group(1)) if field else 2
        raise FrontMatterError(path, line, str(exc).split(": ", 1)[-1]) from None


def _line_of(text: str, key: str) -> int:
    for number, line in enumerate(text.split("\n"), 1):
        if line.split("=", 1)[0].strip() == key:
            return number
    return 2


@dataclass
class LoadResult:
    """Entries found in a memory directory (with their files) and the files that could not be read."""

    entries: dict[str, tuple[MemoryEntry, Path]]
    errors: list[FrontMatterError]


def load_directory(directory: Path) -> LoadResult:
    """Every ``*.md`` entry under ``directory``; a broken file is reported and the rest still load."""
    entries: dict[str, tuple[MemoryEntry, Path]] = {}
    errors: list[FrontMatterError] = []
    if not checked_dir(directory):  # a symlinked .meta or .meta/memory raises UnsafePath
        return LoadResult(entries, errors)
    for path in sorted(directory.glob("*.md")):
        if path.is_symlink() or not path.is_file():
            errors.append(FrontMatterError(str(path), 1, "not a regular file (a symlink, FIFO or device): not read"))
            continue
        if path.stat().st_size > MAX_ENTRY_BYTES:
            errors.append(FrontMatterError(str(path), 1, f"larger than {MAX_ENTRY_BYTES // 1_000_000} MB: not read"))
            continue
        try:
            entry = parse_entry(read_regular(str(path), MAX_ENTRY_BYTES).decode("utf-8"), str(path))
        except UnicodeDecodeError as exc:
            errors.append(FrontMatterError(str(path), 1, f"not UTF-8 text ({exc.reason})"))
            continue
        except OSError as exc:
            errors.append(FrontMatterError(str(path), 1, f"unreadable ({exc})"))
            continue
        except FrontMatterError as exc:
            errors.append(exc)
            continue
        if entry.id in entries:
            errors.append(FrontMatterError(str(path), 2, f"duplicate id {entry.id} (also in {entries[entry.id][1]})"))
            continue
        entries[entry.id] = (entry, path)
    return LoadResult(entries, errors)
