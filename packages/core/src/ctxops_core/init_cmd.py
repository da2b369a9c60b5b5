"""`ctx init`: wire a git repository and its agents to ctxops, and `ctx init --remove` to unwire it.

What it writes: the `.meta/` layout with a commented `.meta/config.toml`, git hooks that keep the code
index current (chained into existing hooks, `core.hooksPath` and husky respected), and each agent's
project configuration merged (hooks, the MCP server, Claude Code's status line). Every file it touches is
recorded with its previous content in `.meta/.state/init.json`, so `--remove` restores it exactly, or,
when the user edited the file since, takes out only ctxops's entries and keeps the rest.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib.util
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxops_contracts.shared import cli as grammar
from ctxops_contracts.shared.files import atomic_write
from ctxops_contracts.shared.layout import COMMITTED_FILE_MODE, ensure_meta
from ctxops_contracts.shared.repo import NotARepository, find_root

from . import agent_trust, agents, jsonc, textblocks
from .config_defaults import CONFIG_TEXT

GIT_HOOKS = ("post-commit", "post-checkout", "post-merge", "post-rewrite")
MEMORY_GIT_HOOKS = ("post-checkout", "post-merge", "post-rewrite")  # git wrote files: memories may have come
MANIFEST = ".meta/.state/init.json"
MANIFEST_VERSION = 1


@dataclass
class Change:
    """One file ``ctx init`` writes: its content before (None: absent) and after (None: delete it)."""

    path: str  # repository-relative, forward slashes
    before: str | None
    after: str | None
    executable: bool = False
    note: str = ""

    @property
    def changed(self) -> bool:
        return self.before != self.after


@dataclass
class Plan:
    changes: list[Change] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def ctx_argv() -> tuple[str, ...]:
    """How agents and git hooks call ctx: the absolute path of this installation's ``ctx`` console script,
    never the word ``ctx`` (PATH is the repository's to prepend to: ``node_modules/.bin`` comes first in
    npm scripts, direnv adds ``./bin``, and a cloned repository may ship either).

    The script beside this interpreter (a venv, pipx, ``uv tool``: the interpreter's own path is kept, not
    resolved, so a venv stays a venv), else the script this process was started as, else this interpreter
    with ``-P -m ctxops_core`` (runpy's imports cost a few ms on every hook; ``-P`` because the agent runs
    the command in the repository, whose own ``ctxops_core/`` folder would otherwise be imported)."""
    python = Path(sys.executable).absolute() if sys.executable else None  # absolute(): symlinks kept
    if python is not None and _is_executable_file(python.with_name("ctx")):
        return (str(python.with_name("ctx")),)
    started = Path(sys.argv[0]).absolute() if sys.argv and sys.argv[0] else None
    if started is not None and started.name == "ctx" and _is_executable_file(started):
        return (str(started.resolve()),)
    return (str(python) if python is not None else "python3", "-P", "-m", "ctxops_core")


def _is_executable_file(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def guard_available() -> bool:
    try:
        return importlib.util.find_spec("ctxops_memory_inject.guard") is not None
    except ModuleNotFoundError:
        return False


def statusline_available() -> bool:
    try:
        return importlib.util.find_spec("ctxops_ledger_report.statusline") is not None
    except ModuleNotFoundError:
        return False


def hooks_dir(root: Path) -> tuple[Path, str]:
    """Where git runs hooks from (``core.hooksPath`` honoured), and a note when a hook manager owns it."""
    configured = _git(root, "config", "--get", "core.hooksPath").strip()
    path = _git(root, "rev-parse", "--git-path", "hooks").strip()
    where = root / path  # an absolute path stays absolute under `/`
    if configured.rstrip("/").endswith(".husky/_"):
        # husky 9 regenerates .husky/_; its shims run the user's .husky/<name>, which is where hooks go.
        return where.parent, "husky: hooks written to .husky/"
    if configured:
        return where, f"core.hooksPath is {configured}"
    return where, ""


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=False)
    return done.stdout if done.returncode == 0 else ""


def git_hook_body(argv: tuple[str, ...], hook: str) -> str:
    import shlex

    ctx = shlex.join(argv)
    # Nothing to run once ctxops is uninstalled: the hook stays silent (and `ctx doctor` says so).
    probe = f"[ -x {shlex.quote(argv[0])} ] && " if Path(argv[0]).is_absolute() else ""
    # In the background and silent: a commit or checkout never waits for the index, never fails on it.
    kick = f"({ctx} watch kick --git-hook {hook} >/dev/null 2>&1 </dev/null &)"
    if hook not in MEMORY_GIT_HOOKS:
        return f"{probe}{kick}"
    # In the foreground, bounded and silent: the memory files git just wrote are folded into the memory
    # snapshot here, so the agent's next hook starts no git and parses no file (issue 23, item 4).
    return f"{probe}{{ {ctx} mem reconcile >/dev/null 2>&1 </dev/null; {kick}; }}"


def _enable_all_was_ours(root: Path) -> bool:
    """Whether ``enableAllProjectMcpServers`` in .claude/settings.json came from an earlier ``ctx init``: the
    init manifest shows the file without it before ctxops first wrote it."""
    text = _read(root / MANIFEST)
    if not text:
        return False
    try:
        record = json.loads(text)["files"][".claude/settings.json"]
    except (ValueError, KeyError, TypeError):
        return False
    before = record.get("before") if isinstance(record, dict) else None
    if before is None:
        return True  # the file did not exist: every key in it came from ctxops or later from the user
    try:
        doc = json.loads(before)
    except ValueError:
        return False
    return isinstance(doc, dict) and agents.APPROVE_ALL_KEY not in doc


def plan_init(
    root: Path, selected: list[str], argv: tuple[str, ...], statusline: bool, guard: bool | None = None
) -> Plan:
    plan = Plan()
    wiring = agents.Wiring(
        argv=argv,
        statusline=statusline,
        guard=guard_available() if guard is None else guard,
        drop_enable_all=_enable_all_was_ours(root),
        root=str(root),
    )
    meta_ignore = root / ".meta" / ".gitignore"
    if not meta_ignore.exists():
        from ctxops_contracts.shared.layout import GITIGNORE_TEXT

        plan.changes.append(Change(".meta/.gitignore", None, GITIGNORE_TEXT))
    if not (root / ".meta" / "config.toml").exists():
        plan.changes.append(Change(".meta/config.toml", None, CONFIG_TEXT))

    where, note = hooks_dir(root)
    if note:
        plan.notes.append(note)
    for hook in GIT_HOOKS:
        path = where / hook
        rel = os.path.relpath(path, root).replace(os.sep, "/")
        before = _read(path)
        body = git_hook_body(argv, hook)
        if before is None:
            after = "#!/bin/sh\n" + textblocks.block(body)
        elif "\0" in before:
            plan.notes.append(
                f"{rel} is a binary hook; left alone (run `ctx watch kick` from it to keep the index current)"
            )
            continue
        else:
            # An earlier block (a bare `ctx`, another installation's path) is replaced where it stands.
            after = textblocks.insert_after_shebang(textblocks.remove(before), body)
        plan.changes.append(Change(rel, before, after, executable=True))

    for agent in selected:
        for spec in agents.json_files(agent):
            before = _read(root / spec.path)
            try:
                doc = jsonc.load(before or "", path=spec.path, allow_comments=spec.allow_comments)
                merged = spec.add(doc, wiring)
            except jsonc.HasComments:
                snippet = jsonc.dump(spec.add({}, wiring))
                plan.notes.append(f"{spec.path} has comments, which a rewrite would lose; add by hand:\n{snippet}")
                continue
            except (jsonc.BadJson, ValueError) as exc:
                raise grammar.CliError(str(exc), fix=f"fix {spec.path} by hand, then run `ctx init` again") from None
            indent = jsonc.indent_of(before or "")
            after = before if merged == doc and before is not None else jsonc.dump(merged, indent)
            plan.changes.append(Change(spec.path, before, after))
        if agent == "codex":
            rel = ".codex/config.toml"
            before = _read(root / rel)
            text = before or ""
            if textblocks.has_block(text):  # ours: written again, so an earlier form of the command is upgraded
                text = textblocks.remove(text)
            wired = f"[mcp_servers.{agents.MCP_NAME}]" in text  # a table of the user's own stays theirs
            toml = before
            if not wired:
                toml = textblocks.append(text, agents.codex_mcp_block(wiring))
                if agents.CODEX_MCP_GRACE_KEY not in text:  # a key of its own stays the user's
                    toml = textblocks.prepend(toml, agents.codex_grace_block())
            plan.changes.append(Change(rel, before, toml))
        if agent == "claude-code" and not statusline:
            plan.notes.append("statusLine not written: ctxops-ledger-report (ctx ledger statusline) is not installed")
    return plan


def _diff(change: Change) -> str:
    a = (change.before or "").splitlines(keepends=True)
    b = (change.after or "").splitlines(keepends=True)
    head_a = f"a/{change.path}" if change.before is not None else "/dev/null"
    head_b = f"b/{change.path}" if change.after is not None else "/dev/null"
    lines = list(difflib.unified_diff(a, b, head_a, head_b))
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def _load_manifest(root: Path) -> dict[str, Any]:
    text = _read(root / MANIFEST)
    if not text:
        return {"version": MANIFEST_VERSION, "files": {}, "dirs": []}
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        raise grammar.CliError(f"{MANIFEST} is not valid JSON", fix="restore it from a backup or delete it") from None
    if not isinstance(data, dict) or data.get("version") != MANIFEST_VERSION:
        raise grammar.CliError(f"{MANIFEST}: unknown format", fix="upgrade ctxops")
    return data


def _write(root: Path, change: Change, created_dirs: list[str]) -> None:
    path = root / change.path
    if change.after is None:
        path.unlink(missing_ok=True)
        return
    missing: list[Path] = []
    parent = path.parent
    while not parent.exists():
        missing.append(parent)
        parent = parent.parent
    for directory in reversed(missing):
        directory.mkdir()
        created_dirs.append(os.path.relpath(directory, root).replace(os.sep, "/"))
    # Agent settings, .mcp.json, git hooks and .meta/config.toml are the user's and meant to be committed:
    # an existing file keeps its mode, a new one is 0644 (atomic_write's default is private, 0600).
    mode = path.stat().st_mode & 0o777 if path.is_file() else COMMITTED_FILE_MODE
    atomic_write(str(path), change.after, mode=mode)
    if change.executable:
        mode = path.stat().st_mode
        path.chmod(mode | 0o111)


def apply_init(root: Path, plan: Plan) -> list[Change]:
    ensure_meta(str(root))
    for agent in agents.AGENT_NAMES:  # rewired: a hook whose ctx goes missing again says so again
        (root / ".meta" / ".state" / agents.GONE_MARKER.format(agent=agent)).unlink(missing_ok=True)
    manifest = _load_manifest(root)
    files: dict[str, Any] = manifest["files"]
    dirs: list[str] = manifest["dirs"]
    written = []
    for change in plan.changes:
        if not change.changed:
            continue
        _write(root, change, dirs)
        record = files.get(change.path)
        if record is None:
            files[change.path] = {"before": change.before, "after": change.after}
        else:
            if change.before != record["after"]:
                # Edited since the last `ctx init` (the user's entries, or an upgrade of ours): restoring the
                # content before the first run would lose the user's part; --remove takes out only ours.
                record["edited"] = True
            record["after"] = change.after
        written.append(change)
    if written or not (root / MANIFEST).exists():
        atomic_write(str(root / MANIFEST), json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    return written


def _surgical(
    rel: str, current: str, argv_candidates: list[tuple[str, ...]], *, drop_enable_all: bool = False
) -> str | None:
    """``current`` with ctxops's entries taken out, for a file the user changed after ``ctx init``."""
    if textblocks.has_block(current):
        return textblocks.remove(current)
    for agent in agents.AGENT_NAMES:
        for spec in agents.json_files(agent):
            if spec.path != rel:
                continue
            try:
                doc = jsonc.load(current, path=rel, allow_comments=spec.allow_comments)
            except (jsonc.HasComments, jsonc.BadJson):
                return None
            for argv in argv_candidates:
                for statusline in (True, False):
                    wiring = agents.Wiring(argv=argv, statusline=statusline, drop_enable_all=drop_enable_all)
                    doc = spec.remove(doc, wiring)
            return jsonc.dump(doc, jsonc.indent_of(current))
    return None


