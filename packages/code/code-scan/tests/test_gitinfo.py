"""Git facts: `git status` and pygit2 agree on HEAD and the dirty marker, on a real repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from ctxops_code_scan import gitinfo


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    return root


def _both(root: Path) -> gitinfo.GitFacts:
    by_cli = gitinfo.git_facts(root)
    assert by_cli == gitinfo._facts_by_pygit2(root)  # the two ways give the same facts
    return by_cli


def test_the_dirty_marker_follows_the_working_tree(repo: Path) -> None:
    assert _both(repo) == gitinfo.GitFacts(head=None, dirty=False, is_repo=True)  # unborn, nothing yet
    (repo / "a.py").write_text("x = 1\n")
    assert _both(repo).dirty  # untracked
    _git(repo, "add", "a.py")
    _git(repo, "commit", "-q", "-m", "one")
    clean = _both(repo)
    assert clean.head is not None and len(clean.head) == 40 and not clean.dirty
    assert clean.revision == clean.head[:7]
    (repo / ".meta" / "index").mkdir(parents=True)
    (repo / ".meta" / "index" / "code.duckdb").write_bytes(b"x")
    assert not _both(repo).dirty  # ctxops's own files are not an edit
    (repo / "a.py").write_text("x = 2\n")
    assert _both(repo).revision == clean.head[:7] + "-dirty"
    (repo / "a.py").write_text("x = 1\n")
    _git(repo, "mv", "a.py", "b.py")
    assert _both(repo).dirty  # a staged rename


def test_without_git_or_a_readable_repository_pygit2_decides(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (repo / "a.py").write_text("x = 1\n")
    monkeypatch.setenv("PATH", str(tmp_path / "no-such-dir"))  # no git on PATH
    assert gitinfo._dirty_by_cli(repo) is None
    assert gitinfo.git_facts(repo) == gitinfo.GitFacts(head=None, dirty=True, is_repo=True)
    fake = tmp_path / "fake"
    (fake / ".git").mkdir(parents=True)  # a directory named .git, not a repository
    monkeypatch.undo()
    assert gitinfo._dirty_by_cli(fake) is None
    assert gitinfo.git_facts(fake) == gitinfo.GitFacts(head=None, dirty=False, is_repo=False)
