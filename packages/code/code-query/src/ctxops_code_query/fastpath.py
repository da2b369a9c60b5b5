"""The fresh-process fast path of `cq def NAME`: the commonest lookup answered with the standard library
only (os, sqlite3, re), before argparse, msgspec, pathlib or dataclasses are imported.

It answers when everything is ordinary: an index exists in the current format, the freshness check
finds nothing changed, and the name has definitions. Anything else (other commands or flags, a missing
or outdated index, edited files to reindex, a qualified name that matched nothing) returns None and the full path
answers, so behaviour never differs, only cost. It runs before the `cq serve` client: answering here
costs less than a round trip to a server that then renders with the full machinery. The answer goes
through the same `render` as every other (caps, budget, footer); `--json` prints the same `QueryResult`
fields, encoded by `json` instead of msgspec. Not used: the result cache (reading an entry costs about what the query
does) and the worker-thread deadline (the work is one indexed query and at most three file reads).
"""

# os.path on purpose: pathlib costs a fresh process several milliseconds to import.
# ruff: noqa: PTH110

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False  # typing is not imported on this path
if TYPE_CHECKING:
    from typing import Any

_VALUE_FLAGS = {"--max": "max", "--budget": "budget", "--width": "width", "--root": "root", "--deadline": "deadline"}
_BOOL_FLAGS = {"--json": "json", "--no-cache": "no_cache"}
_DEFAULT_DEADLINE = 2.0  # `deadline.DEFAULT_DEADLINE_S`, not imported: this path imports no threading
_FRESHNESS_SHARE = 0.75  # `service.FRESHNESS_SHARE`: the share of the deadline an update may take
_MAX_SAVED = 8  # more saved files than this: wait for the update instead (its answer covers everything)
_DEF_HINT = "qualify the name (Class.method) or scope it (path/to/file.py:NAME)"


class _Symbol:
    """A definition row of the lookup snapshot (`reader.SYMBOL_SELECT` columns), by attribute."""

    __slots__ = ("doc", "end_line", "id", "kind", "line", "name", "path", "qualname", "signature")

    def __init__(self, row: tuple[Any, ...]) -> None:
        self.id, self.name, self.qualname, self.kind, _lang, self.path, self.line, self.end_line = row[:8]
        self.signature, self.doc = row[8], row[9]


class _Hit:
    """A `QueryHit`'s fields without the record (rendered to text, or to its JSON form)."""

    __slots__ = ("confidence", "end_line", "kind", "line", "path", "resolution", "role", "score", "symbol_id", "text")

    def __init__(self, symbol: _Symbol, text: str) -> None:
        self.path = symbol.path
        self.line = symbol.line
        self.end_line = symbol.end_line
        self.text = text
        self.kind = symbol.kind
        self.symbol_id = symbol.id
        self.role = self.confidence = self.score = self.resolution = None


def parse(argv: list[str]) -> dict[str, Any] | None:
    """The options of a plain `cq def NAME` with `--json`, `--max N`, `--budget N`, `--width N`, `--root DIR`,
    `--deadline S` or `--no-cache` before or after the command (one grammar, one speed); None for anything
    else (argparse handles it, with its errors)."""
    opts: dict[str, Any] = {"json": False, "max": None, "budget": None, "width": 160, "root": None}
    positional: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        key, eq, value = arg.partition("=")
        if arg in _BOOL_FLAGS:
            opts[_BOOL_FLAGS[arg]] = True
        elif key in _VALUE_FLAGS:
            if not eq:
                i += 1
                if i >= len(argv):
                    return None
                value = argv[i]
            if key == "--root":
                opts["root"] = value
            else:
                try:
                    opts[_VALUE_FLAGS[key]] = float(value) if key == "--deadline" else int(value)
                except ValueError:
                    return None
        elif arg.startswith("-") or len(positional) >= 2:
            return None
        else:
            positional.append(arg)
        i += 1
    if len(positional) != 2 or positional[0] != "def":
        return None
    name = positional[1]
    if not name or not name.strip():
        return None
    if (opts["max"] is not None and opts["max"] < 1) or (opts["budget"] is not None and opts["budget"] < 20):
        return None
    if opts["width"] < 40:
        return None
    opts["name"] = name
    return opts


def find_root(given: str | None) -> str | None:
    """As `repo.find_root` (the shared finder); None when the full path must say what is wrong."""
    from ctxops_contracts.shared import repo

    alias = os.environ.get("CQ_ROOT")
    if alias and not os.environ.get(repo.ROOT_ENV):
        os.environ[repo.ROOT_ENV] = alias
    try:
        return repo.find_root(explicit=given)
    except repo.NotARepository:
        return None


