"""The public `ctx bench` task set (bench/tasks/) is well-formed: it parses as `ctx bench run` reads it, every
task decides success with a check, and every source is pinned to a registry URL and a sha256."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from ctxops_core.bench import tasks_file

TASKS = Path(__file__).resolve().parents[1] / "bench" / "tasks"


def test_the_public_task_set_parses_and_checks_every_task() -> None:
    tasks = tasks_file.load(TASKS / "TASKS.toml")
    assert len(tasks) >= 10
    assert all(task.check for task in tasks)
    dirs = {source["dir"] for source in tomllib.loads((TASKS / "sources.toml").read_text())["source"]}
    for task in tasks:  # each task names code of one of the pinned sources
        assert any(f"{d}/" in task.prompt + (task.check or "") + (task.setup or "") for d in dirs), task.name


def test_sources_are_pinned_to_registries_by_hash() -> None:
    for source in tomllib.loads((TASKS / "sources.toml").read_text())["source"]:
        assert source["url"].startswith(("https://files.pythonhosted.org/", "https://registry.npmjs.org/"))
        assert re.fullmatch(r"[0-9a-f]{64}", source["sha256"])
