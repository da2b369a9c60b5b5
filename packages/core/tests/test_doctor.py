"""`ctx doctor`: finds real problems in a real repository, names the fix, exits 4; a healthy one exits 0."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from ctxops_contracts.shared.locks import file_lock

# `ctx init` without its detached first build: these tests build the index themselves (`cq index`), and a
# build `ctx init` started could still be running when the test edits a file, and index it (a race on a loaded
# machine: CI once saw no stale file).
INIT = [sys.executable, "-m", "ctxops_core", "init", "--no-index", "--root"]


def doctor(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctxops_core", "doctor", "--root", str(repo), *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "m.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    return root


def test_an_unwired_repository_is_a_problem_with_its_fix(repo: Path) -> None:
    done = doctor(repo)
    assert done.returncode == 4
    assert "claude-code  not wired" in done.stdout
    assert "fix: ctx init --agent claude-code" in done.stdout
    assert "fix: ctx code index" in done.stdout


def test_a_first_build_in_progress_is_reported_not_a_problem(repo: Path) -> None:
    init = [sys.executable, "-m", "ctxops_core", "init", "--root", str(repo), "--no-index"]
    subprocess.run(init, check=True, capture_output=True)
    from ctxops_code_graph.layout import IndexLayout

    # The writer lock held, no index yet: what a background first build (`ctx init`, a first `cq`) looks like.
    with file_lock(IndexLayout(repo.resolve()).lock_path, write_pid=True):
        building = doctor(repo)
    assert "code index   being built" in building.stdout
    assert "no code index yet" not in building.stdout
    idle = doctor(repo)
    assert "code index   not built" in idle.stdout and "fix: ctx code index" in idle.stdout


def test_a_wired_and_indexed_repository_is_healthy_and_json_names_the_lock_holder(repo: Path) -> None:
    subprocess.run([*INIT, str(repo)], check=True, capture_output=True)
    subprocess.run(
        [sys.executable, "-m", "ctxops_code_query", "index", "--root", str(repo)], check=True, capture_output=True
    )
    lock = repo / ".meta" / "index" / "probe.lock"
    with file_lock(lock, write_pid=True):
        done = doctor(repo, "--json")
    assert done.returncode == 0, done.stdout
    report = json.loads(done.stdout)
    assert report["problems"] == []
    assert report["agents"]["claude-code"]["wired"] is True
    assert report["agents"]["claude-code"]["mcp"] is True
    assert all(report["git_hooks"].values())
    assert report["code_index"]["built"] is True and report["code_index"]["stale_files"] == 0
    held = [entry for entry in report["locks"] if entry["path"] == str(lock)]
    assert held == [{"path": str(lock), "held": True, "holder_pid": __import__("os").getpid()}]
    assert report["versions"]["ctxops"]


def test_a_stale_index_and_an_unreachable_hook_are_found(repo: Path) -> None:
    subprocess.run([*INIT, str(repo)], check=True, capture_output=True)
    subprocess.run(
        [sys.executable, "-m", "ctxops_code_query", "index", "--root", str(repo)], check=True, capture_output=True
    )
    settings = repo / ".claude" / "settings.json"
    doc = json.loads(settings.read_text(encoding="utf-8"))
    doc["hooks"]["Stop"][0]["hooks"][0]["command"] = "/nonexistent/ctx hook claude-code"
    settings.write_text(json.dumps(doc), encoding="utf-8")
    (repo / "m.py").write_text("def g():\n    return 2\n", encoding="utf-8")
    done = doctor(repo)
    assert done.returncode == 4
    assert "1 stale file" in done.stdout
    assert "hook command NOT reachable" in done.stdout


def test_codex_wiring_reminds_of_codex_hook_trust(tmp_path: Path) -> None:
    from ctxops_core import doctor, init_cmd

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert init_cmd.main(["--root", str(tmp_path), "--agent", "codex"]) == 0
    report = doctor.diagnose(tmp_path)
    assert report.agents["codex"]["wired"] and report.agents["codex"]["mcp"]
    line = next(x for x in doctor.render(report).splitlines() if x.strip().startswith("codex"))
    assert "NOT trusted" in line  # no Codex home here: nothing trusted (agent_trust's tests read real files)
    assert "trust" not in report.agents["claude-code"]


def test_a_damaged_code_index_is_a_problem_naming_the_file_and_the_fix(repo: Path) -> None:
    # `head -c 4096 /dev/urandom > .meta/index/code.duckdb` (issue 22): reported, not "no problems found"
    index = repo / ".meta" / "index"
    index.mkdir(parents=True)
    (index / "code.duckdb").write_bytes(b"\x01" * 4096)
    done = doctor(repo)
    assert done.returncode == 4
    assert "code.duckdb is damaged or not a DuckDB database" in done.stdout
    assert "fix: cq index --full (moves it aside, then rebuilds)" in done.stdout
    answer = json.loads(doctor(repo, "--json").stdout)
    assert answer["code_index"]["damaged"] == [str((index / "code.duckdb").resolve())]


def test_git_hooks_from_an_older_init_are_named_and_a_dangling_reconcile_is_found(repo: Path) -> None:
    """post-merge written before `ctx mem reconcile` existed: pulled memories cost the next agent hook; say so."""
    from ctxops_core import init_cmd, textblocks

    subprocess.run([*INIT, str(repo)], check=True, capture_output=True)
    hook = repo / ".git" / "hooks" / "post-merge"
    problems = json.loads(doctor(repo, "--json").stdout)["problems"]
    assert not [p for p in problems if "post-merge" in p["message"]], problems  # the new form reads as healthy
    ctx = init_cmd.ctx_argv()
    old = init_cmd.git_hook_body(ctx, "post-commit").replace("post-commit", "post-merge")  # session 12's form
    hook.write_text("#!/bin/sh\n" + textblocks.block(old), encoding="utf-8")
    found = [p for p in json.loads(doctor(repo, "--json").stdout)["problems"] if "post-merge" in p["message"]]
    assert len(found) == 1 and "older `ctx init`" in found[0]["message"] and found[0]["fix"] == "ctx init"
    gone = init_cmd.git_hook_body(("/gone/venv/bin/ctx",), "post-merge")
    hook.write_text("#!/bin/sh\n" + textblocks.block(gone), encoding="utf-8")
    found = [p for p in json.loads(doctor(repo, "--json").stdout)["problems"] if "post-merge" in p["message"]]
    assert len(found) == 1 and "/gone/venv/bin/ctx" in found[0]["message"], found
