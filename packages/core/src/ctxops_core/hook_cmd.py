# ruff: noqa: PTH109, PTH110, PTH112, PTH117, PTH118
# os.path on the hook path: `ctx hook` runs on every agent event as a fresh process; pathlib is not needed.
"""`ctx hook AGENT`: the one command agents run on every hook event.

1. capture the event (hooks-capture), always;
2. SessionStart / UserPromptSubmit (and each agent's equivalents): inject memories
   (``ctxops_memory_inject.hook.handle``), with the files of identifiers named in the prompt as files in
   play (the code line's lean reader, looked up cheaply);
3. PostToolUse (and equivalents): the context guard (``ctxops_memory_inject.guard.handle``);
4. PreCompact / SessionEnd / Stop (and equivalents): the session digest (``hook.handle`` again: it
   decides by event).

A line that is not installed is skipped: with hooks-capture alone this is capture only. Whatever happens,
stdout carries only the agent's documented JSON (or nothing) and the exit status is 0; failures go to
``.meta/logs/``. Everything beyond capture is imported lazily, so the command stays cheap.
"""

from __future__ import annotations

import os
import sys
import time

from ctxops_contracts.shared import jsonlite  # json's C code without importing json, re and enum (~10 ms)

TYPE_CHECKING = False  # typing is not imported on the hook path (~4 ms); type checkers treat this as True
if TYPE_CHECKING:
    from typing import Any

USAGE = """usage: ctx hook AGENT [PAYLOAD]

The command an agent runs on every hook event (ctx init writes it into the agent's settings).
AGENT is claude-code, codex, codex-notify, gemini, cursor or generic. The event arrives as JSON on stdin
(as the last argument for codex-notify). It is captured; then, by event, memories are injected, a long
tool output is guarded, or the session digest is written. Prints only the agent's JSON; always exits 0.
"""

# Event names per agent, by what core does with them.
INJECT = {"SessionStart", "UserPromptSubmit", "BeforeAgent", "sessionStart", "beforeSubmitPrompt"}
# The context guard answers tool events and forgets what was read when the context is emptied.
GUARD = {"PreToolUse", "PostToolUse", "AfterTool", "postToolUse", "afterShellExecution", "afterMCPExecution"}
GUARD_RESET = {"SessionStart", "PreCompact", "PostCompact"}
DIGEST = {"PreCompact", "SessionEnd", "Stop", "PreCompress", "AfterAgent", "preCompact", "stop", "sessionEnd"}

# How long finding files in play may take before injection goes on without them (seconds).
FILES_IN_PLAY_BUDGET = 0.05
MAX_IDENTIFIERS = 6
# Identifiers are looked for in a prompt's first MAX_PROMPT_SCAN characters (an input cap before any
# pattern runs: docs/security.md, promise 2); a pasted log of megabytes names nothing useful further on.
MAX_PROMPT_SCAN = 20_000


def _read_stdin() -> bytes:
    stream = sys.stdin
    if stream is None or stream.closed or stream.isatty():
        return b""
    return stream.buffer.read()


