"""What ``ctx init`` merges into each agent's project configuration, and how ``--remove`` takes it out.

Formats and hook names were checked against each agent's own documentation (versions in
docs/agent-integration.md). Every edit is a pure function of the parsed file: ``add`` puts ctxops's
entries in (leaving the user's entries, unknown keys and their order alone; a second call changes
nothing) and ``remove`` takes exactly those entries out again.

Every command names the installed ctx by its absolute path (``init_cmd.ctx_argv``): a bare ``ctx`` is
looked up on PATH, where a repository's ``node_modules/.bin/ctx`` may come first. An entry is ctxops's in
any of the forms earlier versions wrote (bare ``ctx``, another path to a ``ctx``, ``python -m
ctxops_core``), so a re-run upgrades it in place and ``--remove`` finds it.
"""

from __future__ import annotations

import copy
import json
import os
import posixpath
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

MCP_NAME = "ctxops"
AGENT_NAMES = ("claude-code", "codex", "gemini", "cursor")

# Claude Code (hooks reference, checked for 2.1.x): the events core's `ctx hook` acts on.
CLAUDE_EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PostToolUse",
    "PostToolUseFailure",
    "PreCompact",
    "Stop",
    "SessionEnd",
)
CLAUDE_TOOL_EVENTS = {"PreToolUse", "PostToolUse", "PostToolUseFailure"}
# With the context guard: it wraps long-output commands before they run and forgets reads at compaction.
CLAUDE_GUARD_EVENTS = ("PreToolUse", "PostCompact")
# Codex CLI hooks.json (developers.openai.com/codex/hooks): same shape as Claude Code's; run with Codex 0.171
# (tests/e2e/test_codex_e2e.py). No PreToolUse even with the context guard: Codex cannot take a replaced
# tool output, so the guard answers nothing there and the hook would only cost a process per tool call.
# PostCompact and SessionEnd are in Codex 0.171's own hook schemas (post-compact / session-end.command.input):
# handled as Claude Code's (PostCompact: a compaction event; SessionEnd: the session digest).
CODEX_EVENTS = ("SessionStart", "UserPromptSubmit", "PostToolUse", "PreCompact", "PostCompact", "Stop", "SessionEnd")
CODEX_TOOL_EVENTS = {"PostToolUse"}
CODEX_RETIRED = ("PreToolUse",)  # wired by earlier versions of `ctx init`: a re-run takes them out
# Gemini CLI settings.json hooks (geminicli.com/docs/hooks/reference); run with Gemini CLI 0.61
# (tests/e2e/test_gemini_e2e.py). No PreCompress: 0.61 fires it ("auto") before every model turn, before it
# checks whether to compress at all, so it would cost a process and write a digest per turn. AfterAgent
# carries the answer (prompt_response): without it a digest reads every prompt as unanswered.
GEMINI_EVENTS = ("SessionStart", "BeforeAgent", "AfterTool", "AfterAgent", "SessionEnd")
GEMINI_TOOL_EVENTS = {"AfterTool"}
GEMINI_RETIRED = ("PreCompress",)  # wired by earlier versions of `ctx init`: a re-run takes them out
# Cursor hooks.json version 1 (cursor.com/docs/agent/hooks).
CURSOR_EVENTS = (
    "sessionStart",
    "beforeSubmitPrompt",
    "afterShellExecution",
    "afterMCPExecution",
    "afterFileEdit",
    "preCompact",
    "stop",
    "sessionEnd",
)


