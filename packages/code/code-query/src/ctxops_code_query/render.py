"""The output discipline (DESIGN.md section 4): one hit per line, caps, a counted token budget,
explicit truncation with a hint, `no matches for ...` with a suggestion, and a freshness footer."""

from __future__ import annotations

from .tokens import estimate_tokens

TYPE_CHECKING = False  # no dataclasses, typing or contracts at import: the fresh-process fast path renders too
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ctxops_contracts import QueryHit, QueryResult

    from .answer import Answer

DEFAULT_MAX = 10
DEFAULT_BUDGET = 300
DEFAULT_WIDTH = 160
MAX_STALE_SHOWN = 3
_ELLIPSIS = "…"
POSSIBLE_LABEL = "-- possible, by name only (not resolved; may be another symbol of the same name):"


class Limits:
    """How much one answer may carry."""

    __slots__ = ("budget", "max_hits", "width")

    def __init__(self, max_hits: int = DEFAULT_MAX, budget: int = DEFAULT_BUDGET, width: int = DEFAULT_WIDTH) -> None:
        self.max_hits = max_hits
        self.budget = budget
        self.width = width

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Limits):
            return NotImplemented
        return (self.max_hits, self.budget, self.width) == (other.max_hits, other.budget, other.width)

    def __hash__(self) -> int:
        return hash((self.max_hits, self.budget, self.width))

    def __repr__(self) -> str:
        return f"Limits(max_hits={self.max_hits}, budget={self.budget}, width={self.width})"


class Rendered:
    """An answer in both forms; ``text`` is what a model reads, ``result`` the same facts as fields
    (a `QueryResult`; on the fast path its plain-dict form, which encodes to the same JSON)."""

    __slots__ = ("exit_code", "result", "text")

    def __init__(self, text: str, result: QueryResult, exit_code: int) -> None:
        self.text = text
        self.result = result
        self.exit_code = exit_code

    def __repr__(self) -> str:
        return f"Rendered(text={self.text!r}, exit_code={self.exit_code})"


def clip(line: str, width: int) -> str:
    """Cap a line at ``width`` characters, saying how much was cut."""
    if len(line) <= width:
        return line
    cut = len(line) - width
    marker = f"{_ELLIPSIS}[+{cut} chars]"
    return line[: max(1, width - len(marker))] + marker


def location(hit: QueryHit, *, grouped: bool) -> str:
    if grouped:
        return f"{hit.line:>5}" if hit.line is not None else ""
    if hit.line is None:
        return hit.path
    return f"{hit.path}:{hit.line}"


def hit_lines(hit: QueryHit, *, grouped: bool, width: int) -> list[str]:
    """The lines of one hit: its location and first text line, then indented detail lines."""
    first, *details = hit.text.split("\n") if hit.text else [""]
    loc = location(hit, grouped=grouped)
    head = f"{loc}  {first}" if first and loc else (loc or first)
    if grouped:
        head = "  " + head
    indent = "        " if grouped else "    "
    return [clip(head, width)] + [clip(indent + d, width) for d in details]


def footer_lines(answer: Answer) -> list[str]:
    parts: list[str] = []
    if answer.index_revision:
        parts.append(f"index {answer.index_revision}")
    if answer.stale_files:
        shown = ", ".join(answer.stale_files[:MAX_STALE_SHOWN])
        more = len(answer.stale_files) - MAX_STALE_SHOWN
        parts.append(f"stale: {shown}" + (f" (+{more})" if more > 0 else "") + " (run `cq index`)")
    return [f"-- {'; '.join(parts)}"] if parts else []


def _no_matches(answer: Answer) -> list[str]:
    what = f"{answer.command} {answer.query}".strip()
    line = f"no matches for {what}"
    if answer.empty_reason:
        line += f" ({answer.empty_reason})"
    lines = [line]
    if answer.suggestions:
        lines.append("did you mean: " + ", ".join(answer.suggestions))
    if answer.hint:
        lines.append(f"hint: {answer.hint}")
    return lines


def _more_line(omitted: int, *, by_budget: bool, limits: Limits, hint: str | None, ranked: bool = False) -> str:
    raise_what = "--budget" if by_budget else "--max"
    if ranked:
        # A ranking has no "rest of the list": what is cut is only less likely, so say it briefly.
        narrow = f", or {hint}" if hint else ""
        return f"... and {omitted} more, ranked lower (raise {raise_what}{narrow})"
    if by_budget:
        why = f"truncated at the ~{limits.budget}-token budget; raise --budget"
    else:
        why = f"capped at --max {limits.max_hits}; raise --max"
    narrow = f" or narrow: {hint}" if hint else ""
    return f"... and {omitted} more ({why}{narrow})"


