# ruff: noqa: PTH109
# os.path on the hook path: `ctx hook` runs on every agent event as a fresh process; pathlib is not needed.
"""`ctx hook AGENT`: the one command agents run on every hook event.

1. capture the event (hooks-capture), always;
2. SessionStart / UserPromptSubmit (and each agent's equivalents): inject memories (memory-inject), with
   the files of identifiers named in the prompt as files in play (the code line, looked up cheaply);
3. PostToolUse (and equivalents): the context guard (memory-inject's ``guard``);
4. PreCompact / SessionEnd / Stop (and equivalents): the session digest (memory-inject).

A line that is not installed is skipped: with hooks-capture alone this is capture only. Whatever happens,
stdout carries only the agent's documented JSON (or nothing) and the exit status is 0; failures go to
``.meta/logs/``. Everything beyond capture is imported lazily, so the command stays cheap.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

USAGE = """usage: ctx hook AGENT [PAYLOAD]

The command an agent runs on every hook event (ctx init writes it into the agent's settings).
AGENT is claude-code, codex, codex-notify, gemini, cursor or generic. The event arrives as JSON on stdin
(as the last argument for codex-notify). It is captured; then, by event, memories are injected, a long
tool output is guarded, or the session digest is written. Prints only the agent's JSON; always exits 0.
"""

# Event names per agent, by what core does with them.
INJECT = {"SessionStart", "UserPromptSubmit", "BeforeAgent", "sessionStart", "beforeSubmitPrompt"}
GUARD = {"PostToolUse", "AfterTool", "postToolUse", "afterShellExecution", "afterMCPExecution"}
DIGEST = {"PreCompact", "SessionEnd", "Stop", "PreCompress", "preCompact", "stop", "sessionEnd"}

# How long finding files in play may take before injection goes on without them (seconds).
FILES_IN_PLAY_BUDGET = 0.05
MAX_IDENTIFIERS = 6


def _read_stdin() -> bytes:
    stream = sys.stdin
    if stream is None or stream.closed or stream.isatty():
        return b""
    return stream.buffer.read()


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in {"-h", "--help", "help"}:
        (sys.stdout if args else sys.stderr).write(USAGE)
        return 0
    agent, rest = args[0], args[1:]
    root: str | None = None
    try:
        data = rest[-1].encode("utf-8", "surrogateescape") if agent == "codex-notify" and rest else _read_stdin()
        root = _capture(agent, data)
        payload = _payload(data)
        if payload is None or root is None:
            return 0
        response = respond(agent, payload, root)
        if response:
            sys.stdout.write(json.dumps(response, ensure_ascii=False, separators=(",", ":")))
            sys.stdout.flush()
    except Exception as exc:  # never fail the agent: log, say nothing on stdout, exit 0
        _log(root, agent, exc)
    return 0


def _capture(agent: str, data: bytes) -> str | None:
    """Store the event (hooks-capture); the repository root, or None when there is none."""
    try:
        from ctxops_hooks_capture.capture import capture
    except ModuleNotFoundError:
        return _root_from(data)
    try:
        result = capture(agent, data, cwd_fallback=os.getcwd())
    except Exception as exc:  # a capture failure must not stop injection
        root = _root_from(data)
        _log(root, agent, exc)
        return root
    return result.root or _root_from(data)


def _payload(data: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(data or b"null")
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _root_from(data: bytes) -> str | None:
    from ctxops_contracts.shared.repo import try_find_root

    payload = _payload(data) or {}
    cwd = payload.get("cwd")
    roots = payload.get("workspace_roots")
    start = cwd if isinstance(cwd, str) else (roots[0] if isinstance(roots, list) and roots else os.getcwd())
    return try_find_root(start if isinstance(start, str) else None)


def respond(agent: str, payload: dict[str, Any], root: str) -> dict[str, Any] | None:
    """The JSON to print for this event (None: print nothing), from whichever lines are installed."""
    event = payload.get("hook_event_name") or payload.get("type") or ""
    if event in INJECT:
        handler = _line("ctxops_memory_inject.hook", "respond")
        if handler is None:
            return None
        prompt = payload.get("prompt") if isinstance(payload.get("prompt"), str) else ""
        files = files_in_play(root, prompt) if prompt else []
        result: dict[str, Any] | None = handler(agent, payload, root, files_in_play=files)
        return result
    if event in GUARD:
        handler = _line("ctxops_memory_inject.guard", "respond")
        return handler(agent, payload, root) if handler is not None else None
    if event in DIGEST:
        handler = _line("ctxops_memory_inject.hook", "respond")
        if handler is not None:
            handler(agent, payload, root, files_in_play=[])
        return None  # a digest is written, not shown: these events take no context
    return None


def _line(module: str, attribute: str) -> Any:
    """``module.attribute`` when that line is installed and offers it, else None (capture only)."""
    import importlib

    try:
        loaded = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and module.startswith(exc.name):
            return None
        raise
    return getattr(loaded, attribute, None)


def identifiers(prompt: str) -> list[str]:
    """Names in a prompt that look like code: ``snake_case``, ``CamelCase``, ``a.b`` or backquoted words."""
    import re

    found: list[str] = []
    for match in re.finditer(
        r"`([^`\s]{2,80})`|\b([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+)\b|"
        r"\b([a-z0-9]+(?:_[a-z0-9]+)+|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+)\b",
        prompt,
    ):
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
    if not names or not os.path.isdir(root + os.sep + ".meta" + os.sep + "index"):  # noqa: PTH112
        return []
    try:
        from ctxops_code_graph import CodeIndex
    except ModuleNotFoundError:
        return []
    started = time.monotonic()
    files: list[str] = []
    try:
        with CodeIndex(root, auto_update=False, check_interval=float("inf")) as index:
            for name in names:
                if time.monotonic() - started > budget:
                    break
                for symbol in index.definitions(name.rsplit("/", 1)[-1], limit=5):
                    if symbol.path not in files:
                        files.append(symbol.path)
    except Exception:  # no index, a locked or old one: inject without files in play
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
