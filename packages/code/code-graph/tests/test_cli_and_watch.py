"""`python -m ctxops_code_graph index|watch` as a user runs them, and the watcher's real events."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ctxops_code_graph import CodeIndex
from ctxops_code_graph.watch_cli import IndexWatcher
from repo_fixtures import ORDERS_PY, git, make_repo


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctxops_code_graph", *args], capture_output=True, text=True, check=False
    )


def test_index_command_json_and_text(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "shop", {**ORDERS_PY, "blob.py": b"\x00\x01binary", "notes.md": "# notes\n"})
    first = _cli("index", str(root), "--json")
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)
    assert report["mode"] == "full" and report["scanned"] == 4
    status = report["status"]
    assert status["files_by_language"] == {"python": 4}
    assert status["symbols"] == 13 and status["references"] > 10 and status["edges"] > 5
    assert status["skipped_by_reason"] == {"binary": 1}
    assert report["elapsed_s"] > 0
    phases = report["phases"]
    assert set(phases) == {"discover", "scan", "load", "resolve", "rank", "snapshot", "publish"}
    assert all(seconds >= 0 for seconds in phases.values()) and sum(phases.values()) <= report["elapsed_s"]
    assert set(report["phases_cpu"]) == set(phases) and report["phases_cpu"]["scan"] > 0
    again = _cli("index", str(root))
    assert again.returncode == 0
    assert again.stdout.startswith("noop index of") and "files 4: python 4" in again.stdout
    assert "skipped: binary 1" in again.stdout
    full = _cli("index", str(root), "--full")
    assert full.stdout.startswith("full index of") and "(requested)" in full.stdout
    profiled = _cli("index", str(root), "--full", "--profile")
    table = profiled.stdout.split("phase      wall s   cpu s\n", 1)[1].splitlines()
    names = [line.split()[0] for line in table]
    assert names == ["discover", "scan", "load", "resolve", "rank", "snapshot", "publish", "total"]
    assert "none timed" in _cli("index", str(root), "--profile").stdout  # a no-op update has no phases


def test_index_command_rejects_a_missing_directory(tmp_path: Path) -> None:
    out = _cli("index", str(tmp_path / "nope"))
    assert out.returncode == 2 and "not a directory" in out.stderr
    assert _cli("frobnicate").returncode == 2


@pytest.mark.slow
def test_watcher_follows_edits_and_branch_switches(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "shop", {**ORDERS_PY, ".gitignore": ".meta/\n"})
    watcher = IndexWatcher(root, debounce=0.1)
    watcher.start()
    try:
        watcher.updated.clear()
        (root / "shop" / "audit.py").write_text("def audit():\n    return 1\n")
        assert watcher.updated.wait(15), "no update after an edit"
        reader = CodeIndex(root, auto_update=False)
        assert reader.definitions("audit") and reader.stale_files() == []

        git(root, "checkout", "-q", "-b", "feature")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "audit")
        feature_head = git(root, "rev-parse", "--short=7", "HEAD")
        deadline = time.monotonic() + 15
        while CodeIndex(root, auto_update=False).revision != feature_head and time.monotonic() < deadline:
            time.sleep(0.05)
        assert CodeIndex(root, auto_update=False).revision == feature_head

        git(root, "checkout", "-q", "main")  # audit.py disappears from the working tree
        deadline = time.monotonic() + 15
        while CodeIndex(root, auto_update=False).definitions("audit") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert CodeIndex(root, auto_update=False).definitions("audit") == []
        assert watcher.errors == []
    finally:
        watcher.stop()


@pytest.mark.slow
def test_watch_command_runs_until_terminated(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "shop", ORDERS_PY)
    proc = subprocess.Popen(
        [sys.executable, "-m", "ctxops_code_graph", "watch", str(root), "--debounce", "0.1"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("watching ")
        (root / "shop" / "late.py").write_text("def late():\n    pass\n")
        line = proc.stdout.readline()
        assert line.startswith("incremental: 1 files")
    finally:
        proc.terminate()
        assert proc.wait(timeout=10) == 0
    assert CodeIndex(root, auto_update=False).definitions("late")