def answer_def(argv: list[str]) -> tuple[str, int] | None:
    """The output and exit code of a plain `cq def`, or None when the full path must answer."""
    opts = parse(argv)
    if opts is None:
        return None
    root = find_root(opts["root"])
    if root is None:
        return None
    started = time.perf_counter()
    import sqlite3

    from ctxops_code_graph import reader
    from ctxops_code_graph.schema import INDEX_FORMAT

    suggestions: list[str] | None = None
    saved_rows: list[tuple[Any, ...]] | None = None
    saved_scans: dict[str, Any] = {}  # the saved files read for `saved_rows` (`overlay.scan_saved`)
    saved_paths: list[str] = []
    waited = False
    while True:
        snapshot = reader.current_snapshot(root)
        if snapshot is None or not os.path.exists(snapshot):
            return None  # no index yet: the full path builds it
        try:
            con = reader.connect(snapshot)
        except (sqlite3.Error, OSError):
            return None
        stale = None
        try:
            meta = reader.meta(con)
            fresh = meta.get("format") == INDEX_FORMAT and (stale := reader.staleness(root, con, meta)).fresh
        except (sqlite3.Error, OSError):
            fresh = None
        if fresh:
            break
        deadline = opts.get("deadline")
        if (
            stale is not None
            and not waited
            and (deadline is None or deadline > 0)
            and not stale.dirs_changed  # no file added or removed: the saved files are all there is
            and not stale.head_changed
            and len(stale.modified) <= _MAX_SAVED
            and opts["name"].isidentifier()
        ):
            # Files saved since the index: their definitions are read from them now (the update still runs
            # detached and commits for the next query and every other command).
            from ctxops_code_graph.background import start_early

            from .overlay import definition_rows, scan_saved

            start_early(root)
            try:
                saved_paths = sorted(stale.modified)
                saved_scans = scan_saved(root, saved_paths)
                saved_rows = definition_rows(con, opts["name"], saved_paths, saved_scans)
            except Exception:  # a broken .meta/config.toml, say: the full path reports it properly
                saved_rows = None
            if saved_rows is not None:
                break
        elif (
            stale is not None
            and not waited
            and (deadline is None or deadline > 0)
            and not stale.head_changed
            and len(stale.modified) <= _MAX_SAVED
        ):
            # A qualified name or a new file: the full path lays the saved files over the snapshot
            # (`overlay.SavedFiles`); waiting here for the update would only delay it.
            from ctxops_code_graph.background import start_early

            con.close()
            start_early(root)
            return None
        con.close()
        if fresh is None or meta.get("format") != INDEX_FORMAT:
            return None  # the full path rebuilds it
        if waited or (deadline is not None and deadline <= 0):
            return None  # without a deadline the full path updates in-process
        # Edited files: start the detached update and wait for it here, within the share of the deadline
        # the full path would give it, without importing the full path (which would compete with the
        # update for the CPU). Once it commits, this path answers from the fresh snapshot; otherwise the
        # full path adopts the update (the time waited here counts against its wait) and reports the stale files.
        from ctxops_code_graph.background import start_early, wait_early

        start_early(root)
        budget = (_DEFAULT_DEADLINE if deadline is None else deadline) * _FRESHNESS_SHARE
        if not wait_early(root, budget - (time.perf_counter() - started)):
            return None
        waited = True
    try:
        try:
            rows = reader.definition_rows(con, opts["name"]) if saved_rows is None else saved_rows
            if not rows:
                if not opts["name"].isidentifier():
                    return None  # a qualified or scoped name: the full path tries its other readings
                # A miss costs what a hit does: the suggestions come from one indexed query (and the saved
                # files' names, laid over it as their definitions are).
                from .suggest import suggest

                if saved_rows is None:
                    near = reader.names_near(con, opts["name"])
                else:
                    from .overlay import names

                    near = names(con, saved_paths, saved_scans, opts["name"])
                suggestions = suggest(opts["name"], near)
        finally:
            con.close()
    except (sqlite3.Error, OSError):
        return None
    from .answer import Answer
    from .defs import BODY_PREVIEW_HITS, body_preview, definition_text, read_lines
    from .render import DEFAULT_BUDGET, DEFAULT_MAX, Limits, render, result_dict

    answer = Answer(command="def", query=opts["name"], index_revision=meta.get("revision") or None)
    answer.hint = _DEF_HINT
    if saved_rows is not None:  # as `service` says it for the other commands
        from .overlay import saved_note

        answer.notes.append(saved_note(saved_paths))
    if suggestions is not None:  # as `commands._no_definition` words it
        answer.suggestions = suggestions
        answer.hint = f"cq search {opts['name']!r} for a fuzzy match, or cq grep {opts['name']!r}"
    lines: dict[str, list[str]] = {}

    def file_lines(path: str) -> list[str]:
        if path not in lines:
            lines[path] = read_lines(root, path)
        return lines[path]

    for i, row in enumerate(rows):
        symbol = _Symbol(row)
        preview = body_preview(file_lines, symbol) if i < BODY_PREVIEW_HITS else []
        answer.hits.append(_Hit(symbol, definition_text(symbol, preview)))  # type: ignore[arg-type]
    limits = Limits(
        max_hits=DEFAULT_MAX if opts["max"] is None else opts["max"],
        budget=DEFAULT_BUDGET if opts["budget"] is None else opts["budget"],
        width=opts["width"],
    )
    rendered = render(answer, limits, elapsed_ms=(time.perf_counter() - started) * 1000, make_result=result_dict)
    if opts["json"]:
        import json

        return json.dumps(rendered.result, ensure_ascii=False, separators=(",", ":")), rendered.exit_code
    return rendered.text, rendered.exit_code


def try_fast(argv: list[str]) -> int | None:
    """Print the fast path's answer and return its exit code; None when the full path must answer."""
    done = answer_def(argv)
    if done is None:
        return None
    sys.stdout.write(done[0] + "\n")
    return done[1]
