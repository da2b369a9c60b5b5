"""pytest fixtures for end-to-end tests; import them into a conftest: `from agent_harness.fixtures import *`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from .claude_code import ensure_claude_code

__all__ = ["AgentWorkspace", "agent_workspace", "claude_executable"]


@pytest.fixture(scope="session")
def claude_executable() -> Path:
    """The pinned Claude Code, installed once per cache (skips only without node/npm)."""
    return ensure_claude_code()


@dataclass(frozen=True)
class AgentWorkspace:
    project: Path  # the agent's working directory
    home: Path  # HOME for the run: transcripts land in home/.claude/projects
    hooks_log: Path  # where hook_recorder_command appends payloads
    server_log: Path  # JSONL log for a ScriptedModelServer


@pytest.fixture
def agent_workspace(tmp_path: Path) -> AgentWorkspace:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    return AgentWorkspace(project, home, tmp_path / "hooks.jsonl", tmp_path / "server-log.jsonl")
