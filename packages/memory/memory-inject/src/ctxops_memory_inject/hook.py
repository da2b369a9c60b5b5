# ruff: noqa: PTH109
# os.path on the hook path: the hook command does without importing pathlib.
"""``python -m ctxops_memory_inject hook AGENT``: capture the event, then inject memories or write a digest.

The memory-only form of core's ``ctx hook AGENT``. The payload is read once from stdin; hooks-capture
stores the event; then, by event:

| agent | inject (``additionalContext``) | digest |
|---|---|---|
| claude-code | SessionStart, UserPromptSubmit | PreCompact, SessionEnd, Stop |
| codex | SessionStart, UserPromptSubmit | PreCompact, Stop, SessionEnd |
| gemini | SessionStart, BeforeAgent | PreCompress, SessionEnd, AfterAgent |

stdout carries only the agent's JSON (``hookSpecificOutput.additionalContext``) or nothing; the exit
status is always 0; failures go to ``.meta/logs/memory-inject.log``.
"""

from __future__ import annotations

import os
import sys

from ctxops_contracts.shared import jsonlite  # json's C code without json's imports (re, enum)
from ctxops_contracts.shared.lazylog import get_logger

TYPE_CHECKING = False  # typing is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    from typing import Any

log = get_logger(__name__)

INJECT_EVENTS = {
    "claude-code": {"SessionStart", "UserPromptSubmit"},
    "codex": {"SessionStart", "UserPromptSubmit"},
    "gemini": {"SessionStart", "BeforeAgent"},
}
DIGEST_EVENTS = {
    "claude-code": {"PreCompact", "SessionEnd", "Stop"},
    "codex": {"PreCompact", "Stop", "SessionEnd"},
    "gemini": {"PreCompress", "SessionEnd", "AfterAgent"},
}
HOOK_BUDGET = 800
# What ranking reads of a prompt (docs/security.md, promise 2: an input cap before any pattern runs).
MAX_PROMPT_SCAN = 20_000
LOG_NAME = "memory-inject.log"
NOTICE_GIVEN = "~review-notice"  # in a session's given list: memories held back for review were mentioned


class HookOutcome:
    """What one hook call did; ``stdout`` is exactly what the agent reads. (A plain class: dataclasses costs
    the hook ~5 ms of imports.)"""

    __slots__ = ("action", "memory_ids", "stdout")

    def __init__(self, stdout: str = "", action: str = "none", memory_ids: tuple[str, ...] = ()) -> None:
        self.stdout = stdout
        self.action = action  # "inject" | "digest" | "none"
        self.memory_ids = memory_ids

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HookOutcome):
            return NotImplemented
        return (self.stdout, self.action, self.memory_ids) == (other.stdout, other.action, other.memory_ids)

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value (as the dataclass was)

    def __repr__(self) -> str:
        return f"HookOutcome(stdout={self.stdout!r}, action={self.action!r}, memory_ids={self.memory_ids!r})"


def _payload(data: bytes) -> dict[str, Any]:
    try:
        value = jsonlite.loads(data.decode("utf-8", "replace")) if data.strip() else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _root(payload: dict[str, Any]) -> str | None:
    from ctxops_contracts.shared.repo import try_find_root

    cwd = payload.get("cwd")
    return try_find_root(cwd if isinstance(cwd, str) and cwd else None)


