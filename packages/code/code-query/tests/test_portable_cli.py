"""`cq index --export/--import` and `cq export --scip` through the installed `cq`, in real git clones."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def _cq() -> str:
    path = Path(sys.executable).parent / "cq"
    if not path.exists():
        pytest.skip(f"no cq console script beside {sys.executable}: the package is not installed here")
    return str(path)


def cq(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([_cq(), *args], cwd=repo, capture_output=True, text=True, timeout=300, check=False)


def _git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
    env["GIT_COMMITTER_EMAIL"] = "t@t"
    subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True)


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    repo = tmp_path / "origin"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "app.py").write_text("def handler(x):\n    return x + 1\n\n\ndef main():\n    return handler(2)\n")
    _git(repo, "add", "app.py")
    _git(repo, "commit", "-qm", "init")
    return repo


def test_export_then_import_in_a_clone_that_moved_on(origin: Path, tmp_path: Path) -> None:
    archive = tmp_path / "index.tgz"
    done = cq(origin, "index", "--export", str(archive))
    assert done.returncode == 0, done.stderr
    assert "exported the index of 1 files" in done.stdout and archive.is_file()
    _git(tmp_path, "clone", "-q", str(origin), "clone")
    clone = tmp_path / "clone"
    (clone / "jobs.py").write_text("from app import handler\n\n\ndef job():\n    return handler(3)\n")
    _git(clone, "add", "jobs.py")
    _git(clone, "commit", "-qm", "jobs")
    done = cq(clone, "--json", "index", "--import", str(archive))
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["commit_matches"] is False and payload["rescanned"] == 1
    assert any("reused, then updated" in w for w in payload["warnings"])
    callers = cq(clone, "callers", "handler")
    assert callers.returncode == 0 and "jobs.py" in callers.stdout and "app.py" in callers.stdout


def test_bad_archives_are_one_line_and_exit_2(origin: Path, tmp_path: Path) -> None:
    junk = tmp_path / "junk.tgz"
    junk.write_bytes(b"\x1f\x8b not really gzip")
    for args in (["index", "--import", str(junk)], ["index", "--import", str(tmp_path / "missing.tgz")]):
        done = cq(origin, *args)
        assert done.returncode == 2, done
        assert "Traceback" not in done.stderr and done.stderr.startswith("cq: error: ")
    done = cq(origin, "index", "--export", str(tmp_path / "no" / "such" / "dir.tgz"))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    done = cq(origin, "index", "--export", "a.tgz", "--import", "b.tgz")
    assert done.returncode == 2


def test_export_scip_writes_an_index(origin: Path, tmp_path: Path) -> None:
    dest = tmp_path / "index.scip"
    done = cq(origin, "--json", "export", "--scip", str(dest))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["documents"] == 1 and report["definitions"] == 2 and report["references"] == 1
    assert b"handler" in dest.read_bytes()
    done = cq(origin, "export")
    assert done.returncode == 2 and "--scip" in done.stderr
