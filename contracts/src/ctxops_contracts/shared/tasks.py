"""The task a repository is working on, as intervals in time, so usage can be attributed afterwards.

``ctx task start NAME`` / ``ctx task stop`` append one JSON line each to ``<user data dir>/tasks.jsonl``
(per user, like the ledger; every line names its repository). Nothing is rewritten: the intervals are
derived by reading the lines in order. Hooks, transcripts and proxy records are attributed to a task by
(repository, time) with :func:`task_at`; the ledger falls back to the git branch, then to the session.
"""

from __future__ import annotations

import bisect
import json
import logging
import os
from dataclasses import dataclass
from datetime import UTC, datetime

from .files import append_lines
from .layout import user_data_dir

TASKS_FILE = "tasks.jsonl"
MAX_NAME = 200

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TaskInterval:
    """``name`` was the task of ``repo`` from ``start`` until ``end`` (None: still running)."""

    repo: str
    name: str
    start: datetime
    end: datetime | None = None

    def covers(self, ts: datetime) -> bool:
        return self.start <= ts and (self.end is None or ts < self.end)


def tasks_path(data_dir: str | None = None) -> str:
    return os.path.join(data_dir or user_data_dir(), TASKS_FILE)


def _now(at: datetime | None) -> datetime:
    when = at or datetime.now(UTC)
    if when.tzinfo is None:
        raise ValueError("task times must carry a time zone")
    return when.astimezone(UTC)


def check_name(name: str) -> str:
    """A task name: one line of printable text, at most 200 characters."""
    cleaned = name.strip()
    if not cleaned or len(cleaned) > MAX_NAME or not cleaned.isprintable():
        raise ValueError(f"a task name is one line of printable text, 1-{MAX_NAME} characters; got {name!r}")
    return cleaned


def _append(entry: dict[str, str], data_dir: str | None) -> None:
    line = json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n"
    append_lines(tasks_path(data_dir), line.encode())


def start(repo: str, name: str, *, at: datetime | None = None, data_dir: str | None = None) -> TaskInterval:
    """Make ``name`` the current task of ``repo`` (closing the one before, if any)."""
    when = _now(at)
    task = check_name(name)
    _append({"repo": repo, "event": "start", "task": task, "ts": when.isoformat()}, data_dir)
    return TaskInterval(repo=repo, name=task, start=when)


def stop(repo: str, *, at: datetime | None = None, data_dir: str | None = None) -> TaskInterval | None:
    """End the current task of ``repo``; return the closed interval, or None when none was running."""
    running = current(repo, data_dir=data_dir)
    if running is None:
        return None
    when = _now(at)
    _append({"repo": repo, "event": "stop", "ts": when.isoformat()}, data_dir)
    return TaskInterval(repo=repo, name=running.name, start=running.start, end=max(when, running.start))


def intervals(repo: str | None = None, *, data_dir: str | None = None) -> list[TaskInterval]:
    """Every recorded interval (of ``repo``, or of all repositories), oldest first.

    A start closes the repository's running task; a damaged line is skipped and logged, never fatal.
    """
    path = tasks_path(data_dir)
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.readlines()
    except FileNotFoundError:
        return []
    running: dict[str, TaskInterval] = {}
    done: list[TaskInterval] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            which = str(entry["repo"])
            when = datetime.fromisoformat(entry["ts"]).astimezone(UTC)
            event = entry["event"]
        except (ValueError, KeyError, TypeError):
            log.warning("%s:%d: not a task line, skipped", path, number)
            continue
        if repo is not None and which != repo:
            continue
        previous = running.pop(which, None)
        if previous is not None:
            done.append(TaskInterval(previous.repo, previous.name, previous.start, max(when, previous.start)))
        if event == "start" and isinstance(entry.get("task"), str):
            running[which] = TaskInterval(repo=which, name=entry["task"], start=when)
    done.extend(running.values())
    done.sort(key=lambda i: (i.start, i.repo))
    return done


def current(repo: str, *, data_dir: str | None = None) -> TaskInterval | None:
    """The running task of ``repo``, if one was started and not stopped."""
    found = [i for i in intervals(repo, data_dir=data_dir) if i.end is None]
    return found[-1] if found else None


class TaskIndex:
    """Answers "which task was ``repo`` on at ``ts``" quickly for many lookups (sorted starts per repo)."""

    def __init__(self, found: list[TaskInterval]) -> None:
        self._by_repo: dict[str, list[TaskInterval]] = {}
        for interval in sorted(found, key=lambda i: i.start):
            self._by_repo.setdefault(interval.repo, []).append(interval)
        self._starts = {repo: [i.start for i in items] for repo, items in self._by_repo.items()}

    def task_at(self, repo: str | None, ts: datetime) -> str | None:
        if repo is None or repo not in self._by_repo:
            return None
        position = bisect.bisect_right(self._starts[repo], ts) - 1
        if position < 0:
            return None
        interval = self._by_repo[repo][position]
        return interval.name if interval.covers(ts) else None


def task_at(repo: str | None, ts: datetime, *, data_dir: str | None = None) -> str | None:
    """The task ``repo`` was on at ``ts`` (one lookup; use :class:`TaskIndex` for many)."""
    return TaskIndex(intervals(repo, data_dir=data_dir) if repo else []).task_at(repo, ts)
