"""One entry for every query, shared by `cq` and the MCP server: index readiness, result cache,
deadline, rendering."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .answer import Answer
from .deadline import DEFAULT_DEADLINE_S, Deadline, run_with_deadline
from .errors import EXIT_DEADLINE, UsageError
from .render import DEFAULT_BUDGET, DEFAULT_MAX, DEFAULT_WIDTH, Limits, Rendered, render

FRESHNESS_SHARE = 0.75  # of the deadline, at most, spent waiting for an automatic update
# Commands answered from the index (the others read files or run ripgrep only).
INDEX_COMMANDS = frozenset({"def", "refs", "callers", "callees", "brief", "deps", "impact", "map", "search"})
COMMANDS = (
    "def",
    "refs",
    "callers",
    "callees",
    "brief",
    "deps",
    "impact",
    "map",
    "grep",
    "open",
    "search",
    "index",
    "status",
)
# `open` is the explicit "read this code" command: its hits are lines, so it gets larger defaults.
# `brief` is one answer (a file's outline, which stands in for reading the file): no practical hit cap,
# and a budget that holds the whole outline of most files (calendar.py, 768 dense lines: ~750 tokens).
# `search` is a ranking, not a list: past the first few hits relevance falls off, and narrowing the words
# beats reading further down (the vector baseline's top-5 is the same size).
COMMAND_DEFAULTS: dict[str, tuple[int, int]] = {"open": (80, 1200), "brief": (500, 1000), "search": (5, 300)}


def default_limits(command: str) -> tuple[int, int]:
    return COMMAND_DEFAULTS.get(command, (DEFAULT_MAX, DEFAULT_BUDGET))


@dataclass
class Request:
    command: str
    params: dict[str, Any] = field(default_factory=dict)
    max_hits: int | None = None
    budget: int | None = None
    width: int = DEFAULT_WIDTH
    deadline_s: float | None = DEFAULT_DEADLINE_S
    use_cache: bool = True

    def limits(self) -> Limits:
        dmax, dbudget = default_limits(self.command)
        max_hits = dmax if self.max_hits is None else self.max_hits
        budget = dbudget if self.budget is None else self.budget
        if max_hits < 1:
            raise UsageError(f"--max {max_hits} must be at least 1", fix="use --max 1 or more")
        if budget < 20:
            raise UsageError(f"--budget {budget} is too small", fix="use --budget 20 or more (tokens)")
        if self.width < 40:
            raise UsageError(f"--width {self.width} is too small", fix="use --width 40 or more")
        return Limits(max_hits=max_hits, budget=budget, width=self.width)


@dataclass
class Outcome:
    rendered: Rendered
    cached: bool = False
    index_notice: str | None = None


def _operation(command: str) -> Callable[..., Answer]:
    from . import commands

    if command == "search":
        from .search import cmd_search

        return cmd_search
    op: Callable[..., Answer] = getattr(commands, f"cmd_{command}")
    return op


# Graph commands a provisional scan answers by name only while the first build runs (`provisional`).
PROVISIONAL_GRAPH_COMMANDS = frozenset({"refs", "callers", "callees", "impact", "deps"})


def execute(root: Path, request: Request, *, open_index: Callable[[Path], Any] | None = None) -> Outcome:
    """Run one query command (not `index`/`status`, see `reports`) and render it."""
    from .context import QueryContext

    started = time.perf_counter()
    limits = request.limits()
    ctx = QueryContext(root=root, open_index=open_index or _open_graph_index)
    freshness_s = 0.0
    if request.command in INDEX_COMMANDS:
        # Freshness first, bounded by three quarters of the deadline (an indexed lookup needs far less than
        # the rest): an update that cannot finish in time goes on in a detached process and commits, and
        # this answer comes from the current snapshot with the files still pending listed as stale (never
        # a deadline spent on an update that is then thrown away).
        fresh_started = time.perf_counter()
        wait = None if request.deadline_s is None or request.deadline_s <= 0 else request.deadline_s * FRESHNESS_SHARE
        ctx.index.freshen(wait)
        freshness_s = time.perf_counter() - fresh_started
    cache = None
    cache_args = {**request.params, "max": limits.max_hits, "budget": limits.budget, "width": limits.width}
    # Only index answers are cached: their key holds the index generation. File reads are not.
    if request.command in INDEX_COMMANDS and request.use_cache:
        from . import __version__
        from .cache import ResultCache
        from .repo import index_dir

        # The answering code's version is part of the generation: an upgraded cq never serves answers
        # rendered by the old one.
        cache = ResultCache(index_dir(root) / "cq-cache", f"cq {__version__}|{ctx.index.generation()}")
        hit = cache.get(request.command, cache_args)
        if hit is not None:
            return Outcome(_rendered_from_cache(hit), cached=True)
    # A first build (ensure_index) happened before: announced, not cut short. The freshness wait counts.
    if request.command in INDEX_COMMANDS:
        _ = ctx.index
    if request.command == "search":
        from .search import CANDIDATE_FILES, prepare, prepare_vectors

        prepare(ctx)
        if request.params.get("vector"):
            # LanceDB's import, a model's load and embedding the candidates are set-up, not the query's time
            files = request.params.get("files", CANDIDATE_FILES)
            prepare_vectors(ctx, request.params["text"], files=files)
    deadline_s = request.deadline_s
    if deadline_s is not None and deadline_s > 0:
        deadline_s = max(deadline_s - freshness_s, 0.05 * deadline_s)  # the freshness wait counts against it
    ctx.deadline = Deadline(deadline_s)
    op = _operation(request.command)
    holder: list[Answer] = []

    def work() -> Answer:
        answer = op(ctx, **request.params)
        holder.append(answer)
        return answer

    answer, finished = run_with_deadline(work, ctx.deadline)
    if not finished or answer is None:
        # The operation did not return in time: render what it had collected, marked partial.
        answer = holder[0].snapshot() if holder else Answer(command=request.command, query=_query_of(request))
        answer.partial = True
    saved: list[str] = getattr(ctx.index, "saved_files", list)() if request.command in INDEX_COMMANDS else []
    if saved:  # answered from files saved since the snapshot (`overlay.SavedFiles`)
        from .overlay import MAP_NOTE, saved_note

        answer.notes.append(saved_note(saved))
        if request.command == "map":
            answer.notes.append(MAP_NOTE)
    # A provisional scan (`provisional.ProvisionalIndex`) says what it read. (`ctx.index` opens the index:
    # only for the commands that read it.)
    scanned = getattr(ctx.index, "scanned", None) if request.command in PROVISIONAL_GRAPH_COMMANDS else None
    if scanned is not None and "provisional" not in (answer.empty_reason or ""):
        capped = getattr(ctx.index, "capped", 0)
        answer.notes.append(
            f"provisional: uses by name only, from a scan of {len(scanned)} files"
            + (f" ({capped} more files mention the name, not read)" if capped else "")
            + "; the full index is still being built, then certain answers follow"
        )
    rendered = render(answer, limits, elapsed_ms=(time.perf_counter() - started) * 1000)
    if cache is not None and rendered.exit_code != EXIT_DEADLINE:
        cache.put(request.command, cache_args, _rendered_to_cache(rendered))
    return Outcome(rendered)


# Set by `cq serve`: one open index per repository, reused across requests, so its freshness check runs
# at most once per `CodeIndex.check_interval` (1 s) instead of on every query.
_SHARED: dict[Path, Any] = {}
_SHARING: list[bool] = []


def share_open_indexes() -> None:
    _SHARING.append(True)


def _open_graph_index(root: Path) -> Any:
    # Imported on first use: `grep` and `open FILE:A-B` never touch the index.
    from .graph_backend import open_index

    if not _SHARING:
        return open_index(root)
    backend = _SHARED.get(root)
    if backend is None or backend.replaced():
        backend = _SHARED[root] = open_index(root)
    return backend


def _query_of(request: Request) -> str:
    for key in ("name", "text", "pattern", "spec", "path", "target", "query"):
        if request.params.get(key):
            return str(request.params[key])
    return ""


def _rendered_to_cache(rendered: Rendered) -> dict[str, Any]:
    from ctxops_contracts import to_builtins

    return {"text": rendered.text, "result": to_builtins(rendered.result), "exit_code": rendered.exit_code}


def _rendered_from_cache(entry: dict[str, Any]) -> Rendered:
    from ctxops_contracts import QueryResult, convert

    return Rendered(text=entry["text"], result=convert(QueryResult, entry["result"]), exit_code=int(entry["exit_code"]))
