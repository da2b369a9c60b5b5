"""`Answer`: what an operation collects before the output discipline caps and budgets it."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from ctxops_contracts import QueryHit


@dataclass
class Answer:
    """The raw result of one operation.

    ``hits`` are in rank order. A hit's ``text`` is what follows its location on the line; further lines
    of it (after ``\\n``) are detail lines shown indented (the first lines of a body). Operations may run
    in a worker thread under a deadline, so appends go through `add` and readers take `snapshot`.
    """

    command: str
    query: str = ""
    hits: list[QueryHit] = field(default_factory=list)
    total: int | None = None
    grouped: bool = False
    partial: bool = False
    notes: list[str] = field(default_factory=list)
    stale_files: list[str] = field(default_factory=list)
    index_revision: str | None = None
    hint: str | None = None
    suggestions: list[str] = field(default_factory=list)
    empty_reason: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, hit: QueryHit) -> None:
        with self._lock:
            self.hits.append(hit)

    def snapshot(self) -> Answer:
        """A copy safe to render while a worker may still append to this one."""
        with self._lock:
            return Answer(
                command=self.command,
                query=self.query,
                hits=list(self.hits),
                total=self.total,
                grouped=self.grouped,
                partial=self.partial,
                notes=list(self.notes),
                stale_files=list(self.stale_files),
                index_revision=self.index_revision,
                hint=self.hint,
                suggestions=list(self.suggestions),
                empty_reason=self.empty_reason,
            )

    @property
    def count(self) -> int:
        """All results found, shown or not."""
        return max(self.total or 0, len(self.hits))