def render(
    answer: Answer,
    limits: Limits,
    *,
    elapsed_ms: float = 0.0,
    make_result: Callable[..., Any] | None = None,
) -> Rendered:
    """Apply caps and the token budget; return the text form and the matching `QueryResult`.

    ``make_result`` builds the result from `QueryResult`'s fields (default: the record itself; the fast
    path passes `result_dict`, which needs no msgspec)."""
    build = make_result or _query_result
    from .errors import EXIT_DEADLINE, EXIT_NO_RESULTS, EXIT_OK

    total = answer.count
    footer = footer_lines(answer)
    partial_line = (
        [f"!! partial: the deadline expired after {len(answer.hits)} results (raise --deadline)"]
        if answer.partial
        else []
    )
    if not answer.hits:
        body = _no_matches(answer) if not answer.partial else []
        text = "\n".join(clip(x, limits.width) for x in [*answer.notes, *body, *partial_line, *footer])
        result = _result(build, answer, [], total=0, truncated=False, omitted=0, text=text, elapsed_ms=elapsed_ms)
        return Rendered(text, result, EXIT_DEADLINE if answer.partial else EXIT_NO_RESULTS)

    fixed = [clip(x, limits.width) for x in answer.notes]
    used = sum(estimate_tokens(x) + 1 for x in [*fixed, *partial_line, *footer])
    reserve = (
        estimate_tokens(_more_line(total, by_budget=True, limits=limits, hint=answer.hint, ranked=answer.ranked)) + 1
    )
    lines: list[str] = list(fixed)
    shown: list[QueryHit] = []
    current_file: str | None = None
    # A ranked, grouped answer picks its hits in rank order, then shows them grouped by file (files in
    # the order of their best hit), so the path is written once without reordering what is chosen.
    by_file: dict[str, list[str]] | None = {} if answer.ranked and answer.grouped else None
    by_budget = False
    cut_inside = False
    in_possible = False
    for hit in answer.hits[: max(1, limits.max_hits)]:
        block = hit_lines(hit, grouped=answer.grouped, width=limits.width)
        new_file = hit.path not in by_file if by_file is not None else hit.path != current_file
        # Name-only candidates come after the certain answers, under their own label.
        starts_possible = answer.possible is not None and hit.confidence == "name-only" and not in_possible
        if answer.grouped and (new_file or starts_possible):
            block.insert(0, clip(hit.path, limits.width))
        if starts_possible:
            block.insert(0, POSSIBLE_LABEL)
        cost = sum(estimate_tokens(x) + 1 for x in block)
        more_after = total - len(shown) - 1 > 0
        room = limits.budget - used - (reserve if more_after else 0)
        if cost > room:
            if shown:
                by_budget = True
                break
            # The first hit is always shown, cut to the room left, so an answer is never empty.
            block, cut_inside = _fit(block, max(room, 8), limits.width), True
            cost = sum(estimate_tokens(x) + 1 for x in block)
        if by_file is not None:
            by_file.setdefault(hit.path, []).extend(block)
        else:
            lines.extend(block)
        used += cost
        shown.append(hit)
        in_possible = in_possible or starts_possible
        current_file = hit.path
    if by_file is not None:
        lines.extend(line for block_lines in by_file.values() for line in block_lines)
    omitted = total - len(shown)
    if omitted > 0:
        lines.append(_more_line(omitted, by_budget=by_budget, limits=limits, hint=answer.hint, ranked=answer.ranked))
    lines.extend(partial_line)
    lines.extend(footer)
    text = "\n".join(lines)
    truncated = omitted > 0 or cut_inside
    result = _result(
        build, answer, shown, total=total, truncated=truncated, omitted=omitted, text=text, elapsed_ms=elapsed_ms
    )
    return Rendered(text, result, EXIT_DEADLINE if answer.partial else EXIT_OK)


def _fit(block: list[str], tokens: int, width: int) -> list[str]:
    """Keep the head line of a block, cut to about ``tokens`` tokens."""
    head = block[0]
    while len(head) > 20 and estimate_tokens(head) > tokens:
        head = head[: int(len(head) * 0.8)]
    return [head if head == block[0] else clip(head + _ELLIPSIS, width)]


def _query_result(**fields: Any) -> QueryResult:
    from ctxops_contracts import QueryResult

    return QueryResult(**fields)


HIT_FIELDS = ("path", "line", "end_line", "text", "kind", "symbol_id", "role", "confidence", "score", "resolution")
RESULT_FIELDS = (
    "schema_version",
    "command",
    "query",
    "hits",
    "total",
    "truncated",
    "omitted",
    "partial",
    "stale_files",
    "index_revision",
    "elapsed_ms",
    "token_estimate",
    "hint",
    "certain",
    "possible",
    "notes",
)


def result_dict(**fields: Any) -> dict[str, Any]:
    """`QueryResult`'s fields as the plain dict its JSON encoding holds (same keys, same order), built
    without msgspec (a test decodes the fast path's JSON strictly as a `QueryResult` and compares it with
    the normal path's)."""
    from ctxops_contracts.versioning import SCHEMA_VERSION

    fields["schema_version"] = SCHEMA_VERSION
    fields["hits"] = [{k: getattr(h, k) for k in HIT_FIELDS} for h in fields["hits"]]
    return {k: fields[k] for k in RESULT_FIELDS}


def _result(
    build: Callable[..., Any],
    answer: Answer,
    shown: list[QueryHit],
    *,
    total: int,
    truncated: bool,
    omitted: int,
    text: str,
    elapsed_ms: float,
) -> QueryResult:
    result: QueryResult = build(
        command=answer.command,
        query=answer.query,
        hits=shown,
        total=total,
        truncated=truncated,
        omitted=omitted,
        partial=answer.partial,
        stale_files=list(answer.stale_files),
        index_revision=answer.index_revision,
        elapsed_ms=round(elapsed_ms, 2),
        token_estimate=estimate_tokens(text),
        hint=("did you mean: " + ", ".join(answer.suggestions) if not shown and answer.suggestions else answer.hint),
        certain=answer.certain,
        possible=answer.possible,
        notes=list(answer.notes),
    )
    return result
