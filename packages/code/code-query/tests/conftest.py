"""Shared fixtures: the example order service as a real git repository, indexed once per session."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[4]


@pytest.fixture(autouse=True)
def _tmp_path_is_a_repository(request: pytest.FixtureRequest) -> None:
    """A test's directory is its own repository root, whatever lies above it (a stray `/tmp/.meta` would
    otherwise make `/tmp` the root of every test, as the shared root finder says it must)."""
    if "tmp_path" in request.fixturenames:
        tmp_path: Path = request.getfixturevalue("tmp_path")
        (tmp_path / ".meta").mkdir(exist_ok=True)


def _make_history() -> Path:
    script = REPO_ROOT / "examples" / "make_history.py"
    if not script.is_file():
        pytest.skip("examples/make_history.py is not in this checkout")
    return script


@pytest.fixture(scope="session")
def example_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example repository with its code index built (read-only for tests: copy it to change it)."""
    dest = tmp_path_factory.mktemp("example") / "order-service"
    subprocess.run([sys.executable, str(_make_history()), str(dest)], check=True, capture_output=True, timeout=120)
    from ctxops_code_query.graph_backend import build_index

    build_index(dest)
    return dest


@pytest.fixture
def fresh_example(tmp_path: Path) -> Path:
    """An example repository without an index (for first-query and mutation tests)."""
    dest = tmp_path / "order-service"
    subprocess.run([sys.executable, str(_make_history()), str(dest)], check=True, capture_output=True, timeout=120)
    return dest


@pytest.fixture
def git_commit() -> Callable[[Path], None]:
    """Make a directory a real git repository with every file committed (pygit2, no `git` binary)."""

    def commit(root: Path) -> None:
        import pygit2

        repo = pygit2.init_repository(str(root))
        repo.index.add_all()
        repo.index.write()
        author = pygit2.Signature("test", "test@example.invalid")
        repo.create_commit("HEAD", author, author, "files", repo.index.write_tree(), [])

    return commit