def run_remove(root: Path, *, dry_run: bool) -> tuple[list[Change], list[str]]:
    manifest = _load_manifest(root)
    files: dict[str, Any] = manifest["files"]
    notes: list[str] = []
    changes: list[Change] = []
    # Any form of ours is recognised (agents.runs_ctx); these are the exact forms for the rest.
    argv_candidates = [
        ctx_argv(),
        ("ctx",),
        (sys.executable, "-m", "ctxops_core"),
        (sys.executable, "-P", "-m", "ctxops_core"),
    ]
    drop_enable_all = _enable_all_was_ours(root)
    meta_owned = {".meta/.gitignore", ".meta/config.toml"}
    for rel, record in files.items():
        current = _read(root / rel)
        if current is None:
            continue
        if rel == ".meta/.gitignore" and _meta_holds_data(root):
            # Captured events and indexes stay; so does what keeps them out of `git status` (every package
            # would write it again on its next write anyway).
            notes.append(".meta/ holds captured data: .meta/.gitignore kept so it stays out of git")
            continue
        target: str | None
        if current == record["after"] and not record.get("edited"):
            target = record["before"]
        elif rel in meta_owned:
            notes.append(f"{rel}: you changed it since `ctx init`; kept")
            continue
        else:
            target = _surgical(rel, current, argv_candidates, drop_enable_all=drop_enable_all)
            if target is None:
                notes.append(
                    f"{rel}: changed since `ctx init` and not machine-readable; take ctxops's entries out by hand"
                )
                continue
            if record["before"] is None and target.strip() in {"", "{}", "#!/bin/sh"}:
                target = None
            notes.append(f"{rel}: you changed it since `ctx init`; took out only ctxops's entries")
        changes.append(Change(rel, current, target))
    if dry_run:
        return changes, notes
    for change in changes:
        if change.changed:
            _write(root, change, [])
    (root / MANIFEST).unlink(missing_ok=True)
    for rel in sorted(manifest.get("dirs", []), key=len, reverse=True):
        with contextlib.suppress(OSError):
            (root / rel).rmdir()  # only when empty: a directory the user put files in stays
    _prune_meta(root)
    return changes, notes