def handle(
    agent: str,
    data: bytes,
    *,
    files_in_play: tuple[str, ...] = (),
    budget: int = HOOK_BUDGET,
    capture_event: bool = True,
) -> HookOutcome:
    """Run one hook payload (the library form of the command; raises on failure, the command does not)."""
    if capture_event:
        try:
            from ctxops_hooks_capture.capture import capture

            capture(agent, data, cwd_fallback=os.getcwd())
        except Exception as exc:  # capture has its own failure modes; injection still runs
            log.warning("capture failed: %s", exc)
    payload = _payload(data)
    event = str(payload.get("hook_event_name") or "")
    family = "codex" if agent == "codex-notify" else agent
    root = _root(payload)
    if root is None:
        return HookOutcome()
    from ctxops_contracts.shared.confine import meta_is_safe

    if not meta_is_safe(root):  # a symlinked or foreign .meta: nothing read from it, nothing written
        log.warning("%s/.meta is a symlink or not yours: no memories injected", root)
        return HookOutcome()
    session_id = payload.get("session_id") if isinstance(payload.get("session_id"), str) else None
    if event in INJECT_EVENTS.get(family, set()):
        from .build import build_injection, record_injection

        prompt = payload.get("prompt")
        # ranking reads the prompt's head: an input cap before any pattern runs; ctxops's own block handed
        # back inside the prompt (Gemini's <hook_context>) is not the user's words and ranks nothing
        prompt = prompt[: MAX_PROMPT_SCAN * 2] if isinstance(prompt, str) else ""
        if prompt:
            from ctxops_hooks_capture.injected import strip_injected

            prompt = strip_injected(prompt)[:MAX_PROMPT_SCAN]
        # A (re)start, a /clear or a compaction empties the context: everything may be given again.
        given = [] if event == "SessionStart" else session_given(root, session_id)
        injection = build_injection(
            root,
            prompt or "",
            session_id=session_id,
            agent=family,
            files_in_play=files_in_play,
            budget=budget,
            exclude_ids=given,
            notice=NOTICE_GIVEN not in given,  # memories held back for review: said once a session
            vectors=True,  # with [memory.vector] hook = true: a model's cosines from the embedding cache
            model_vectors_only=True,  # never LanceDB's import on a prompt
        )
        if not injection.text:
            return HookOutcome(action="inject")
        record_injection(root, injection, agent=family, session_id=session_id, hook=event)
        said = [NOTICE_GIVEN] if injection.held_back and NOTICE_GIVEN not in given else []
        remember_given(root, session_id, [*given, *injection.memory_ids, *said])
        output = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": injection.text}}
        return HookOutcome(jsonlite.dumps(output, ensure_ascii=False), "inject", tuple(injection.memory_ids))
    if event in DIGEST_EVENTS.get(family, set()) and session_id:
        from .digest import write_digest

        digest_id = write_digest(root, session_id, agent=family)
        return HookOutcome(action="digest", memory_ids=(digest_id,) if digest_id else ())
    return HookOutcome()


def _given_path(root: str, session_id: str) -> str:
    from ctxops_contracts.shared.digest import blake2b_hex
    from ctxops_contracts.shared.layout import STATE_DIR, meta_path

    name = blake2b_hex(session_id.encode(), 8)
    return meta_path(root, STATE_DIR, "injected", f"{name}.json")


def session_given(root: str, session_id: str | None) -> list[str]:
    """Memories already put into this session's context (not repeated on the next prompt)."""
    if not session_id:
        return []
    from ctxops_contracts.shared.confine import read_regular

    try:  # a regular file only (never a FIFO or a symlink a repository put there), capped
        value = jsonlite.loads(read_regular(_given_path(root, session_id), 4_000_000))
    except (OSError, ValueError):
        return []
    return [str(v) for v in value] if isinstance(value, list) else []


def remember_given(root: str, session_id: str | None, ids: list[str]) -> None:
    if not session_id:
        return
    from ctxops_contracts.shared.files import atomic_write
    from ctxops_contracts.shared.layout import ensure_meta

    try:
        ensure_meta(root)
        atomic_write(_given_path(root, session_id), jsonlite.dumps(list(dict.fromkeys(ids))), fsync=False)
    except OSError as exc:
        log.warning("could not note the injected memories: %s", exc)


def _log_failure(agent: str, exc: BaseException) -> None:
    from datetime import UTC, datetime

    from ctxops_contracts.shared.files import append_lines
    from ctxops_contracts.shared.layout import LOGS_DIR, meta_path, meta_subdir
    from ctxops_contracts.shared.repo import try_find_root

    root = try_find_root()
    if root is None:
        return
    try:
        meta_subdir(root, LOGS_DIR)  # a symlinked .meta or .meta/logs is refused: nothing written
        line = f"{datetime.now(UTC).isoformat()} {agent}: {type(exc).__name__}: {exc}".replace("\n", " ") + "\n"
        append_lines(meta_path(root, LOGS_DIR, LOG_NAME), line.encode("utf-8", "replace"), fsync=False)
    except OSError:
        pass


def main(argv: list[str]) -> int:
    """The command: never exits non-zero, prints only the agent's JSON."""
    agent = argv[0] if argv else "claude-code"
    try:
        data = sys.stdin.buffer.read() if sys.stdin is not None and not sys.stdin.isatty() else b""
        outcome = handle(agent, data)
        if outcome.stdout:
            sys.stdout.write(outcome.stdout + "\n")
            sys.stdout.flush()
    except Exception as exc:  # a hook never breaks the agent
        _log_failure(agent, exc)
    return 0