@dataclass(frozen=True)
class Wiring:
    """What the written entries run: the ``ctx`` command, by absolute path."""

    argv: tuple[str, ...]  # (/abs/bin/ctx,) or (/abs/python, "-P", "-m", "ctxops_core")
    statusline: bool  # ledger-report is installed: Claude Code gets a status line
    guard: bool = False  # memory-inject's context guard is installed: PreToolUse and PostCompact too
    # `enableAllProjectMcpServers: true` in .claude/settings.json was written by an earlier `ctx init` (it was
    # absent before ctxops first touched the file, says the init manifest): a re-run takes it out.
    drop_enable_all: bool = False
    root: str | None = None  # the repository: where a hook whose ctx is gone notes that it said so

    @property
    def ctx(self) -> str:
        return shlex.join(self.argv)

    def hook(self, agent: str) -> str:
        return guarded_hook(self.argv, agent, self.root)

    def mcp_entry(self, *, typed: bool) -> dict[str, Any]:
        entry: dict[str, Any] = {"type": "stdio"} if typed else {}
        entry.update({"command": self.argv[0], "args": [*self.argv[1:], "mcp"]})
        return entry


Doc = dict[str, Any]
Edit = Callable[[Doc, Wiring], Doc]


@dataclass(frozen=True)
class JsonFile:
    """One JSON settings file of an agent and the two edits ``ctx init`` makes to it."""

    agent: str
    path: str  # repository-relative
    allow_comments: bool
    add: Edit
    remove: Edit


# --- a hook whose ctx is gone (a deleted venv, an upgrade that moved it)

GONE_MARKER = "hook-gone-{agent}"  # in .meta/.state/: the agent was told; `ctx init` clears it
GONE_NOTE = (
    "ctxops: {ctx} is gone (moved, upgraded or deleted): this session is not captured and no memories are "
    "injected. Fix: run `ctx init` here with the ctxops you use now (`ctx doctor` checks)."
)
# How each agent shows a hook's message to its user: Claude Code, Codex and Gemini CLI read `systemMessage`
# from a hook's JSON output; Cursor's hooks have no such field, so its hook stays silent (`ctx doctor` tells).
GONE_SAYS = {"claude-code": "systemMessage", "codex": "systemMessage", "gemini": "systemMessage"}


def guarded_hook(argv: tuple[str, ...], agent: str, root: str | None = None) -> str:
    """The hook command for ``agent``: ``<ctx> hook AGENT``, run only while that path is there.

    Agents run a hook command with ``sh -c``: ``test -x`` and ``exec`` are the shell's own, so the guard
    costs no process. When the path is gone the hook exits 0 (never breaks the agent) and, the first time,
    prints the agent's own JSON telling the user what happened and the fix; the note in
    ``.meta/.state/`` keeps later events silent until ``ctx init`` rewires. Nothing on PATH is tried instead:
    a repository may lead PATH (``node_modules/.bin/ctx``). Windows agents get the plain command."""
    plain = f"{shlex.join(argv)} hook {agent}"
    if os.name != "posix" or not argv or not posixpath.isabs(argv[0]):
        return plain
    exe = shlex.quote(argv[0])
    say = ""
    key = GONE_SAYS.get(agent)
    if key:
        note = json.dumps({key: GONE_NOTE.format(ctx=argv[0])}, ensure_ascii=False)
        say = f"printf '%s\\n' {shlex.quote(note)}"
        if root:
            marker = shlex.quote(posixpath.join(root, ".meta", ".state", GONE_MARKER.format(agent=agent)))
            say = f"test -e {marker} || {{ : >{marker}; {say}; }} 2>/dev/null; "
        else:
            say += "; "
    return f"test -x {exe} && exec {plain}; {say}exit 0"


def _unguarded(command: str) -> list[str] | None:
    """The words ``guarded_hook`` execs, when ``command`` is in its form; None otherwise."""
    if not command.startswith("test -x "):
        return None
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:
        return None
    if len(tokens) < 6 or tokens[3] != "&&" or tokens[4] != "exec" or tokens[5] != tokens[2]:
        return None
    end = tokens.index(";", 5) if ";" in tokens[5:] else len(tokens)
    return tokens[5:end]


# --- which commands are ctxops's


