"""What every agent-CLI runner shares: a clean environment with overrides, and one headless run."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any


def env_with(home: Path, defaults: Mapping[str, str], extra: Mapping[str, str | None] | None) -> dict[str, str]:
    """PATH, LANG, HOME and the client's `defaults`; then `extra`, where None removes a variable.

    Nothing else of the developer's environment (credentials, API settings) leaks into the client.
    """
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": str(home), **defaults}
    for key, value in (extra or {}).items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def run_client(
    command: Sequence[str], project: Path, env: Mapping[str, str], timeout: float
) -> subprocess.CompletedProcess[str]:
    """Run `command` in `project` with no stdin (a headless client must not wait on a terminal)."""
    return subprocess.run(
        list(command),
        cwd=project,
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def json_or_none(text: str) -> Any:
    """The JSON document `text` holds, or None when it is not JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return None


def json_lines(text: str) -> list[dict[str, Any]]:
    """Every line of `text` that is a JSON object (other lines are the client's chatter)."""
    values = (json_or_none(line) for line in text.splitlines())
    return [value for value in values if isinstance(value, dict)]
