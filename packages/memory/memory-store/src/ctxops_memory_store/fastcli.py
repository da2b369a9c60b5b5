# ruff: noqa: PTH118
# os.path, not pathlib: this is the start path of every fresh `ctx mem search|show` process.
"""``ctx mem search|show`` without building the CLI (issue 23, item 4: constant-time CLI at any store size).

A fresh process answers ``search WORDS`` and ``show ID`` from the read snapshot (``snapshot.py``, SQLite) and
the entry's own file, importing neither argparse nor msgspec (~80 ms of CPU on its own on the shared
machine), nor pathlib, the store, its config or DuckDB. An entry is printed from its plain values
(``plain_entry``): exactly what ``to_builtins(convert(MemoryEntry, ...))`` gives (a test compares them), or
None when this module is not sure, and then the ordinary CLI answers.

``main`` returns None for anything it does not handle (an option it does not know, ``--help``, a store
without a snapshot, a value it cannot vouch for, a tie that changed): the caller then runs the full CLI,
which gives the same answer, or the error, its usual way. Nothing is printed before the answer is known.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing is not imported on this path; type checkers treat this name as True
if TYPE_CHECKING:
    from typing import Any

KINDS = frozenset({"decision", "constraint", "convention", "lesson", "preference", "fact", "summary"})
STATUSES = frozenset({"pending", "active", "folded", "superseded", "archived", "rejected"})
_STR_LISTS = ("scope", "files", "tags", "source", "history")
_OPT_STR = ("superseded_by", "folded_into", "archive_reason")
_OPT_TIME = ("valid_from", "valid_until", "last_used_at")
SCHEMA_VERSION = "1.2"  # ctxops_contracts.SCHEMA_VERSION (a test keeps them equal): another one, the full CLI


def _time(value: object) -> str | None:
    """An RFC 3339 timestamp with a zone as msgspec writes it (UTC as ``Z``), or None when unsure."""
    if not isinstance(value, str) or len(value) < 20 or len(value) > 40:
        return None
    from datetime import datetime

    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    if parsed.tzinfo is None or parsed.isoformat() != value or parsed.utcoffset() is None:
        return None
    if value.endswith("+00:00"):
        return value[:-6] + "Z"
    return value


def _str_list(value: object) -> list[str] | None:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None
    return list(value)


def plain_entry(data: object) -> dict[str, Any] | None:
    """``to_builtins(convert(MemoryEntry, data))`` for a catalog entry's plain values, or None when unsure."""
    if not isinstance(data, dict):
        return None
    version = data.get("schema_version", SCHEMA_VERSION)
    if version != SCHEMA_VERSION:
        return None
    if not isinstance(data.get("id"), str) or not isinstance(data.get("title"), str):
        return None
    if data.get("kind") not in KINDS:
        return None
    out: dict[str, Any] = {"schema_version": version, "id": data["id"], "kind": data["kind"], "title": data["title"]}
    body = data.get("body", "")
    if not isinstance(body, str):
        return None
    out["body"] = body
    for key in ("scope", "files", "tags", "source"):
        found = _str_list(data.get(key, []))
        if found is None:
            return None
        out[key] = found
    created = _time(data.get("created_at"))
    if created is None:
        return None
    out["created_at"] = created
    for key in ("valid_from", "valid_until"):
        value = data.get(key)
        out[key] = None if value is None else _time(value)
        if value is not None and out[key] is None:
            return None
    for key in ("superseded_by", "folded_into"):
        value = data.get(key)
        if value is not None and not isinstance(value, str):
            return None
        out[key] = value
    history = _str_list(data.get("history", []))
    pinned = data.get("pinned", False)
    status = data.get("status", "active")
    if history is None or not isinstance(pinned, bool) or status not in STATUSES:
        return None
    out["history"], out["pinned"], out["status"] = history, pinned, status
    reason, digest, hits = data.get("archive_reason"), data.get("content_hash", ""), data.get("hits", 0)
    if (reason is not None and not isinstance(reason, str)) or not isinstance(digest, str):
        return None
    if type(hits) is not int or hits < 0:
        return None
    out["archive_reason"], out["content_hash"], out["hits"] = reason, digest, hits
    used = data.get("last_used_at")
    out["last_used_at"] = None if used is None else _time(used)
    if used is not None and out["last_used_at"] is None:
        return None
    ties = data.get("ties", [])
    if not isinstance(ties, list):
        return None
    plain_ties = []
    for tie in ties:
        if not isinstance(tie, dict):
            return None
        path, digest, size, symbol = tie.get("path"), tie.get("hash"), tie.get("size"), tie.get("symbol")
        if not isinstance(path, str) or not isinstance(digest, str) or type(size) is not int or size < 0:
            return None
        if symbol is not None and not isinstance(symbol, str):
            return None
        plain_ties.append({"path": path, "hash": digest, "size": size, "symbol": symbol})
    out["ties"] = plain_ties
    return out


