"""``python -m ctxops_memory_store`` / ``ctx mem``: the memory store for people and agents.

Every command takes ``--json``. Exit codes: 0 done, 1 nothing found, 2 usage or environment error.
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from typing import Any

from ctxops_contracts import MemoryEntry, to_builtins
from ctxops_contracts.shared.cli import (
    EXIT_DISK,
    EXIT_EMPTY,
    EXIT_OK,
    CliError,
    Parser,
    add_common_options,
    disk_error,
    emit_json,
    json_requested,
    parse_time,
    report_error,
    typed_prog,
)
from ctxops_contracts.shared.locks import LockBusy

from .config import ConfigError
from .entry_file import render_entry
from .index import Filters
from .layout import NotARepository, repository_root
from .store import AddResult, EntryNotFound, InvalidTransition, MemoryStore, may_replace, new_entry
from .ties import marker

KINDS = ("decision", "constraint", "convention", "lesson", "preference", "fact", "summary")
STATUSES = ("pending", "active", "folded", "superseded", "archived", "rejected")
PROG = "ctx mem"
# Subcommands other memory-line packages add without memory-store importing them (the layers forbid it):
# an entry point NAME = "module:main" in this group makes `ctx mem NAME ...` run main(argv).
EXTENSION_GROUP = "ctxops.mem_commands"
BUILTIN_COMMANDS = frozenset(
    {"add", "list", "show", "search", "pin", "unpin", "forget", "supersede", "review", "harvest", "rebuild", "tie"}
    | {"reconcile"}
)


def _parser(prog: str = PROG) -> argparse.ArgumentParser:
    parser = Parser(prog=prog, description="Memories kept as Markdown under .meta/memory/.")
    add_common_options(parser, subcommand=False)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)

    def command(name: str, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        add_common_options(p, subcommand=True)
        return p

    add = command("add", "add an entry (deduped; near-duplicates fold; same subject and scope supersedes)")
    add.add_argument("--kind", choices=KINDS, default="fact", help="what sort of memory (default: fact)")
    add.add_argument("--title", required=True, help="one line saying what the entry is about")
    add.add_argument("--body", help="the entry's text ('-' reads stdin)")
    add.add_argument("text", nargs="?", metavar="BODY", help="the entry's text, as --body")
    add.add_argument("--scope", action="append", default=[], help="path glob the entry applies to (repeatable)")
    add.add_argument("--file", action="append", default=[], dest="files", help="related file (repeatable)")
    add.add_argument("--tag", action="append", default=[], dest="tags", help="a tag (repeatable)")
    add.add_argument("--source", action="append", default=[], help="session or event id it came from")
    add.add_argument("--pin", action="store_true", help="pin it (always injected, never folded)")
    add.add_argument("--pending", action="store_true", help="add as a candidate for review")

    lst = command("list", "list entries (active and pending by default)")
    lst.add_argument("--kind", action="append", choices=KINDS, help="only this kind (repeatable)")
    lst.add_argument("--status", action="append", choices=STATUSES, help="only this status (repeatable)")
    lst.add_argument("--since", help="created at or after: RFC 3339, a date, or an age (7d)")
    lst.add_argument("--all", action="store_true", help="every status")
    lst.add_argument("--scope", help="only entries that apply to this path")

    show = command("show", "show one entry")
    show.add_argument("id", help="entry id, or its first or last characters")

    search = command("search", "BM25 search over title, body, tags and scope")
    search.add_argument("query", nargs="+", help="words to look for")
    search.add_argument("--kind", action="append", choices=KINDS, help="only this kind (repeatable)")
    search.add_argument("--status", action="append", choices=STATUSES, help="only this status (repeatable)")
    search.add_argument("--all", action="store_true", help="every status")
    search.add_argument("--scope", help="only entries that apply to this path")
    search.add_argument("--since", help="created at or after: RFC 3339, a date, or an age (7d)")
    search.add_argument("--until", help="created before: RFC 3339, a date, or an age (7d)")
    search.add_argument("--limit", type=int, default=10, help="most hits to show (default 10)")
    search.add_argument("--vector", action="store_true", help="rank by vectors (the `vector` extra)")

    for name, text in (("pin", "pin an entry"), ("unpin", "unpin an entry")):
        command(name, text).add_argument("id", help="entry id, or its first or last characters")

    forget = command("forget", "archive an entry, keeping the reason")
    forget.add_argument("id", help="entry id, or its first or last characters")
    forget.add_argument("--reason", required=True, help="why (kept in the entry for the audit trail)")

    supersede = command("supersede", "mark an entry superseded by another (existing or new)")
    supersede.add_argument("id", help="id of the entry being replaced")
    target = supersede.add_mutually_exclusive_group(required=True)
    target.add_argument("--by", help="id of the entry that replaces it")
    target.add_argument("--title", help="title of a new entry that replaces it (same kind and scope)")
    supersede.add_argument("--body", default="", help="body of the new entry")

    review = command("review", "harvest new events, then list candidates and memories from git, or accept/reject them")
    review.add_argument(
        "--accept", action="append", default=[], metavar="ID", help="accept a candidate or a memory from git"
    )
    review.add_argument(
        "--reject", action="append", default=[], metavar="ID", help="reject a candidate (a memory from git: archive it)"
    )
    review.add_argument("--reason", default="rejected in review", help="why a candidate was rejected")
    review.add_argument("--no-harvest", action="store_true", help="do not read new events first")

    tie = command("tie", "tie an entry again to the files and symbols it names, as they are now (after a review)")
    tie.add_argument("id", help="entry id, or its first or last characters")

    command("harvest", "turn newly captured events into entries and candidates")
    command("rebuild", "rebuild the index from the Markdown files")
    command("reconcile", "fold what git just changed into the read snapshot (the git hooks `ctx init` installs)")
    return parser


def _date(text: str | None, option: str) -> datetime | None:
    return parse_time(text, option=option) if text else None


def _line(entry: MemoryEntry, score: float | None = None, problems: list[Any] | None = None) -> str:
    flags = ("pinned " if entry.pinned else "") + (entry.status if entry.status != "active" else "")
    scope = f"  [{', '.join(entry.scope)}]" if entry.scope else ""
    lead = f"{score:6.2f}  " if score is not None else ""
    review = marker(problems) if problems else ""
    line = f"{lead}{entry.id[-8:]}  {entry.kind:<10} {entry.title}{scope}" + (f"  ({flags.strip()})" if flags else "")
    return line + review


def _with_review(data: dict[str, Any], problems: list[Any] | None) -> dict[str, Any]:
    """An entry's JSON with its review state (``review``: the ties that no longer hold; absent when they do)."""
    if problems:
        data["review"] = [p.as_dict() for p in problems]
    return data


