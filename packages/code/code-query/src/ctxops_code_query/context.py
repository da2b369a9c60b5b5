"""`QueryContext`: the repository, its index (opened lazily) and the deadline of one query."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from .backend import CodeIndex
from .deadline import Deadline


@dataclass
class QueryContext:
    root: Path
    open_index: Callable[[Path], CodeIndex]
    deadline: Deadline = field(default_factory=lambda: Deadline(None))
    _lines_cache: dict[str, list[str]] = field(default_factory=dict, repr=False)
    derived: dict[str, object] = field(default_factory=dict, repr=False)  # per-query results, e.g. search docs

    @cached_property
    def index(self) -> CodeIndex:
        return self.open_index(self.root)

    def file_lines(self, path: str) -> list[str]:
        """Lines of a repository file (cached per query; missing or unreadable files give [])."""
        lines = self._lines_cache.get(path)
        if lines is None:
            try:
                data = (self.root / path).read_bytes()
            except OSError:
                data = b""
            lines = data.decode("utf-8", "replace").splitlines()
            self._lines_cache[path] = lines
        return lines

    def line_text(self, path: str, line: int | None) -> str:
        if line is None:
            return ""
        lines = self.file_lines(path)
        return lines[line - 1].strip() if 0 < line <= len(lines) else ""
