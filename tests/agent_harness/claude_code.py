"""Install the pinned Claude Code on demand and run it headless against a scripted model server."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .client_run import env_with, json_or_none, run_client
from .npm_client import NpmInstallError, ensure_npm_client, pinned_version

PACKAGE = "@anthropic-ai/claude-code"
VERSION_FILE = Path(__file__).with_name("claude-code-version.txt")
DEFAULT_TIMEOUT = 120.0


ClaudeCodeInstallError = NpmInstallError  # npm could not install the pinned Claude Code (an error, never a skip)


def claude_code_version() -> str:
    """The pinned version; the version file is its single source."""
    return pinned_version(VERSION_FILE.name)


def ensure_claude_code(version: str | None = None) -> Path:
    """Path of the `claude` executable of the pinned version, installed with npm into the cache if absent.

    Skips the calling test only when node or npm is missing; a failed install raises.
    """
    return ensure_npm_client(
        PACKAGE, version or claude_code_version(), "claude", label="claude-code", what="Claude Code end-to-end tests"
    )


@dataclass(frozen=True)
class ClaudeRun:
    """The outcome of one `claude -p` run."""

    returncode: int
    output: Any  # parsed --output-format json (a dict), or None when stdout was not JSON
    stdout: str
    stderr: str

    @property
    def session_id(self) -> str:
        if not isinstance(self.output, dict) or "session_id" not in self.output:
            raise AssertionError(f"no session_id in claude output: {self.stdout[:2000]!r} / {self.stderr[-2000:]!r}")
        return str(self.output["session_id"])

    def check(self) -> ClaudeRun:
        """Raise with the full output unless the run succeeded."""
        ok = self.returncode == 0 and isinstance(self.output, dict) and not self.output.get("is_error")
        if not ok:
            raise AssertionError(
                f"claude failed (exit {self.returncode}):\n{self.stdout[-4000:]}\n{self.stderr[-4000:]}"
            )
        return self


def claude_env(home: Path, base_url: str, extra: Mapping[str, str | None] | None = None) -> dict[str, str]:
    """A clean environment: only PATH and the variables a headless run against `base_url` needs.

    Nothing of the developer's HOME, credentials or ANTHROPIC_* settings leaks in. In `extra`, a value of
    None removes a default (e.g. {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": None}).
    """
    defaults = {
        "IS_SANDBOX": "1",
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": "sk-ant-test-not-a-real-key",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    return env_with(home, defaults, extra)


def run_claude(
    project: Path,
    home: Path,
    prompt: str,
    base_url: str,
    *,
    extra_args: Sequence[str] = (),
    env: Mapping[str, str | None] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    executable: Path | None = None,
) -> ClaudeRun:
    """Run `claude -p PROMPT` in `project` with HOME=`home`, bypassing permissions, JSON output."""
    claude = executable or ensure_claude_code()
    home.mkdir(parents=True, exist_ok=True)
    command = [str(claude), "-p", prompt, "--permission-mode", "bypassPermissions", "--output-format", "json"]
    command += list(extra_args)
    done = run_client(command, project, claude_env(home, base_url, env), timeout)
    return ClaudeRun(done.returncode, json_or_none(done.stdout), done.stdout, done.stderr)


def transcripts(home: Path) -> list[Path]:
    """Every transcript Claude Code wrote under `home` (main sessions and subagents), sorted."""
    return sorted((home / ".claude" / "projects").rglob("*.jsonl"))