def _emit(args: argparse.Namespace, data: Any, text_lines: list[str]) -> None:
    if args.json:
        emit_json(data)
    else:
        sys.stdout.write("".join(line + "\n" for line in text_lines))


def _result_json(result: AddResult) -> dict[str, Any]:
    return {
        "action": result.action,
        "entry": to_builtins(result.entry),
        "folded": result.folded,
        "superseded": result.superseded,
        "pinned_near_duplicates": result.pinned_near_duplicates,
        "review": result.review,
    }


def _result_lines(result: AddResult) -> list[str]:
    lines = [f"{result.action}: {_line(result.entry)}"]
    lines += [f"  folded {i[-8:]} into it (near-duplicate)" for i in result.folded]
    lines += [f"  superseded {i[-8:]} (same subject and scope)" for i in result.superseded]
    lines += [f"  kept pinned near-duplicate {i[-8:]}" for i in result.pinned_near_duplicates]
    lines += [f"  may replace {i[-8:]} (same subject; both kept, queued for review)" for i in result.review]
    return lines


def _warn_broken(store: MemoryStore) -> None:
    for error in store.errors:
        sys.stderr.write(f"warning: skipped {error}\n")


def run(args: argparse.Namespace) -> int:
    root = repository_root(explicit=args.root)
    if args.command == "reconcile":  # the snapshot's rows only: the catalog is not loaded
        from .after_git import report

        report(str(root), json_mode=args.json)
        return 0
    store = MemoryStore(root)
    try:
        return _run(args, store)
    finally:
        store.save_catalog()


