"""TASKS.toml: the tasks a bench runs, each a ``[[task]]`` table.

```toml
[[task]]
name = "fix-parser"                      # unique, [A-Za-z0-9._-]
prompt = "Make tests/test_parser.py pass"
setup = "pip install -e . -q"            # optional, run in the fresh checkout before the agent
check = "pytest -q tests/test_parser.py" # optional: exit 0 = success; without it success is the agent's exit
timeout = 600                            # optional, seconds for the agent (default: --max-seconds)
```
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
KEYS = {"name", "prompt", "setup", "check", "timeout"}


class TasksError(ValueError):
    """TASKS.toml is missing, malformed or holds an invalid task (the message names which and why)."""


@dataclass(frozen=True)
class Task:
    name: str
    prompt: str
    setup: str | None = None
    check: str | None = None
    timeout: float | None = None


def _text(table: dict[str, object], key: str, where: str, *, required: bool) -> str | None:
    value = table.get(key)
    if value is None:
        if required:
            raise TasksError(f"{where}: `{key}` is required")
        return None
    if not isinstance(value, str) or not value.strip():
        raise TasksError(f"{where}: `{key}` must be a non-empty string, got {value!r}")
    return value


def parse(text: str, source: str = "TASKS.toml") -> list[Task]:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TasksError(f"{source}: not valid TOML: {exc}") from None
    tables = doc.get("task")
    if not isinstance(tables, list) or not tables:
        raise TasksError(f"{source}: no [[task]] tables (each needs `name` and `prompt`)")
    tasks: list[Task] = []
    seen: set[str] = set()
    for n, table in enumerate(tables, 1):
        where = f"{source}: task {n}"
        if not isinstance(table, dict):
            raise TasksError(f"{where}: must be a table")
        unknown = sorted(set(table) - KEYS)
        if unknown:
            raise TasksError(f"{where}: unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(KEYS))})")
        name = _text(table, "name", where, required=True) or ""
        if not NAME.fullmatch(name):
            raise TasksError(f"{where}: name {name!r} must be 1-64 of A-Z a-z 0-9 . _ - (it names files)")
        if name in seen:
            raise TasksError(f"{where}: name {name!r} is used twice")
        seen.add(name)
        timeout = table.get("timeout")
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0):
            raise TasksError(f"{where} ({name}): `timeout` must be a positive number of seconds, got {timeout!r}")
        tasks.append(
            Task(
                name=name,
                prompt=_text(table, "prompt", where, required=True) or "",
                setup=_text(table, "setup", where, required=False),
                check=_text(table, "check", where, required=False),
                timeout=float(timeout) if timeout is not None else None,
            )
        )
    return tasks


def load(path: Path) -> list[Task]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TasksError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TasksError(f"{path}: cannot be read ({exc})") from None
    return parse(text, str(path))