def main(argv: list[str] | None = None, *, data: bytes | None = None) -> int:
    """Run one hook event; ``data`` is the payload when the caller has read it already."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in {"-h", "--help", "help"}:
        (sys.stdout if args else sys.stderr).write(USAGE)
        return 0
    agent = args[0]
    root: str | None = None
    try:
        if data is None:
            data = read_payload(args)
        payload = _payload(data)  # parsed once: capture and the lines read the same value
        root = _capture(agent, data, payload)
        if payload is None or root is None:
            return 0
        from ctxops_contracts.shared.confine import meta_is_safe  # loaded by capture already

        if not meta_is_safe(root):
            return 0  # a symlinked or foreign .meta (capture logged it elsewhere): no injection, no guard
        response = respond(agent, payload, root, data)
        if response:
            jsonlite.loads(response)  # only the agent's JSON ever reaches stdout
            sys.stdout.write(response if response.endswith("\n") else response + "\n")
            sys.stdout.flush()
    except Exception as exc:  # never fail the agent: log, say nothing on stdout, exit 0
        _log(root, agent, exc)
    return 0


def read_payload(args: list[str]) -> bytes:
    """The event as the agent sent it: the last argument for codex-notify, else stdin."""
    agent, rest = args[0], args[1:]
    return rest[-1].encode("utf-8", "surrogateescape") if agent == "codex-notify" and rest else _read_stdin()


def _capture(agent: str, data: bytes, payload: dict[str, Any] | None) -> str | None:
    """Store the event (hooks-capture); the repository root, or None when there is none."""
    try:
        from ctxops_hooks_capture.capture import capture
    except ModuleNotFoundError:
        return _root_from(payload)
    try:
        result = capture(agent, data, cwd_fallback=os.getcwd(), parsed=payload)
    except Exception as exc:  # a capture failure must not stop injection
        root = _root_from(payload)
        _log(root, agent, exc)
        return root
    return result.root or _root_from(payload)


def _payload(data: bytes) -> dict[str, Any] | None:
    """The payload object, or None. Through hooks-capture's reader when it is installed: its time is
    bounded whatever the payload holds (a huge one is read from a prefix)."""
    try:
        from ctxops_hooks_capture.payload import parse_payload
    except ModuleNotFoundError:
        try:
            value = jsonlite.loads(data or b"null")
        except ValueError:
            return None
        return value if isinstance(value, dict) else None
    try:
        value, truncated = parse_payload(data)
    except ValueError:  # PayloadError: capture logs it
        return None
    if truncated:
        value["ctxops_truncated_bytes"] = truncated
    return value


def _root_from(payload: dict[str, Any] | None) -> str | None:
    from ctxops_contracts.shared.repo import try_find_root

    payload = payload or {}
    cwd = payload.get("cwd")
    roots = payload.get("workspace_roots")
    start = cwd if isinstance(cwd, str) else (roots[0] if isinstance(roots, list) and roots else os.getcwd())
    return try_find_root(start if isinstance(start, str) else None)


def respond(agent: str, payload: dict[str, Any], root: str, data: bytes) -> str:
    """What to print for this event ("" for nothing), from whichever lines are installed.

    ``data`` is the payload as the agent sent it: memory-inject's handler reads it as its own command does.
    """
    event = str(payload.get("hook_event_name") or "")
    if event in GUARD and payload.get("ctxops_truncated_bytes"):
        return ""  # read from a prefix (a huge payload of many tokens): the tool's output is left as it is
    from .lines import switched_on

    on = switched_on(root)  # config.toml read once per event
    if (event in GUARD or event in GUARD_RESET) and "guard" in on:
        passes = _line("ctxops_memory_inject.guard.gate", "passes") if event == "PostToolUse" else None
        if passes is not None and passes(payload, root, agent=agent):
            return ""  # a small output: decided without importing the guard's handlers
        guard = _line("ctxops_memory_inject.guard", "handle_event")
        outline = outline_from_code_map(root) if "map" in on else None
        answer = guard(payload, root, agent=agent, outline=outline) if guard else None
        if event in GUARD:
            return jsonlite.dumps(answer, ensure_ascii=False) if answer else ""
    if (event not in INJECT and event not in DIGEST) or "memory" not in on:
        return ""
    handle = _line("ctxops_memory_inject.hook", "handle")
    if handle is None:
        return ""
    prompt = payload.get("prompt") if isinstance(payload.get("prompt"), str) else ""
    files = files_in_play(root, prompt) if event in INJECT and prompt and "map" in on else []
    if event in DIGEST and "map" in on:
        from .codeties import install  # lessons harvested with the digest tie to the symbols they name

        install()
    # memory-inject decides by event: inject (its JSON on stdout) or write the digest (nothing printed).
    outcome = handle(agent, data, files_in_play=tuple(files), capture_event=False)
    return str(getattr(outcome, "stdout", "") or "")


def outline_from_code_map(root: str) -> Any:
    """For the guard: ``(path, text) -> outline`` from the code index, or None to use its own fallback.

    The code line is imported only when the guard asks (a long Read), and the outline is given only when
    the index describes this very text (same size), so line numbers are never stale.
    """

    def outline(path: str, text: str) -> str | None:
        try:
            from ctxops_code_graph import CodeIndex

            rel = os.path.relpath(path, root) if os.path.isabs(path) else path
            with CodeIndex(root, auto_update=False, check_interval=float("inf")) as index:
                record = index.file(rel)
                if record is None or record.size != len(text.encode("utf-8")):
                    return None
                symbols = index.symbols_in_file(rel)
        except Exception:  # no index or an old one: the guard outlines by itself
            return None
        rows = [f"{s.line}  {s.kind} {s.qualname}{s.signature or ''}" for s in symbols]
        return "\n".join(rows) or None

    return outline


def _line(module: str, attribute: str) -> Any:
    """``module.attribute`` when that line is installed and offers it, else None (capture only).

    Packages of ctxops load their names lazily, so importing one that lacks ``module`` costs little; and
    ``importlib.util`` (to look before importing) costs more than that on the hook path.
    """
    try:
        loaded = __import__(module, fromlist=[attribute])
    except ModuleNotFoundError as exc:
        if exc.name and module.startswith(exc.name):
            return None  # the line is absent or offers no such module
        raise
    return getattr(loaded, attribute, None)


def identifiers(prompt: str) -> list[str]:
    """Names in a prompt that look like code: ``snake_case``, ``CamelCase``, ``a.b`` or backquoted words."""
    from ctxops_contracts.shared.regex import compile as re_compile  # cached opcodes: re is not imported

    found: list[str] = []
    for match in re_compile(
        r"`([^`\s]{2,80})`|\b([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+)\b|"
        r"\b(_*[a-z0-9]+(?:_[a-z0-9]+)+|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+)\b"
    ).finditer(prompt[:MAX_PROMPT_SCAN]):
        name = next(g for g in match.groups() if g)
        if name not in found:
            found.append(name)
        if len(found) >= MAX_IDENTIFIERS:
            break
    return found


def files_in_play(root: str, prompt: str, budget: float = FILES_IN_PLAY_BUDGET) -> list[str]:
    """Repository files defining identifiers named in the prompt, from the code index when one exists.

    Cheap by construction: no index build or update (a missing index gives nothing), at most a few names,
    and the lookup stops at ``budget`` seconds; injection never waits on the code line.
    """
    names = identifiers(prompt)
    if not names or not os.path.isdir(os.path.join(root, ".meta", "index")):
        return []
    try:
        from ctxops_code_graph import reader  # the code line's lean read path: stdlib sqlite3 only
        from ctxops_code_graph.schema import INDEX_FORMAT
    except ModuleNotFoundError:
        return []
    started = time.monotonic()
    files: list[str] = []
    try:
        snapshot = reader.current_snapshot(root)
        if snapshot is None or not os.path.exists(snapshot):
            return []
        con = reader.connect(snapshot)
        try:
            if reader.meta(con).get("format") != INDEX_FORMAT:
                return []
            for name in names:
                if time.monotonic() - started > budget:
                    break
                for row in reader.definition_rows(con, name, limit=5):
                    path = str(row[5])  # reader.SYMBOL_SELECT: id, name, qualname, kind, lang, path, ...
                    if path not in files:
                        files.append(path)
        finally:
            con.close()
    except Exception:  # a locked, old or half-written index: inject without files in play
        return files
    return files


def _log(root: str | None, agent: str, exc: BaseException) -> None:
    try:
        from ctxops_hooks_capture.errorlog import log_failure

        log_failure(root, agent, exc)
    except Exception:
        sys.stderr.write(f"ctx hook: {type(exc).__name__}: {exc}\n")


if __name__ == "__main__":
    sys.exit(main())
