"""`Answer`: what an operation collects before the output discipline caps and budgets it."""

from __future__ import annotations

from _thread import allocate_lock

TYPE_CHECKING = False  # no typing, dataclasses or contracts at import: the fresh-process fast path renders Answers
if TYPE_CHECKING:
    from ctxops_contracts import QueryHit


class Answer:
    """The raw result of one operation.

    ``hits`` are in rank order. A hit's ``text`` is what follows its location on the line; further lines
    of it (after ``\\n``) are detail lines shown indented (the first lines of a body). A ``ranked`` answer
    (search) is a ranking, not a complete list: what is cut is "ranked lower", and when it is also
    ``grouped`` the hits are chosen in rank order, then shown grouped by file. Operations may run
    in a worker thread under a deadline, so appends go through `add` and readers take `snapshot`.
    Hits are `QueryHit` records, or objects with the same attributes (the fast path's plain hits).
    """

    def __init__(
        self,
        command: str,
        query: str = "",
        *,
        hits: list[QueryHit] | None = None,
        total: int | None = None,
        grouped: bool = False,
        ranked: bool = False,
        partial: bool = False,
        notes: list[str] | None = None,
        stale_files: list[str] | None = None,
        index_revision: str | None = None,
        hint: str | None = None,
        suggestions: list[str] | None = None,
        empty_reason: str | None = None,
        certain: int | None = None,
        possible: int | None = None,
    ) -> None:
        self.command = command
        self.query = query
        self.hits: list[QueryHit] = hits if hits is not None else []
        self.total = total
        self.grouped = grouped
        self.ranked = ranked
        self.partial = partial
        self.notes: list[str] = notes if notes is not None else []
        self.stale_files: list[str] = stale_files if stale_files is not None else []
        self.index_revision = index_revision
        self.hint = hint
        self.suggestions: list[str] = suggestions if suggestions is not None else []
        self.empty_reason = empty_reason
        # refs/callers/impact: answers resolved for certain, and candidates by name only (listed after them)
        self.certain = certain
        self.possible = possible
        self._lock = allocate_lock()

    def __repr__(self) -> str:
        return (
            f"Answer(command={self.command!r}, query={self.query!r}, hits={len(self.hits)}, total={self.total!r},"
            f" partial={self.partial!r})"
        )

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
                ranked=self.ranked,
                partial=self.partial,
                notes=list(self.notes),
                stale_files=list(self.stale_files),
                index_revision=self.index_revision,
                hint=self.hint,
                suggestions=list(self.suggestions),
                empty_reason=self.empty_reason,
                certain=self.certain,
                possible=self.possible,
            )

    @property
    def count(self) -> int:
        """All results found, shown or not."""
        return max(self.total or 0, len(self.hits))