def _line(entry: dict[str, Any], score: float | None = None) -> str:
    """``cli._line`` for a plain entry without review problems."""
    flags = ("pinned " if entry["pinned"] else "") + (entry["status"] if entry["status"] != "active" else "")
    scope = f"  [{', '.join(entry['scope'])}]" if entry["scope"] else ""
    lead = f"{score:6.2f}  " if score is not None else ""
    line = f"{lead}{entry['id'][-8:]}  {entry['kind']:<10} {entry['title']}{scope}"
    return line + (f"  ({flags.strip()})" if flags else "")


def _emit(json_mode: bool, data: object, lines: list[str]) -> None:
    from ctxops_contracts.shared import jsonlite

    if json_mode:
        # ``ctxops_contracts.shared.cli.emit_json``: compact, non-ASCII kept
        sys.stdout.write(jsonlite.dumps(data, ensure_ascii=False, compact=True) + "\n")
    else:
        sys.stdout.write("".join(line + "\n" for line in lines))
    sys.stdout.flush()


def _parse(argv: list[str]) -> tuple[str, list[str], str | None, bool, int] | None:
    """(command, words, --root, --json, --limit) for the plain forms of ``search`` and ``show``; None otherwise."""
    root: str | None = None
    json_mode = False
    limit = 10
    words: list[str] = []
    command = ""
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--json":
            json_mode = True
        elif arg == "--root" and i + 1 < len(argv) and not argv[i + 1].startswith("-"):
            root = argv[i + 1]
            i += 1
        elif arg.startswith("--root=") and len(arg) > 7:
            root = arg[7:]
        elif arg == "--limit" and command == "search" and i + 1 < len(argv) and argv[i + 1].isdigit():
            limit = int(argv[i + 1])
            i += 1
        elif arg.startswith("-") or not arg:
            return None  # --help, another option, `--`, a negative number: argparse's
        elif not command:
            command = arg
        else:
            words.append(arg)
        i += 1
    if command not in {"search", "show"} or not words or limit < 1:
        return None
    if command == "show" and len(words) != 1:
        return None
    return command, words, root, json_mode, limit


def _command(argv: list[str]) -> str | None:
    """The first word that is not an option or ``--root``'s value."""
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--root":
            skip = True
        elif not arg.startswith("-"):
            return arg
    return None


def main(argv: list[str]) -> int | None:
    """Answer ``search``/``show`` from the snapshot, ``add`` a memory that relates to no other (``fastadd``),
    ``reconcile`` (``after_git``); None: the full CLI answers (nothing was printed)."""
    if _command(argv) == "add":
        from .fastadd import main as add_main

        return add_main(argv)
    if _command(argv) == "reconcile":  # the git hooks, after every pull, checkout and rewrite
        from .after_git import main as reconcile_main

        return reconcile_main(argv)
    parsed = _parse(argv)
    if parsed is None:
        return None
    command, words, explicit, json_mode, limit = parsed
    from ctxops_contracts.shared.repo import NotARepository, find_root

    try:
        root = find_root(explicit=explicit)
    except (NotARepository, OSError):
        return None  # the full CLI says so, its way
    from ctxops_contracts.shared.layout import INDEX_DIR, MEMORY_DIR, META_DIR

    memory_dir = os.path.join(root, META_DIR, MEMORY_DIR)
    index_dir = os.path.join(root, META_DIR, INDEX_DIR)
    try:
        if command == "search":
            return _search(root, index_dir, memory_dir, " ".join(words), limit=limit, json_mode=json_mode)
        return _show(root, index_dir, memory_dir, words[0], json_mode=json_mode)
    except (OSError, ValueError, UnicodeError):
        return None