def ctx_prefix(words: list[str]) -> int:
    """How many leading words of an argv call ctx: 1 for any path (or bare word) named ``ctx``, 3 for
    ``PYTHON -m ctxops_core``, 4 for ``PYTHON -P -m ctxops_core``; 0 when the argv is something else."""
    if words and words[0].replace("\\", "/").rsplit("/", 1)[-1] == "ctx":
        return 1
    if len(words) >= 3 and words[1] == "-m" and words[2] == "ctxops_core":
        return 3
    if len(words) >= 4 and words[1] == "-P" and words[2] == "-m" and words[3] == "ctxops_core":
        return 4
    return 0


def split_command(command: str) -> list[str] | None:
    """The argv a command runs; for a guarded hook (``test -x P && exec P hook AGENT; ...``) the exec'd one."""
    guarded = _unguarded(command)
    if guarded is not None:
        return guarded
    try:
        return shlex.split(command)
    except ValueError:
        return None


def runs_ctx(command: object, *tail: str) -> bool:
    """Whether a shell command string is ``<ctx> TAIL...`` in any form ctxops ever wrote."""
    if not isinstance(command, str):
        return False
    words = split_command(command)
    if words is None:
        return False
    n = ctx_prefix(words)
    return n > 0 and tuple(words[n:]) == tail


def _mcp_is_ours(entry: object) -> bool:
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return False
    args = entry.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return False
    words = [entry["command"], *args]
    n = ctx_prefix(words)
    return n > 0 and words[n:] == ["mcp"]


# --- hooks in Claude Code's shape (also Codex's and Gemini's): event -> [ {matcher?, hooks: [handler]} ]


def _is_ours(handler: Any, command: str) -> bool:
    """``handler`` runs ``command`` (``<ctx> hook AGENT``), in this or any earlier form of the ctx part."""
    if not isinstance(handler, dict):
        return False
    words = split_command(command) or []
    n = ctx_prefix(words)
    return handler.get("command") == command or (n > 0 and runs_ctx(handler.get("command"), *words[n:]))


def _upgrade_handlers(handlers: list[Any], command: str) -> list[Any]:
    """ctxops's handlers in ``handlers`` rewritten to run ``command`` (an earlier form is upgraded in place);
    a second one of ours in the same list is dropped."""
    out: list[Any] = []
    seen = False
    for handler in handlers:
        if _is_ours(handler, command):
            if seen:
                continue
            seen = True
            out.append({**handler, "command": command} if handler.get("command") != command else handler)
            continue
        out.append(handler)
    return out


def _add_grouped_hooks(
    doc: Doc, events: tuple[str, ...], tool_events: set[str], command: str, *, named: bool, any_tool: str
) -> Doc:
    out = copy.deepcopy(doc)
    hooks = out.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ValueError('"hooks" is not an object')
    for event in events:
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise ValueError(f'"hooks.{event}" is not a list')
        found = False
        for n, existing in enumerate(groups):
            if isinstance(existing, dict) and isinstance(existing.get("hooks"), list):
                if found:  # an earlier ctx init's handler in a second group: one is enough
                    kept = [h for h in existing["hooks"] if not _is_ours(h, command)]
                    if len(kept) != len(existing["hooks"]):
                        groups[n] = {**existing, "hooks": kept} if kept else None
                    continue
                if any(_is_ours(h, command) for h in existing["hooks"]):
                    groups[n] = {**existing, "hooks": _upgrade_handlers(existing["hooks"], command)}
                    found = True
        groups[:] = [g for g in groups if g is not None]
        if found:
            continue
        handler: dict[str, Any] = {"name": MCP_NAME} if named else {}
        handler.update({"type": "command", "command": command})
        group: dict[str, Any] = {"matcher": any_tool} if event in tool_events else {}
        group["hooks"] = [handler]
        groups.append(group)
    return out


def _remove_grouped_hooks(doc: Doc, command: str, events: tuple[str, ...] | None = None) -> Doc:
    """``doc`` without ctxops's handlers (of ``events`` only, when given)."""
    out = copy.deepcopy(doc)
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    for event in list(hooks):
        if events is not None and event not in events:
            continue
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                handlers = [h for h in group["hooks"] if not _is_ours(h, command)]
                if not handlers and len(handlers) != len(group["hooks"]):
                    continue
                kept.append({**group, "hooks": handlers})
            else:
                kept.append(group)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if not hooks:
        del out["hooks"]
    return out


