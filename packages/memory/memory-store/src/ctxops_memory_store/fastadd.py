# ruff: noqa: PTH110, PTH118
# os.path, not pathlib: this is the start path of every fresh `ctx mem add` process.
"""``ctx mem add`` without argparse, msgspec or the store (issue 23, item 4: constant-time CLI at any size).

The common write, a new memory that relates to no other, is done here from plain values, exactly as
``MemoryStore.quick_put`` does it: the same redaction, content hash and ties, the same write lock and marks
(``write_turn``), the same lookups in the read snapshot (its ``hashes`` and the entries of the new one's
kind and scope, ``snapshot.candidates``), the same file (``fastcli.render_plain``), the same snapshot rows
(``SnapshotWriter._put`` of the file's catalog record), trust record, generation and racy-window settling.
A test compares the two paths' files, rows and output byte for byte.

``main`` returns None, having written nothing, whenever it cannot be sure, and the full CLI then answers its
usual way: an option or form it does not parse, a configuration with a ``[memory]`` table or vectors that
may be on, no snapshot or one not in step, an exact duplicate, any older
entry the settle rules relate to the new one (``settle_rules``: it would fold, supersede or conflict), an
entry it cannot read. Nothing is printed before the memory is written.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing is not imported on this path; type checkers treat this name as True
if TYPE_CHECKING:
    from typing import Any

    from .snapshot import SnapshotWriter

KINDS = ("decision", "constraint", "convention", "lesson", "preference", "fact", "summary")
_VALUED = {"--kind": "kind", "--title": "title", "--body": "body", "--root": "root"}
_LISTS = {"--scope": "scope", "--file": "files", "--tag": "tags", "--source": "source"}
_FLAGS = {"--pin": "pin", "--pending": "pending", "--json": "json"}


def parse(argv: list[str]) -> dict[str, Any] | None:
    """The options of the plain forms of ``add`` (as ``cli._parser`` reads them); None for anything else."""
    found: dict[str, Any] = {"kind": "fact", "body": None, "text": None, "root": None, "title": None}
    found.update({key: [] for key in _LISTS.values()})
    found.update({key: False for key in _FLAGS.values()})
    command = False
    i = 0
    while i < len(argv):
        arg = argv[i]
        name, eq, inline = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if name in _FLAGS and not eq:
            if name != "--json" and not command:
                return None
            found[_FLAGS[name]] = True
        elif name in _VALUED or name in _LISTS:
            if eq:
                value = inline
            elif i + 1 < len(argv) and not argv[i + 1].startswith("-"):
                value = argv[i + 1]
                i += 1
            else:
                return None  # a missing value, or one argparse may read as an option: its error, its way
            if name != "--root" and not command:
                return None
            if name in _LISTS:
                found[_LISTS[name]].append(value)
            else:
                found[_VALUED[name]] = value
        elif arg.startswith("-") or not arg:
            return None  # --help, another option, an abbreviation, `--`, a negative number: argparse's
        elif not command:
            if arg != "add":
                return None
            command = True
        elif found["text"] is None:
            found["text"] = arg
        else:
            return None
        i += 1
    if not command or found["title"] is None or found["kind"] not in KINDS:
        return None
    if found["text"] is not None and found["body"] is not None:
        return None  # the body given twice: the full CLI's error
    if (found["body"] if found["body"] is not None else found["text"]) == "-":
        return None  # the body from stdin: read once, by the path that will write it
    return found


def _utc(stamp: Any) -> str:
    """A UTC datetime as msgspec writes it (``Z``)."""
    text: str = stamp.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def utcnow() -> Any:
    from datetime import UTC, datetime

    return datetime.now(UTC)


def _config_default(root: str) -> bool:
    """Whether ``.meta/config.toml`` leaves every ``[memory]`` setting at its default and vectors surely off:
    then ``load_config`` would give the defaults (a file it cannot read: its error, so not sure)."""
    from .extras import vectors_maybe_on

    if vectors_maybe_on(root):
        return False
    path = os.path.join(root, ".meta", "config.toml")
    if not os.path.lexists(path):
        return True
    import tomllib

    from ctxops_contracts.shared.confine import read_config_text

    try:
        data = tomllib.loads(read_config_text(path))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError, ValueError):
        return False
    return "memory" not in data


def new_plain_entry(root: str, options: dict[str, Any], stamp: Any) -> dict[str, Any]:
    """``store.new_entry`` then ``MemoryStore._prepared`` on plain values (``plain_entry``'s keys and order)."""
    from ctxops_contracts.ids import new_ulid

    from . import ties
    from .fastcli import SCHEMA_VERSION
    from .similarity import content_hash

    given = options["body"] if options["body"] is not None else options["text"]
    from .redact_fields import redact_fields

    # new_entry redacts once, _prepared (every write path) once more: the same here
    once = redact_fields(
        options["title"].strip(),
        (given or "").strip(),
        scope=options["scope"],
        files=options["files"],
        tags=options["tags"],
        source=options["source"],
    )
    title, body, scope, files, tags, source = redact_fields(
        once[0], once[1], scope=once[2], files=once[3], tags=once[4], source=once[5]
    )
    kind = options["kind"]
    tied = [] if kind in ties.KINDS_UNTIED else plain_ties(root, f"{title}\n{body}", files)
    return {
        "schema_version": SCHEMA_VERSION,
        "id": new_ulid(),
        "kind": kind,
        "title": title,
        "body": body,
        "scope": scope,
        "files": files,
        "tags": tags,
        "source": source,
        "created_at": _utc(stamp),
        "valid_from": None,
        "valid_until": None,
        "superseded_by": None,
        "folded_into": None,
        "history": [],
        "pinned": bool(options["pin"]),
        "status": "pending" if options["pending"] else "active",
        "archive_reason": None,
        "content_hash": content_hash(kind, title, body, scope),
        "hits": 0,
        "last_used_at": None,
        "ties": tied,
    }


def plain_ties(root: str, text: str, files: list[str]) -> list[dict[str, Any]]:
    """``ties.tie`` (as ``MemoryStore._tied`` calls it) on plain values: the files the text names or lists,
    then, with the code map's tie source core registered, the symbols it names (the code map's lean read
    path: SQLite, no msgspec). A failure ties nothing at all, as ``_tied`` keeps the entry untied."""
    from . import ties

    try:
        tied = [{"path": p, "hash": h, "size": n, "symbol": None} for p, h, n in ties.path_ties(root, text, files)]
        source = ties.default_source(root)
        if source is None:
            return tied
        try:
            named = source.symbols_named(text[: ties.MAX_SCAN])
        except Exception:  # a missing, locked or old code index: paths alone (``ties.tie``)
            named = []
        for symbol_id, path in named[: ties.MAX_TIES]:
            found = ties.fingerprint(root, path)
            if found is not None and found[0] != ties.DIR_HASH:
                tied.append({"path": path, "hash": found[0], "size": found[1], "symbol": symbol_id})
    except (OSError, ValueError):
        return []  # as ``MemoryStore._tied``: best effort
    return tied


def main(argv: list[str]) -> int | None:
    """Add the memory as ``ctx mem add`` would; None: the full CLI answers (nothing written or printed)."""
    options = parse(argv)
    if options is None:
        return None
    from ctxops_contracts.shared.repo import NotARepository, find_root

    try:
        root = find_root(explicit=options["root"])
    except (NotARepository, OSError):
        return None
    from ctxops_contracts.shared.locks import LockBusy

    try:
        if not _config_default(root):
            return None
        added = add(root, options)
    except LockBusy as exc:  # a holder that never let go in WRITE_WAIT_S: said as the full CLI says it, once
        from ctxops_contracts.shared.cli import EXIT_DISK, CliError, report_error, typed_prog

        error = CliError(str(exc), "another ctx process holds the memory store; try again", code=EXIT_DISK)
        prog = f"{typed_prog('python -m ctxops_memory_store')} add"
        return report_error(error, prog=prog, json_mode=bool(options["json"]))
    except (OSError, ValueError, UnicodeError):
        return None
    if added is None:
        return None
    from .fastcli import _emit, _line

    data = {"action": "added", "entry": added, "folded": [], "superseded": [], "pinned_near_duplicates": []}
    data["review"] = []
    _emit(bool(options["json"]), data, [f"added: {_line(added)}"])
    return 0


def add(root: str, options: dict[str, Any], *, now: Any = None) -> dict[str, Any] | None:
    """Write the new memory (as ``MemoryStore.quick_put``) and give it; None: not sure, nothing written."""
    from ctxops_contracts.shared.confine import ensure_dir
    from ctxops_contracts.shared.layout import INDEX_DIR, MEMORY_DIR, META_DIR, ensure_meta

    from . import snapshot, write_turn

    index_dir = os.path.join(root, META_DIR, INDEX_DIR)
    memory_dir = os.path.join(root, META_DIR, MEMORY_DIR)
    if not os.path.exists(snapshot.path_for(index_dir)):
        return None
    entry = new_plain_entry(root, options, now or utcnow())
    stamp = now or utcnow()  # quick_put's own stamp: what valid_from takes
    ensure_meta(root)
    ensure_dir(index_dir)
    import sqlite3

    with write_turn.locked(index_dir) as unfinished:
        # A fresh process sweeps the index directory; the memory directory only after a writer died mid-write.
        write_turn.sweep_temp([memory_dir, index_dir] if unfinished else [index_dir])
        generation = write_turn.generation(index_dir)
        try:
            writer = snapshot.SnapshotWriter(index_dir, memory_dir)
        except (sqlite3.Error, OSError):
            return None
        try:
            writer.begin()
            if not snapshot.writable_in_step(writer, generation) or not _alone(writer, entry):
                writer.abort()
                return None
            if entry["status"] == "active":
                entry["valid_from"] = _utc(stamp)  # ``MemoryStore._settle``: valid from the write
            _write(root, memory_dir, index_dir, writer, entry)
        except sqlite3.Error:
            writer.abort()
            return None
        finally:
            writer.close()
    snapshot.settle_racy(index_dir, memory_dir)
    return entry


def _alone(writer: SnapshotWriter, entry: dict[str, Any]) -> bool:
    """Whether the write is a plain "added": no exact duplicate (``hashes``), and no older entry of its kind and
    scope that the settle rules relate to it (those ``snapshot.candidates`` gives, as the quick write reads)."""
    from types import SimpleNamespace

    from . import settle_rules, snapshot
    from .catalog import index_terms
    from .conflicts import features
    from .fastcli import plain_entry
    from .similarity import shingles
    from .terms import subject_of, tokens

    con = writer.con
    found = con.execute("SELECT min(file) FROM hashes WHERE hash = ?", (entry["content_hash"],)).fetchone()
    if found is not None and found[0] is not None:
        return False  # a duplicate: the full write says which entry, and vouches for it
    if entry["status"] != "active":
        return True  # pending: never settled against others
    from ctxops_contracts.shared import jsonlite

    new = SimpleNamespace(**entry)
    bucket = snapshot.bucket_of(entry["kind"], entry["scope"])
    terms, _ = index_terms(entry)
    candidates = snapshot.candidates(
        writer, bucket, entry["title"], terms, most=settle_rules.QUICK_BUCKET, top=settle_rules.QUICK_TOP
    )
    if not candidates:
        return True
    rules = settle_rules.Rules(
        new,
        fold_threshold=settle_rules.FOLD_THRESHOLD,
        shingles_of=lambda e: shingles(f"{e.title} {e.body}"),
        features_of=lambda e: features(e.title, e.body),
        title_key=lambda title: (subject_of(title), frozenset(tokens(title))),
    )
    for _name, data in candidates:
        old = plain_entry(jsonlite.loads(data))
        if old is None:
            return False  # an entry this path cannot vouch for: the full write reads it its way
        view = SimpleNamespace(**old)
        if settle_rules.comparable(new, view) and rules.relation(view) is not None:
            return False
    return True


def _write(root: str, memory_dir: str, index_dir: str, writer: SnapshotWriter, entry: dict[str, Any]) -> None:
    """``MemoryStore._save`` of a new entry in a quick write, then ``_quick_settle``'s commit."""
    import sqlite3

    from ctxops_contracts.shared.confine import confined
    from ctxops_contracts.shared.files import atomic_write
    from ctxops_contracts.shared.layout import COMMITTED_FILE_MODE
    from ctxops_contracts.shared.lazylog import get_logger

    from . import snapshot, trust, write_turn
    from .catalog import parse_file
    from .fastcli import render_plain
    from .fields import file_name_of

    log = get_logger("ctxops_memory_store.store")
    name = file_name_of(entry["id"], entry["kind"], entry["title"])
    path = confined(memory_dir, name)
    atomic_write(path, render_plain(entry), mode=COMMITTED_FILE_MODE)  # committed: 0644, as git checks it out
    record = parse_file(path, name)
    noted = True
    try:
        writer._put(name, record, replace=True)
    except sqlite3.Error as exc:
        log.warning("memory snapshot not updated for %s: %s", name, exc)
        writer.abort()
        noted = False
    written = record.get("entry")
    try:  # a quick write knows only some entries: the trust file is compacted by a full write (``_vouch``)
        trust.record_hashes(root, [trust.entry_hash(written)] if isinstance(written, dict) else [])
    except OSError as exc:  # LockBusy too (a TimeoutError): the memory is written, its injection waits for review
        log.warning("could not record the memory as written here (%s): `ctx mem review` accepts it", exc)
    generation = write_turn.bump_generation(index_dir)
    if noted:
        snapshot.mark_quick(writer, generation)


if __name__ == "__main__":  # pragma: no cover - the console scripts call ``fastcli.main``
    sys.exit(main(sys.argv[1:]) or 0)
