"""One headless agent run: the command line per agent, a time cap, and what its output says.

The agent inherits the caller's environment (base URL, keys), so the same bench runs against a provider or a
local server. Each run is a process group of its own: a timeout or Ctrl-C ends the agent and its children
(MCP servers, hooks, tools), never only the top process.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

EXECUTABLES = {"claude-code": "claude", "codex": "codex", "gemini": "gemini"}
MAX_OUTPUT = 20_000_000  # bytes of stdout kept (a runaway agent must not exhaust memory)


class AgentNotFound(RuntimeError):
    """The agent's executable is not on PATH (nor given with --agent-command)."""


@dataclass
class AgentRun:
    returncode: int | None  # None: killed at the time cap
    seconds: float
    session_id: str | None = None
    reported_cost_usd: float | None = None  # what the agent itself reports (Claude Code's total_cost_usd)
    reported_turns: int | None = None
    is_error: bool = False
    stderr_tail: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


def executable(agent: str, override: str | None = None) -> str:
    name = override or os.environ.get(f"CTXOPS_BENCH_{agent.upper().replace('-', '_')}") or EXECUTABLES[agent]
    found = shutil.which(name)
    if found is None:
        raise AgentNotFound(f"{agent}: `{name}` is not on PATH (install it, or pass --agent-command PATH)")
    return found


def command(agent: str, exe: str, prompt: str, *, wired: bool, checkout: str) -> list[str]:
    """The headless command line: tools approved (the checkout is throwaway), machine-readable output.

    A new checkout is a folder the agent has never been told to trust; the trust a user gives their checkout
    once is given to it here, in every arm alike (Codex: the project's trust level as a `-c` override for this
    run only, so the user's config.toml is not touched; Gemini: ``GEMINI_CLI_TRUST_WORKSPACE``, set by
    :func:`environment`).
    """
    if agent == "claude-code":
        return [exe, "-p", prompt, "--output-format", "json", "--permission-mode", "bypassPermissions"]
    if agent == "codex":
        # An inline table (the dotted form `projects."P".trust_level` is not applied by Codex 0.171, and
        # `codex exec --trust` would write the throwaway path into the user's config.toml for good).
        trust = "projects={" + json.dumps(checkout) + '={trust_level="trusted"}}'
        argv = [exe, "exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "-c", trust]
        # A wired arm's hooks need the review a user gives once in the TUI (/hooks); headless, this flag is it.
        return [*argv, *(["--dangerously-bypass-hook-trust"] if wired else []), prompt]
    if agent == "gemini":
        return [exe, "-p", prompt, "--yolo", "--output-format", "json"]
    raise ValueError(agent)


def environment(agent: str, base: Mapping[str, str]) -> dict[str, str]:
    """The caller's environment for the agent, with the folder trust of :func:`command`."""
    env = dict(base)
    if agent == "gemini":
        env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
    return env


def _parse(agent: str, stdout: str, run: AgentRun) -> None:
    if agent in ("claude-code", "gemini"):
        try:
            doc = json.loads(stdout)
        except ValueError:
            run.is_error = True
            return
        if not isinstance(doc, dict):
            run.is_error = True
            return
        run.session_id = str(doc["session_id"]) if doc.get("session_id") else None
        cost = doc.get("total_cost_usd")
        run.reported_cost_usd = float(cost) if isinstance(cost, int | float) else None
        turns = doc.get("num_turns")
        run.reported_turns = turns if isinstance(turns, int) else None
        run.is_error = bool(doc.get("is_error")) or bool(doc.get("error"))
        return
    for line in stdout.splitlines():  # codex exec --json: one event a line
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("type") == "thread.started":
            run.session_id = str(event.get("thread_id") or "") or None
        if isinstance(event, dict) and event.get("type") in ("turn.failed", "error"):
            run.is_error = True


def run(
    agent: str, argv: list[str], cwd: Path, env: Mapping[str, str], timeout: float, *, stop: Any = None
) -> AgentRun:
    """Run ``argv`` in ``cwd``; kill its process group at ``timeout`` seconds or when ``stop()`` is true."""
    start = time.monotonic()
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        kill_group(proc)
        stdout, stderr = proc.communicate()
        code = None
    except BaseException:  # Ctrl-C: the agent and everything it started go too
        kill_group(proc)
        proc.wait()
        raise
    result = AgentRun(returncode=code, seconds=time.monotonic() - start)
    result.stderr_tail = stderr[-2000:].decode("utf-8", "replace")
    _parse(agent, stdout[:MAX_OUTPUT].decode("utf-8", "replace"), result)
    if code not in (0, None):
        result.is_error = True
    return result


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout=3)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