def _run(args: argparse.Namespace, store: MemoryStore) -> int:
    cmd = args.command
    if cmd == "add":
        if args.text is not None and args.body is not None:
            raise CliError("the body was given twice (as BODY and as --body)", "give it once")
        given = args.body if args.body is not None else args.text
        body = sys.stdin.read() if given == "-" else (given or "")
        entry = new_entry(
            kind=args.kind,
            title=args.title,
            body=body,
            scope=args.scope,
            files=args.files,
            tags=args.tags,
            source=args.source,
            pinned=args.pin,
            status="pending" if args.pending else "active",
        )
        # A large store with an up-to-date snapshot: compared with the entries of its kind and scope only.
        result = store.quick_put(entry) or store.put(entry)
        _emit(args, _result_json(result), _result_lines(result))
        return 0
    if cmd == "list":
        statuses = None if args.all else (args.status or ["active", "pending"])
        found = store.list_entries(
            kinds=args.kind, statuses=statuses, scope_path=args.scope, since=_date(args.since, "--since")
        )
        _warn_broken(store)
        review = store.review_ties(found)
        _emit(
            args,
            [_with_review(to_builtins(e), review.get(e.id)) for e in found],
            [_line(e, problems=review.get(e.id)) for e in found] or ["no memory entries match"],
        )
        return EXIT_OK if found else EXIT_EMPTY
    if cmd == "show":
        quick = store.quick_resolve(args.id)  # the one file whose name carries the id: no store load
        entry, path = quick if quick is not None else (store.resolve(args.id), None)
        path = path or store.path_of(entry.id)
        problems = store.review_ties([entry]).get(entry.id)
        lines = [f"# {path}"]
        if problems:
            lines.append(f"# review:{marker(problems, limit=len(problems))[9:-1]}")
            lines.append(f"# when it still holds: `ctx mem tie {entry.id[-8:]}`; else edit, supersede or forget it")
        data = _with_review({**to_builtins(entry), "path": str(path)}, problems)
        _emit(args, data, [*lines, render_entry(entry).rstrip()])
        return 0
    if cmd == "tie":
        entry = store.retie(args.id)
        ties = [f"  {t.path}" + (f"  {t.symbol}" if t.symbol else "") for t in entry.ties]
        _emit(
            args, to_builtins(entry), [f"tied: {_line(entry)}", *(ties or ["  (it names no file of the repository)"])]
        )
        return 0
    if cmd == "search":
        query = " ".join(args.query)
        statuses = None if args.all else tuple(args.status or ["active"])
        filters = Filters(
            kinds=tuple(args.kind) if args.kind else None,
            statuses=statuses,
            scope_path=args.scope,
            since=_date(args.since, "--since"),
            until=_date(args.until, "--until"),
        )
        if args.vector:
            from .vector import VectorTable

            if not store.index.is_fresh() or not (store.index_dir / "memory.lance").exists():
                store.rebuild_index()
            ranked = VectorTable.for_store(store).search(query, limit=args.limit, statuses=statuses or ())
            table = {e.id: e for e in store.entries()}
            hits = [(table[i], s) for i, s in ranked if i in table]
            engine, note = "lancedb", None
        else:
            outcome = store.quick_find(query, filters, limit=args.limit) or store.find(query, filters, limit=args.limit)
            hits, engine, note = outcome.hits, outcome.engine, outcome.note
        if engine != "snapshot":  # the snapshot path read no file: it has no broken ones to name
            _warn_broken(store)
        if note:
            sys.stderr.write(f"note: {note}\n")
        review = store.review_ties([e for e, _ in hits])
        data = {
            "query": query,
            "engine": engine,
            "hits": [_with_review({"score": s, **to_builtins(e)}, review.get(e.id)) for e, s in hits],
        }
        lines = [_line(e, s, review.get(e.id)) for e, s in hits]
        lines = lines or [f"no memories match {query!r}; try fewer words or --all"]
        _emit(args, data, lines)
        return EXIT_OK if hits else EXIT_EMPTY
    if cmd in {"pin", "unpin"}:
        entry = store.pin(args.id) if cmd == "pin" else store.unpin(args.id)
        _emit(args, to_builtins(entry), [f"{cmd}ned: {_line(entry)}"])
        return 0
    if cmd == "forget":
        entry = store.forget(args.id, args.reason)
        _emit(args, to_builtins(entry), [f"archived: {_line(entry)}", f"  reason: {entry.archive_reason}"])
        return 0
    if cmd == "supersede":
        if args.by:
            result = store.supersede(args.id, args.by)
        else:
            old = store.resolve(args.id)
            replacement = new_entry(
                kind=old.kind, title=args.title, body=args.body, scope=old.scope, files=old.files, tags=old.tags
            )
            result = store.supersede(old.id, replacement)
        _emit(args, _result_json(result), _result_lines(result))
        return 0
    if cmd == "review":
        harvested = None
        if not args.no_harvest and not args.accept and not args.reject:
            from .candidates import harvest

            harvested = harvest(store)
        held_ids = {e.id for e in store.held_back()} if args.accept or args.reject else set()
        results: list[AddResult] = []
        vouched: list[MemoryEntry] = []
        for wanted in args.accept:
            entry = store.resolve(wanted)
            if entry.id in held_ids and entry.status == "active" and not may_replace(entry):
                vouched.append(store.vouch(entry.id))  # from git: let it through as it is now
            else:
                results.append(store.accept(entry.id))
        rejected = []
        for wanted in args.reject:
            entry = store.resolve(wanted)
            if entry.id in held_ids and entry.status == "active" and not may_replace(entry):
                rejected.append(store.forget(entry.id, args.reason))
            else:
                rejected.append(store.reject(entry.id, args.reason))
        if args.accept or args.reject:
            lines = [line for r in results for line in _result_lines(r)]
            lines += [f"accepted (injected from now on): {_line(e)}" for e in vouched]
            lines += [
                f"rejected: {_line(e)}"
                if e.status in {"rejected", "archived"}
                else f"kept both (off the review list): {_line(e)}"
                for e in rejected
            ]
            reviewed: Any = {
                "accepted": [_result_json(r) for r in results]
                + [_result_json(AddResult(e, "accepted")) for e in vouched],
                "rejected": [to_builtins(e) for e in rejected],
            }
            _emit(args, reviewed, lines)
            return 0
        held = store.held_back()
        pending = store.list_entries(statuses=["pending"])
        possible = [e for e in store.list_entries(statuses=["active"]) if may_replace(e)]
        stale = store.review_ties(store.list_entries(statuses=["active"]))
        lines = (
            [f"harvested {harvested.events_read} events, {len(harvested.new_entries)} new entries"] if harvested else []
        )
        lines += [_line(e) for e in pending] or ["no candidates waiting for review"]
        if pending:
            lines.append("accept with `review --accept ID`, reject with `review --reject ID`")
        if possible:
            lines.append("possible replacements (both active; the newer ranks first):")
            for entry in possible:
                lines.append(f"  {_line(entry)}")
                lines += [f"    may replace {i[-8:]}" for i in may_replace(entry)]
            lines.append("supersede the older with `review --accept ID`, keep both with `review --reject ID`")
        if stale:
            lines.append(f"the code they speak of changed or moved ({len(stale)}; ranked lower until reviewed):")
            lines += [f"  {_line(store.resolve(i), problems=p)}" for i, p in stale.items()]
            lines.append("when one still holds: `tie ID`; otherwise edit it, `supersede` or `forget` it")
        if held:
            lines.append(f"came with the repository, not injected until accepted ({len(held)}):")
            for entry in held:
                lines.append(f"  {_line(entry)}")
                lines += [f"      {text}" for text in entry.body.splitlines()[:3] if text.strip()]
            lines.append(
                "read them (`show ID`); let one through with `review --accept ID`, archive it with"
                " `review --reject ID`, or trust every memory of this repository with `ctx trust`"
            )
        reply = {
            "held_back": [to_builtins(e) for e in held],
            "pending": [to_builtins(e) for e in pending],
            "possible_replacements": [{"entry": to_builtins(e), "may_replace": may_replace(e)} for e in possible],
            "code_changed": [{"id": i, "review": [x.as_dict() for x in p]} for i, p in stale.items()],
        }
        _emit(args, reply, lines)
        return 0
    if cmd == "harvest":
        from .candidates import harvest

        report = harvest(store)
        lines = [f"read {report.events_read} new events"] + [
            line for r in report.new_entries for line in _result_lines(r)
        ]
        lines += [f"warning: skipped {b}" for b in report.bad_lines]
        _emit(
            args,
            {
                "events_read": report.events_read,
                "results": [_result_json(r) for r in report.results],
                "bad_lines": report.bad_lines,
            },
            lines,
        )
        return 0
    if cmd == "rebuild":
        done = store.rebuild_index()
        _warn_broken(store)
        count = len(store.entries())
        _emit(
            args,
            {"rebuilt": done, "entries": count, "errors": [str(e) for e in store.errors]},
            [f"index rebuilt from {count} entries" if done else "index busy: another process is rebuilding it"],
        )
        if not done:
            raise CliError("index busy: another process is rebuilding it", "try again in a moment")
        return EXIT_OK
    raise AssertionError(cmd)