def _review_clean(root: str, entries: list[dict[str, Any]]) -> bool:
    """Whether every tie of these entries still holds (else the full CLI names the problems)."""
    from .ties import check

    cache: dict[str, tuple[str, int] | None] = {}
    return not any(entry["ties"] and check(root, entry["ties"], cache) for entry in entries)


def _search(root: str, index_dir: str, memory_dir: str, query: str, *, limit: int, json_mode: bool) -> int | None:
    from . import snapshot
    from .extras import vectors_maybe_on
    from .terms import tokens

    if vectors_maybe_on(root):
        return None  # search may fuse vectors with BM25 (``MemoryStore.hybrid_on``): the full CLI decides
    snap = snapshot.open_for_read(index_dir, memory_dir, small_ok=True)
    if snap is None:
        return None
    try:
        top = max(limit * 4, 40)
        terms = tokens(query)
        while True:  # as ``MemoryStore.quick_find``
            found = snap.search(terms, top)
            hits: list[tuple[dict[str, Any], float]] = []
            seen: set[str] = set()
            for data, score in found:
                entry = plain_entry(data)
                if entry is None:
                    return None  # invalid or unusual: the full CLI decides
                if entry["id"] in seen or entry["status"] != "active":
                    continue
                seen.add(entry["id"])
                hits.append((entry, score))
                if len(hits) >= limit:
                    break
            if len(hits) >= limit or len(found) < top:
                break
            top *= 4
    finally:
        snap.close()
    if not _review_clean(root, [e for e, _ in hits]):
        return None
    data = {"query": query, "engine": "snapshot", "hits": [{"score": s, **e} for e, s in hits]}
    lines = [_line(e, s) for e, s in hits] or [f"no memories match {query!r}; try fewer words or --all"]
    _emit(json_mode, data, lines)
    return 0 if hits else 1


def _show(root: str, index_dir: str, memory_dir: str, wanted_id: str, *, json_mode: bool) -> int | None:
    """``MemoryStore.quick_resolve``: the one file whose name carries the id's last 6 characters."""
    wanted = wanted_id.strip().upper()
    if len(wanted) < 6:
        return None
    tail = f"-{wanted[-6:].lower()}.md"
    from . import snapshot

    snap = snapshot.open_for_read(index_dir, memory_dir, small_ok=True)
    if snap is not None:  # the snapshot's file names (a scan in SQLite), and the files changed since
        try:
            rows = snap.con.execute("SELECT file FROM files WHERE file LIKE ?", (f"%{tail}",))
            names = [str(f) for (f,) in rows if str(f).endswith(tail) and str(f) not in snap.stale]
            names += [n for n in snap.overlay if n.endswith(tail)]
        finally:
            snap.close()
    else:
        with os.scandir(memory_dir) as it:
            names = [e.name for e in it if e.name.endswith(tail)]
    from .catalog import parse_file

    matches: list[tuple[dict[str, Any], str]] = []
    for name in names:
        path = os.path.join(memory_dir, name)
        entry = plain_entry(parse_file(path, name).get("entry"))
        if entry is None:
            return None
        if entry["id"].endswith(wanted):
            matches.append((entry, path))
    if len({e["id"] for e, _ in matches}) != 1:
        return None
    entry, path = matches[0]
    if not _review_clean(root, [entry]):
        return None
    if json_mode:
        _emit(True, {**entry, "path": path}, [])
    else:
        _emit(False, None, [f"# {path}", render_plain(entry).rstrip()])
    return 0


def render_plain(entry: dict[str, Any]) -> str:
    """``entry_file.render_entry`` for a plain entry (``plain_entry``'s values)."""
    from datetime import datetime

    from .fields import DEFAULTS, FIELD_ORDER
    from .frontmatter import render

    fields: list[tuple[str, Any]] = []
    for name in FIELD_ORDER:
        value = entry[name]
        if name in DEFAULTS and value == DEFAULTS[name] and name not in {"scope", "tags"}:
            continue
        if name == "ties":
            value = [{k: v for k, v in t.items() if v is not None} for t in value]
        elif name in {"created_at", *_OPT_TIME} and isinstance(value, str):
            value = datetime.fromisoformat(value.replace("Z", "+00:00") if value.endswith("Z") else value)
        fields.append((name, value))
    return render(fields, entry["body"])
