"""Install the pinned Codex CLI on demand and run `codex exec` against the scripted model server.

Codex reads its provider from `$CODEX_HOME/config.toml`: `write_codex_config` points a provider named
`scripted` at the server's `/v1` with `wire_api = "responses"` and trusts the project (Codex loads a
project's `.codex/` layer — hooks.json, config.toml — only for a trusted project). Hooks of a new
`hooks.json` also need the user's review (`/hooks` in the TUI) before Codex runs them; a headless test has
no TUI, so `run_codex` passes `--dangerously-bypass-hook-trust` in its place.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .client_run import env_with, json_lines, run_client
from .npm_client import ensure_npm_client, pinned_version

PACKAGE = "@openai/codex"
API_KEY_ENV = "SCRIPTED_OPENAI_KEY"
DEFAULT_MODEL = "gpt-5.5"  # a model Codex 0.171 ships metadata for (it then offers tool_search)
DEFAULT_TIMEOUT = 180.0


def codex_version() -> str:
    return pinned_version("codex-version.txt")


def ensure_codex(version: str | None = None) -> Path:
    """The `codex` executable of the pinned version (skips only without node/npm; a failed install raises)."""
    return ensure_npm_client(PACKAGE, version or codex_version(), "codex", label="codex", what="Codex CLI e2e tests")


def write_codex_config(codex_home: Path, base_url: str, project: Path, *, model: str = DEFAULT_MODEL) -> Path:
    """`$CODEX_HOME/config.toml`: the scripted provider (Responses wire at `base_url`/v1), `project` trusted."""
    codex_home.mkdir(parents=True, exist_ok=True)
    path = codex_home / "config.toml"
    path.write_text(
        f"model = {json.dumps(model)}\n"
        'model_provider = "scripted"\n'
        "\n[model_providers.scripted]\n"
        'name = "scripted"\n'
        f"base_url = {json.dumps(base_url.rstrip('/') + '/v1')}\n"
        'wire_api = "responses"\n'
        f"env_key = {json.dumps(API_KEY_ENV)}\n"
        f"\n[projects.{json.dumps(str(project))}]\n"
        'trust_level = "trusted"\n',
        encoding="utf-8",
    )
    return path


@dataclass(frozen=True)
class CodexRun:
    """The outcome of one `codex exec --json` run: its JSONL events, parsed."""

    returncode: int
    events: list[dict[str, Any]]
    stdout: str
    stderr: str

    @property
    def thread_id(self) -> str:
        for event in self.events:
            if event.get("type") == "thread.started":
                return str(event["thread_id"])
        raise AssertionError(f"no thread.started in codex output: {self.stdout[:2000]!r} / {self.stderr[-2000:]!r}")

    def items(self, kind: str) -> list[dict[str, Any]]:
        """Completed items of one type (agent_message, command_execution, mcp_tool_call, ...)."""
        return [
            e["item"]
            for e in self.events
            if e.get("type") == "item.completed" and isinstance(e.get("item"), dict) and e["item"].get("type") == kind
        ]

    def check(self) -> CodexRun:
        if self.returncode != 0 or not any(e.get("type") == "turn.completed" for e in self.events):
            detail = f"{self.stdout[-4000:]}\n{self.stderr[-4000:]}"
            raise AssertionError(f"codex failed (exit {self.returncode}):\n{detail}")
        return self


def codex_env(home: Path, codex_home: Path, extra: Mapping[str, str | None] | None = None) -> dict[str, str]:
    """A clean environment: PATH, HOME, CODEX_HOME and the scripted provider's key; nothing else leaks in."""
    return env_with(home, {"CODEX_HOME": str(codex_home), API_KEY_ENV: "sk-test-not-a-real-key"}, extra)


def run_codex(
    project: Path,
    home: Path,
    prompt: str,
    *,
    codex_home: Path | None = None,
    extra_args: Sequence[str] = (),
    env: Mapping[str, str | None] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    executable: Path | None = None,
    bypass_hook_trust: bool = True,
) -> CodexRun:
    """`codex exec --json PROMPT` in `project`, approvals and sandbox bypassed, hooks trusted (see module doc)
    unless ``bypass_hook_trust`` is False: then Codex runs only the hooks trusted in its config.toml."""
    codex = executable or ensure_codex()
    codex_home = codex_home or home / ".codex"
    command = [
        str(codex),
        "exec",
        "--json",
        "--dangerously-bypass-approvals-and-sandbox",
        *(["--dangerously-bypass-hook-trust"] if bypass_hook_trust else []),
        *extra_args,
        prompt,
    ]
    done = run_client(command, project, codex_env(home, codex_home, env), timeout)
    return CodexRun(done.returncode, json_lines(done.stdout), done.stdout, done.stderr)


def rollouts(codex_home: Path) -> list[Path]:
    """Every rollout file Codex wrote under `codex_home/sessions`, sorted."""
    return sorted((codex_home / "sessions").rglob("rollout-*.jsonl"))


def project_hooks(
    project: Path, home: Path, *, trust: bool = False, executable: Path | None = None
) -> list[dict[str, Any]]:
    """Codex's own `hooks/list` for `project` (key, eventName, currentHash, trustStatus per hook), through its
    app server; with `trust`, first every hook is trusted as the user does in `/hooks`: their current
    hashes upserted under `hooks.state` with `config/batchWrite` (Codex writes `$CODEX_HOME/config.toml`)."""
    codex = executable or ensure_codex()
    proc = subprocess.Popen(
        [str(codex), "app-server"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=project,
        env=codex_env(home, home / ".codex"),
    )
    stdin, stdout = proc.stdin, proc.stdout
    assert stdin is not None and stdout is not None

    def send(message: dict[str, Any]) -> None:
        stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        stdin.flush()

    def call(request_id: int, method: str, params: dict[str, Any]) -> Any:
        send({"id": request_id, "method": method, "params": params})
        for line in stdout:
            message = json.loads(line)
            if message.get("id") == request_id:
                if "error" in message:
                    raise AssertionError(f"codex app-server {method}: {message['error']}")
                return message["result"]
        raise AssertionError(f"codex app-server ended before answering {method}")

    try:
        call(1, "initialize", {"clientInfo": {"name": "ctxops-tests", "version": "1"}})
        send({"method": "initialized"})
        hooks = call(2, "hooks/list", {"cwds": [str(project)]})["data"][0]["hooks"]
        if trust:
            state = {h["key"]: {"trusted_hash": h["currentHash"]} for h in hooks}
            edit = {"keyPath": "hooks.state", "value": state, "mergeStrategy": "upsert"}
            call(3, "config/batchWrite", {"edits": [edit]})
            hooks = call(4, "hooks/list", {"cwds": [str(project)]})["data"][0]["hooks"]
        return list(hooks)
    finally:
        proc.kill()
        proc.wait(timeout=30)