def _meta_holds_data(root: Path) -> bool:
    """Whether ``.meta/`` holds anything beyond what ``ctx init`` itself writes there."""
    meta = root / ".meta"
    own = {".gitignore", "config.toml", ".state"}
    for entry in meta.iterdir() if meta.is_dir() else []:
        if entry.name in own:
            continue
        if entry.name == "memory" and entry.is_dir() and not any(entry.iterdir()):
            continue
        return True
    return False


def _prune_meta(root: Path) -> None:
    """Remove ``.meta/`` pieces init created that hold nothing; data any package wrote stays."""
    for rel in (".meta/.state", ".meta/memory"):
        with contextlib.suppress(OSError):
            (root / rel).rmdir()
    meta = root / ".meta"
    if meta.is_dir() and not any(meta.iterdir()):
        meta.rmdir()


def start_code_index(root: Path) -> str | None:
    """Start the first code index build in the background (the code line installed, no usable index yet),
    so the agent's first `cq` answers from the index rather than from a provisional scan."""
    try:
        from ctxops_code_graph import rebuild_reason
        from ctxops_code_graph.background import start_full_build
    except ModuleNotFoundError:
        return None
    reason = rebuild_reason(root)
    if not reason:
        return None
    try:
        started = start_full_build(root)
    except OSError as exc:
        return f"could not start the code index build ({exc}); run `ctx code index`"
    if not started:
        return "the code index is being built in the background already (`ctx doctor` shows when it is ready)"
    return f"{reason}: building it in the background (`ctx doctor` shows when it is ready)"


