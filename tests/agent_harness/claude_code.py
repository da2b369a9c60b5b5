"""Install the pinned Claude Code on demand and run it headless against a scripted model server."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

PACKAGE = "@anthropic-ai/claude-code"
VERSION_FILE = Path(__file__).with_name("claude-code-version.txt")
DEFAULT_TIMEOUT = 120.0


class ClaudeCodeInstallError(RuntimeError):
    """npm could not install the pinned Claude Code (an error, never a skip)."""


def claude_code_version() -> str:
    """The pinned version; the version file is its single source."""
    version = VERSION_FILE.read_text(encoding="utf-8").strip()
    if not version:
        raise ValueError(f"{VERSION_FILE} is empty")
    return version


def cache_root() -> Path:
    configured = os.environ.get("CTXOPS_TEST_CACHE")
    return Path(configured) if configured else Path.home() / ".cache" / "ctxops-tests"


@contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)  # parallel pytest processes wait here instead of racing npm
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def ensure_claude_code(version: str | None = None) -> Path:
    """Path of the `claude` executable of the pinned version, installed with npm into the cache if absent.

    Skips the calling test only when node or npm is missing; a failed install raises.
    """
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"Claude Code end-to-end tests need {' and '.join(missing)} on PATH (Node 18+)")
    version = version or claude_code_version()
    prefix = cache_root() / f"claude-code-{version}"
    executable = prefix / "node_modules" / ".bin" / "claude"
    marker = prefix / ".installed"
    with _file_lock(cache_root() / f"claude-code-{version}.lock"):
        if marker.is_file() and executable.exists():
            return executable
        prefix.mkdir(parents=True, exist_ok=True)
        command = ["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund", f"{PACKAGE}@{version}"]
        done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
        if done.returncode != 0 or not executable.exists():
            raise ClaudeCodeInstallError(
                f"`{' '.join(command)}` failed (exit {done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
            )
        check = subprocess.run([str(executable), "--version"], capture_output=True, text=True, timeout=60, check=False)
        if check.returncode != 0 or version not in check.stdout:
            raise ClaudeCodeInstallError(f"installed claude does not run: {check.stdout!r} {check.stderr!r}")
        marker.write_text(version + "\n", encoding="utf-8")
    return executable


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
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "HOME": str(home),
        "IS_SANDBOX": "1",
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": "sk-ant-test-not-a-real-key",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    for key, value in (extra or {}).items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


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
    done = subprocess.run(
        command,
        cwd=project,
        env=claude_env(home, base_url, env),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    try:
        output: Any = json.loads(done.stdout)
    except ValueError:
        output = None
    return ClaudeRun(done.returncode, output, done.stdout, done.stderr)


def transcripts(home: Path) -> list[Path]:
    """Every transcript Claude Code wrote under `home` (main sessions and subagents), sorted."""
    return sorted((home / ".claude" / "projects").rglob("*.jsonl"))