def _add_mcp(doc: Doc, entry: dict[str, Any]) -> Doc:
    """The ctxops server added; one an earlier ``ctx init`` wrote (``ctx mcp`` in another form) upgraded to
    ``entry``'s command, its other keys (env, ...) kept; a ``ctxops`` server of the user's own left alone."""
    out = copy.deepcopy(doc)
    servers = out.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise ValueError('"mcpServers" is not an object')
    current = servers.get(MCP_NAME)
    if current is None:
        servers[MCP_NAME] = entry
    elif _mcp_is_ours(current) and (current.get("command"), current.get("args")) != (entry["command"], entry["args"]):
        servers[MCP_NAME] = {**current, "command": entry["command"], "args": entry["args"]}
    return out


def _remove_mcp(doc: Doc, entry: dict[str, Any]) -> Doc:
    out = copy.deepcopy(doc)
    servers = out.get("mcpServers")
    if isinstance(servers, dict) and (servers.get(MCP_NAME) == entry or _mcp_is_ours(servers.get(MCP_NAME))):
        del servers[MCP_NAME]
        if not servers:
            del out["mcpServers"]
    return out


# --- Claude Code


# Claude Code (settings reference): `enabledMcpjsonServers` approves the named servers of .mcp.json;
# `enableAllProjectMcpServers: true` would approve every server any later commit adds there.
APPROVE_KEY = "enabledMcpjsonServers"
APPROVE_ALL_KEY = "enableAllProjectMcpServers"


def _claude_settings_add(doc: Doc, w: Wiring) -> Doc:
    events = CLAUDE_EVENTS + (CLAUDE_GUARD_EVENTS if w.guard else ())
    out = _add_grouped_hooks(doc, events, CLAUDE_TOOL_EVENTS, w.hook("claude-code"), named=False, any_tool="*")
    statusline = f"{w.ctx} ledger statusline"
    line = out.get("statusLine")
    if isinstance(line, dict) and runs_ctx(line.get("command"), "ledger", "statusline"):
        if line.get("command") != statusline:
            out["statusLine"] = {**line, "command": statusline}  # an earlier form of ours, upgraded
    elif w.statusline and "statusLine" not in out:
        out["statusLine"] = {"type": "command", "command": statusline}
    approved = out.setdefault(APPROVE_KEY, [])
    if not isinstance(approved, list):
        raise ValueError(f'"{APPROVE_KEY}" is not a list')
    if MCP_NAME not in approved:
        approved.append(MCP_NAME)
    if w.drop_enable_all and out.get(APPROVE_ALL_KEY) is True:
        del out[APPROVE_ALL_KEY]
    return out


def _claude_settings_remove(doc: Doc, w: Wiring) -> Doc:
    out = _remove_grouped_hooks(doc, w.hook("claude-code"))
    line = out.get("statusLine")
    if isinstance(line, dict) and runs_ctx(line.get("command"), "ledger", "statusline"):
        del out["statusLine"]
    approved = out.get(APPROVE_KEY)
    if isinstance(approved, list) and MCP_NAME in approved:
        approved.remove(MCP_NAME)
        if not approved:
            del out[APPROVE_KEY]
    if w.drop_enable_all and out.get(APPROVE_ALL_KEY) is True:  # an earlier `ctx init` wrote it
        del out[APPROVE_ALL_KEY]
    return out


# --- Codex CLI, Gemini CLI, Cursor


def _cursor_add(doc: Doc, w: Wiring) -> Doc:
    out = copy.deepcopy(doc)
    out.setdefault("version", 1)
    hooks = out.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ValueError('"hooks" is not an object')
    command = w.hook("cursor")
    for event in CURSOR_EVENTS:
        entries = hooks.setdefault(event, [])
        if not isinstance(entries, list):
            raise ValueError(f'"hooks.{event}" is not a list')
        if any(_is_ours(e, command) for e in entries):
            entries[:] = _upgrade_handlers(entries, command)
        else:
            entries.append({"command": command})
    return out


