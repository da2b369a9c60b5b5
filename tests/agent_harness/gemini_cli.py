"""Install the pinned Gemini CLI on demand and run `gemini -p` headless against the scripted model server.

Gemini CLI talks to `GOOGLE_GEMINI_BASE_URL` with `GEMINI_API_KEY` once `~/.gemini/settings.json` selects
API-key auth; `GEMINI_CLI_TRUST_WORKSPACE=true` trusts the project folder (an untrusted folder's
`.gemini/settings.json` — hooks, MCP servers — is ignored), and `--yolo` approves every tool call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .client_run import env_with, json_or_none, run_client
from .npm_client import ensure_npm_client, pinned_version

PACKAGE = "@google/gemini-cli"
DEFAULT_MODEL = "gemini-2.5-pro"
DEFAULT_TIMEOUT = 180.0


def gemini_cli_version() -> str:
    return pinned_version("gemini-cli-version.txt")


def ensure_gemini_cli(version: str | None = None) -> Path:
    """The `gemini` executable of the pinned version (skips only without node/npm; a failed install raises)."""
    return ensure_npm_client(
        PACKAGE, version or gemini_cli_version(), "gemini", label="gemini-cli", what="Gemini CLI e2e tests"
    )


def write_gemini_user_settings(home: Path, extra: Mapping[str, Any] | None = None) -> Path:
    """`HOME/.gemini/settings.json`: API-key auth (the key and base URL come from the environment)."""
    path = home / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    settings: dict[str, Any] = {"security": {"auth": {"selectedType": "gemini-api-key"}}}
    settings.update(extra or {})
    path.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    return path


@dataclass(frozen=True)
class GeminiRun:
    """The outcome of one `gemini -p --output-format json` run."""

    returncode: int
    output: Any  # the parsed JSON document, or None
    stdout: str
    stderr: str

    def check(self) -> GeminiRun:
        if self.returncode != 0 or not isinstance(self.output, dict) or self.output.get("error"):
            raise AssertionError(
                f"gemini failed (exit {self.returncode}):\n{self.stdout[-4000:]}\n{self.stderr[-4000:]}"
            )
        return self


def gemini_env(home: Path, base_url: str, extra: Mapping[str, str | None] | None = None) -> dict[str, str]:
    """A clean environment: PATH, HOME and what points Gemini CLI at `base_url`; nothing else leaks in."""
    defaults = {
        "GEMINI_API_KEY": "test-not-a-real-key",
        "GOOGLE_GEMINI_BASE_URL": base_url,
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
        "GEMINI_TELEMETRY_ENABLED": "false",
        "NO_COLOR": "1",
    }
    return env_with(home, defaults, extra)


def run_gemini(
    project: Path,
    home: Path,
    prompt: str,
    base_url: str,
    *,
    model: str = DEFAULT_MODEL,
    extra_args: Sequence[str] = (),
    env: Mapping[str, str | None] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    executable: Path | None = None,
) -> GeminiRun:
    """`gemini -p PROMPT --yolo --output-format json -m MODEL` in `project` with HOME=`home`."""
    gemini = executable or ensure_gemini_cli()
    command = [str(gemini), "-p", prompt, "--yolo", "--output-format", "json", "-m", model, *extra_args]
    done = run_client(command, project, gemini_env(home, base_url, env), timeout)
    return GeminiRun(done.returncode, json_or_none(done.stdout), done.stdout, done.stderr)


def session_files(home: Path) -> list[Path]:
    """Every chat recording Gemini CLI wrote under `home/.gemini/tmp`, sorted."""
    root = home / ".gemini" / "tmp"
    return sorted(p for p in root.rglob("*") if p.is_file() and p.parent.name == "chats")
