"""`git status` stays clean and a damaged or foreign index is reported, not a traceback (issue 22, item 5).

Everything runs through the installed `cq` console script in real git repositories.
"""

from __future__ import annotations

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


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
    env["GIT_COMMITTER_EMAIL"] = "t@t"
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True).stdout


def cq(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([_cq(), *args], cwd=repo, capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture()
def clone(tmp_path: Path) -> Path:
    origin = tmp_path / "origin"
    origin.mkdir()
    _git(origin, "init", "-q")
    (origin / "app.py").write_text("def handler(x):\n    return x + 1\n\n\ndef main():\n    return handler(2)\n")
    _git(origin, "add", "app.py")
    _git(origin, "commit", "-qm", "init")
    _git(tmp_path, "clone", "-q", str(origin), "clone")
    return tmp_path / "clone"


def _indexed(repo: Path) -> None:
    done = cq(repo, "index")
    assert done.returncode == 0, done.stderr


def test_cq_in_a_fresh_clone_leaves_git_status_clean(clone: Path) -> None:
    first = cq(clone, "def", "handler")
    assert first.returncode == 0 and "app.py:1" in first.stdout, first.stderr
    _indexed(clone)  # waits for the background first build, then writes the search documents
    assert (clone / ".meta" / "index" / "code.duckdb").exists()
    assert _git(clone, "status", "--porcelain", "--untracked-files=all") == ""


def _one_error(done: subprocess.CompletedProcess[str], *words: str) -> None:
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines[0].startswith("cq: error: ") and all(w in lines[0] for w in words), lines
    assert lines[1:] == ["  fix: cq index --full (moves the damaged file aside, then rebuilds the index)"]


def test_a_damaged_build_store_is_reported_then_moved_aside_by_a_full_build(clone: Path) -> None:
    _indexed(clone)
    store = clone / ".meta" / "index" / "code.duckdb"
    garbage = os.urandom(4096)
    store.write_bytes(garbage)
    _one_error(cq(clone, "index"), "code.duckdb", "damaged")
    answered = cq(clone, "def", "handler")  # queries read the snapshot: still answered
    assert answered.returncode == 0 and "app.py:1" in answered.stdout
    rebuilt = cq(clone, "index", "--full")
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert "moved aside code.duckdb.damaged-" in rebuilt.stdout
    (aside,) = store.parent.glob("code.duckdb.damaged-*")
    assert aside.read_bytes() == garbage  # kept, byte for byte
    assert cq(clone, "index").returncode == 0
    assert cq(clone, "callers", "handler").returncode == 0


def test_a_foreign_duckdb_file_is_not_overwritten_by_an_update(clone: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    _indexed(clone)
    store = clone / ".meta" / "index" / "code.duckdb"
    store.unlink()
    con = duckdb.connect(str(store))
    con.execute("CREATE TABLE mine AS SELECT 42 AS answer")
    con.close()
    _one_error(cq(clone, "index"), "not a ctxops code index")
    assert cq(clone, "index", "--full").returncode == 0
    (aside,) = store.parent.glob("code.duckdb.damaged-*")
    con = duckdb.connect(str(aside), read_only=True)
    assert con.execute("SELECT answer FROM mine").fetchone() == (42,)
    con.close()


def test_a_damaged_snapshot_is_moved_aside_and_rebuilt_without_being_asked(clone: Path) -> None:
    _indexed(clone)
    index = clone / ".meta" / "index"
    name = (index / "code-lookup.current").read_text().strip()
    (index / name).write_bytes(os.urandom(4096))
    done = cq(clone, "index")
    assert done.returncode == 0, done.stderr
    assert list(index.glob(f"{name}.damaged-*"))
    answered = cq(clone, "def", "handler")
    assert answered.returncode == 0 and "app.py:1" in answered.stdout and "provisional" not in answered.stdout