def _cursor_remove(doc: Doc, w: Wiring) -> Doc:
    out = copy.deepcopy(doc)
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    command = w.hook("cursor")
    for event in list(hooks):
        if isinstance(hooks[event], list):
            kept = [e for e in hooks[event] if not _is_ours(e, command)]
            if kept:
                hooks[event] = kept
            else:
                del hooks[event]
    if not hooks:
        del out["hooks"]
        if out.get("version") == 1 and len(out) == 1:
            del out["version"]
    return out


def json_files(agent: str) -> list[JsonFile]:
    """The JSON files ``ctx init --agent AGENT`` merges into."""
    if agent == "claude-code":
        return [
            JsonFile(agent, ".claude/settings.json", False, _claude_settings_add, _claude_settings_remove),
            JsonFile(
                agent,
                ".mcp.json",
                False,
                lambda d, w: _add_mcp(d, w.mcp_entry(typed=True)),
                lambda d, w: _remove_mcp(d, w.mcp_entry(typed=True)),
            ),
        ]
    if agent == "codex":
        return [
            JsonFile(
                agent,
                ".codex/hooks.json",
                False,
                lambda d, w: _add_grouped_hooks(
                    _remove_grouped_hooks(d, w.hook("codex"), CODEX_RETIRED) if "hooks" in d else d,
                    CODEX_EVENTS,
                    CODEX_TOOL_EVENTS,
                    w.hook("codex"),
                    named=False,
                    any_tool=".*",
                ),
                lambda d, w: _remove_grouped_hooks(d, w.hook("codex")),
            )
        ]
    if agent == "gemini":

        def gemini_add(d: Doc, w: Wiring) -> Doc:
            current = _remove_grouped_hooks(d, w.hook("gemini"), GEMINI_RETIRED) if "hooks" in d else d
            out = _add_grouped_hooks(
                current, GEMINI_EVENTS, GEMINI_TOOL_EVENTS, w.hook("gemini"), named=True, any_tool=".*"
            )
            return _add_mcp(out, w.mcp_entry(typed=False))

        def gemini_remove(d: Doc, w: Wiring) -> Doc:
            return _remove_mcp(_remove_grouped_hooks(d, w.hook("gemini")), w.mcp_entry(typed=False))

        return [JsonFile(agent, ".gemini/settings.json", True, gemini_add, gemini_remove)]
    if agent == "cursor":
        return [
            JsonFile(agent, ".cursor/hooks.json", False, _cursor_add, _cursor_remove),
            JsonFile(
                agent,
                ".cursor/mcp.json",
                False,
                lambda d, w: _add_mcp(d, w.mcp_entry(typed=False)),
                lambda d, w: _remove_mcp(d, w.mcp_entry(typed=False)),
            ),
        ]
    raise ValueError(f"unknown agent {agent!r}")


# Codex 0.171 starts the first turn without waiting for a slow MCP server, and its tool_search then finds
# none of that server's tools (seen with the real client: `ctx mcp` needs ~1.5 s to start). A top-level
# key in the project's .codex/config.toml makes it wait for ctx mcp, bounded by this many milliseconds.
CODEX_MCP_GRACE_KEY = "mcp_optional_startup_grace_ms"
CODEX_MCP_GRACE_MS = 10_000


def codex_grace_block() -> str:
    return f"{CODEX_MCP_GRACE_KEY} = {CODEX_MCP_GRACE_MS}\n"


def codex_mcp_block(w: Wiring) -> str:
    """The TOML table added to ``.codex/config.toml`` (Codex reads MCP servers from config.toml only)."""
    entry = w.mcp_entry(typed=False)
    args = ", ".join(json.dumps(a) for a in entry["args"])  # a JSON string is a valid TOML basic string
    return f"[mcp_servers.{MCP_NAME}]\ncommand = {json.dumps(entry['command'])}\nargs = [{args}]\n"