def memory_trust_note(root: Path, *, trust_now: bool = False) -> str | None:
    """What ``ctx init`` says about memories that came with the repository (held back from injection until
    reviewed or trusted: ``ctx trust``); with ``trust_now`` (``--trust``), trust it first."""
    try:
        from ctxops_memory_store import MemoryStore, trust
    except ModuleNotFoundError:
        return None
    if trust_now:
        trust.trust_repository(root)
        return "trusted this repository: every memory in .meta/memory/ is injected (`ctx trust --revoke` undoes it)"
    held = MemoryStore(root).held_back()
    if not held:
        return None
    return (
        f"{grammar.plural(len(held), 'memory', 'memories')} in .meta/memory/ came with the repository and "
        "are not injected until you review them (`ctx mem review`) or trust the repository (`ctx trust`)"
    )


def main(argv: list[str]) -> int:
    parser = grammar.Parser(
        prog="ctx init",
        description="Wire this git repository and its agents to ctxops (idempotent; --remove undoes it).",
    )
    grammar.add_common_options(parser, subcommand=False)
    parser.add_argument(
        "--agent",
        action="append",
        choices=[*agents.AGENT_NAMES, "all"],
        help="agent to wire (repeatable; default claude-code; `all` for every agent)",
    )
    parser.add_argument("--dry-run", action="store_true", help="print the diff of what would change; write nothing")
    parser.add_argument("--remove", action="store_true", help="restore every file `ctx init` touched")
    parser.add_argument(
        "--no-index", action="store_true", help="do not start the first code index build in the background"
    )
    parser.add_argument(
        "--trust",
        action="store_true",
        help="also inject the memories that came with this repository, now and after pulls (= `ctx trust`)",
    )
    args = parser.parse_args(argv)
    try:
        root = Path(find_root(explicit=args.root))
        if not _git(root, "rev-parse", "--git-dir"):
            raise grammar.CliError(f"{root} is not a git repository", fix="run `git init` first, or pass --root REPO")
        if args.remove:
            changes, notes = run_remove(root, dry_run=args.dry_run)
        else:
            chosen = args.agent or ["claude-code"]
            selected = list(agents.AGENT_NAMES) if "all" in chosen else list(dict.fromkeys(chosen))
            plan = plan_init(root, selected, ctx_argv(), statusline_available())
            notes = plan.notes + agent_trust.init_notes(selected)  # trust screens the user must pass
            changes = [c for c in plan.changes if c.changed]
            if not args.dry_run:
                changes = apply_init(root, plan)
                started = None if args.no_index else start_code_index(root)
                if started:
                    notes.append(started)
            trusted = memory_trust_note(root, trust_now=args.trust and not args.dry_run)
            if trusted:
                notes.append(trusted)
    except NotARepository as exc:
        return grammar.report_error(grammar.CliError(exc.message, exc.fix), prog="ctx init", json_mode=args.json)
    except grammar.CliError as exc:
        return grammar.report_error(exc, prog="ctx init", json_mode=args.json)
    return _report(changes, notes, args)


def _report(changes: list[Change], notes: list[str], args: Any) -> int:
    verb = "would " if args.dry_run else ""
    if args.json:
        grammar.emit_json(
            {
                "dry_run": args.dry_run,
                "remove": args.remove,
                "changed": [c.path for c in changes if c.changed],
                "diff": "".join(_diff(c) for c in changes if c.changed) if args.dry_run else None,
                "notes": notes,
            }
        )
        return grammar.EXIT_OK
    if args.dry_run:
        for change in changes:
            if change.changed:
                sys.stdout.write(_diff(change))
    changed = [c for c in changes if c.changed]
    if not changed:
        print("ctx init: nothing to change" + (" (nothing to remove)" if args.remove else "; already wired"))
    for change in changed:
        action = "remove" if change.after is None else ("create" if change.before is None else "update")
        if args.remove and change.after is not None:
            action = "restore"
        print(f"{verb}{action} {change.path}")
    for note in notes:
        print(f"note: {note}")
    return grammar.EXIT_OK