def _extension(argv: list[str]) -> tuple[str, Any] | None:
    """The first non-option word, when an installed package registered it in ``EXTENSION_GROUP``."""
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg == "--root":
            skip = True
            continue
        if arg.startswith("-"):
            continue
        if arg in BUILTIN_COMMANDS:  # importlib.metadata costs a fresh process ~30 ms: not for our own commands
            return None
        from importlib.metadata import entry_points

        for point in entry_points(group=EXTENSION_GROUP):
            if point.name == arg:
                return arg, point
        return None
    return None


def main(argv: list[str] | None = None, *, prog: str | None = None) -> int:
    prog = prog or typed_prog("python -m ctxops_memory_store")
    args_list = list(sys.argv[1:] if argv is None else argv)
    json_mode = json_requested(args_list)
    extension = _extension(args_list)
    if extension is not None:
        name, point = extension
        rest = list(args_list)
        rest.remove(name)
        return int(point.load()(rest, prog=f"{prog} {name}"))
    args = _parser(prog).parse_args(args_list)
    try:
        return run(args)
    except CliError as exc:
        return report_error(exc, prog=f"{prog} {args.command}", json_mode=json_mode)
    except NotARepository as exc:
        return report_error(CliError(exc.message, exc.fix), prog=f"{prog} {args.command}", json_mode=json_mode)
    except EntryNotFound as exc:
        error = CliError(str(exc), f"`{prog} list --all` shows every id")
        return report_error(error, prog=f"{prog} {args.command}", json_mode=json_mode)
    except (InvalidTransition, ConfigError, ValueError, ImportError) as exc:
        error = CliError(str(exc), f"see `{prog} {args.command} --help`")
        return report_error(error, prog=f"{prog} {args.command}", json_mode=json_mode)
    except LockBusy as exc:  # writers queue for minutes (``write_turn.WRITE_WAIT_S``): a holder that never lets go
        error = CliError(str(exc), "another ctx process holds the memory store; try again", code=EXIT_DISK)
        return report_error(error, prog=f"{prog} {args.command}", json_mode=json_mode)
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as exc:  # never a traceback: one line (one JSON object with --json), exit 4
        error = disk_error(exc) or CliError(
            f"{type(exc).__name__}: {exc}".replace("\n", " "), "details in .meta/logs/memory-store.log", code=EXIT_DISK
        )
        _log_failure(args.command, exc)
        return report_error(error, prog=f"{prog} {args.command}", json_mode=json_mode)


def _log_failure(command: str, exc: BaseException) -> None:
    """The traceback of an unexpected failure, to ``.meta/logs/memory-store.log`` (best effort)."""
    import traceback

    from ctxops_contracts.shared.files import append_lines
    from ctxops_contracts.shared.layout import LOGS_DIR, meta_path, meta_subdir
    from ctxops_contracts.shared.repo import try_find_root

    root = try_find_root()
    if root is None:
        return
    try:
        meta_subdir(root, LOGS_DIR)
        text = f"{datetime.now().astimezone().isoformat()} mem {command}: " + "".join(traceback.format_exception(exc))
        append_lines(meta_path(root, LOGS_DIR, "memory-store.log"), text.encode("utf-8", "replace"), fsync=False)
    except OSError:
        pass


if __name__ == "__main__":
    sys.exit(main())
