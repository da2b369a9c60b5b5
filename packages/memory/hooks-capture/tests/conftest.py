"""Fixtures: a throwaway repository and helpers that run the capture command as the agents do."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from ctxops_contracts import AgentEvent
from ctxops_hooks_capture.events_reader import ReadReport, read_events

PAYLOADS = Path(__file__).parent / "payloads"
RECORDED_ROOT = "/home/dev/proj"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    return root


def load_payloads(name: str, root: Path) -> list[dict[str, Any]]:
    """Payloads from a fixture file, with the recorded project path rewritten to ``root``."""
    text = (PAYLOADS / name).read_text(encoding="utf-8").replace(RECORDED_ROOT, str(root))
    if name.endswith(".json"):
        return [json.loads(text)]
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def run_hook(
    agent: str,
    payload: bytes | str | dict[str, Any],
    *,
    cwd: Path,
    args: list[str] | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run ``python -m ctxops_hooks_capture AGENT`` as a subprocess with ``payload`` on stdin."""
    data = json.dumps(payload).encode() if isinstance(payload, dict) else payload
    if isinstance(data, str):
        data = data.encode()
    argv = [sys.executable, "-m", "ctxops_hooks_capture", agent, *(args or [])]
    return subprocess.run(argv, input=data, cwd=cwd, capture_output=True, timeout=60, env=env, check=False)


def events_of(root: Path) -> list[AgentEvent]:
    report = ReadReport()
    events = list(read_events(root, report=report))
    assert not report.bad_lines, report.bad_lines
    return events


CaptureFn = Callable[..., list[AgentEvent]]


@pytest.fixture
def capture_all(repo: Path) -> CaptureFn:
    """Capture payloads in-process (fast) and return the events stored so far."""
    from ctxops_hooks_capture.capture import capture

    def run(agent: str, payloads: list[dict[str, Any]]) -> list[AgentEvent]:
        for payload in payloads:
            capture(agent, json.dumps(payload).encode())
        return events_of(repo)

    return run


class Kit:
    """The helpers above, handed to tests as a fixture (test modules cannot import conftest by name)."""

    load_payloads = staticmethod(load_payloads)
    run_hook = staticmethod(run_hook)
    events_of = staticmethod(events_of)


@pytest.fixture
def kit() -> type[Kit]:
    return Kit
