"""`ctx mem reconcile` (what the git hooks run after a pull): the agent's next hook finds the snapshot current,
starts no git, parses and lists no file, and answers what the whole catalog says (issue 23, item 4)."""

from __future__ import annotations

import io
import shutil
import sqlite3
import subprocess
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from ctxops_contracts.shared.locks import file_lock
from ctxops_memory_store import MemoryStore, after_git, fastcli, git_changes, new_entry, snapshot
from ctxops_memory_store.catalog import load_catalog
from ctxops_memory_store.entry_file import file_name, render_entry

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main"]

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(where: Path, *args: str) -> str:
    return subprocess.run([*GIT, "-C", str(where), *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture
def large(monkeypatch: pytest.MonkeyPatch) -> None:
    """The large-store path (no stat of every file), without writing 2,000 files."""
    monkeypatch.setattr(snapshot, "SMALL", 0)


@pytest.fixture
def cloned(repo: Path) -> tuple[Path, Path]:
    (repo / ".git").rmdir()
    _git(repo, "init", "-q")
    store = MemoryStore(repo)
    for title in ("Money is decimal.Decimal", "Logs are structured JSON", "Retry webhooks with backoff"):
        store.put(new_entry(kind="lesson", title=title))
    _git(repo, "add", ".meta/memory")
    _git(repo, "commit", "-q", "-m", "memories")
    upstream = repo.parent / "upstream"
    _git(repo.parent, "clone", "-q", str(repo), str(upstream))
    # The rows are the directory: HEAD recorded. Settled first, as `ctx mem reconcile` does after a write: within
    # the racy window after the last put (50 ms) a reader lists and records nothing, and on a fast machine the
    # pull then came before any HEAD was recorded (the listing's path, not the one these tests are about).
    snapshot.settle_racy(*_dirs(repo))
    opened = snapshot.open_for_read(*_dirs(repo))
    assert opened is not None
    opened.close()
    with sqlite3.connect(snapshot.path_for(_dirs(repo)[0])) as con:
        assert con.execute("SELECT value FROM meta WHERE key = 'git_head'").fetchone() == (
            _git(repo, "rev-parse", "HEAD").strip(),
        )
    return repo, upstream


def _dirs(repo: Path) -> tuple[str, str]:
    return str(repo / ".meta" / "index"), str(repo / ".meta" / "memory")


def _teammate_pulls(repo: Path, upstream: Path) -> None:
    """A teammate adds one memory and rewrites another; this repository pulls (no git hooks here)."""
    theirs = upstream / ".meta" / "memory"
    pulled = new_entry(kind="lesson", title="Pin the node version in .nvmrc")
    (theirs / file_name(pulled)).write_text(render_entry(pulled), encoding="utf-8")
    changed = next(p for p in theirs.glob("*.md") if "structured" in p.name)
    changed.write_text(changed.read_text(encoding="utf-8").replace("structured JSON", "OTLP records"), encoding="utf-8")
    _git(upstream, "add", "-A", ".meta/memory")
    _git(upstream, "commit", "-q", "-m", "theirs")
    _git(repo, "pull", "-q", "--ff-only", str(upstream), "main")


def _reconcile(repo: Path) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert fastcli.main(["--root", str(repo), "reconcile"]) == 0  # `ctx mem reconcile`, as the git hooks run it
    return out.getvalue().strip()


def _refuse(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("the hook after a reconciled pull did work that the git hook had done")

    monkeypatch.setattr(git_changes, "changed", refused)
    monkeypatch.setattr(snapshot, "_listing", refused)
    monkeypatch.setattr(snapshot, "_parsed", refused)
    monkeypatch.setattr(snapshot, "_fold", refused)


def test_after_reconcile_the_next_reader_starts_no_git_and_parses_no_file(
    large: None, cloned: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, upstream = cloned
    _teammate_pulls(repo, upstream)
    assert _reconcile(repo) == "current"
    index_dir, memory_dir = _dirs(repo)
    with monkeypatch.context() as patched:
        _refuse(patched)
        opened = snapshot.open_for_read(index_dir, memory_dir, small_ok=True)
        assert opened is not None and not opened.behind and not opened.overlay
        try:
            records, _ = opened.records(["node", "logs", "money"])
        finally:
            opened.close()
    catalog = load_catalog(memory_dir, index_dir)  # the whole directory parsed: what the answer must equal
    found = {r["entry"]["id"]: r["entry"] for r in records}  # type: ignore[index]
    assert found == {r["entry"]["id"]: r["entry"] for r in catalog.readable()}  # type: ignore[index]
    assert "OTLP records" in str(found) and "nvmrc" in str(found)


def test_without_reconcile_the_reader_folds_the_pull_itself(
    large: None, cloned: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Git hooks not installed (or another tool pulled): the reader's own path, as before."""
    repo, upstream = cloned
    _teammate_pulls(repo, upstream)
    asked: list[str] = []
    real = git_changes.changed

    def diff(memory_dir: str, old: str, new: str) -> list[str] | None:
        asked.append("diff")
        return real(memory_dir, old, new)

    monkeypatch.setattr(git_changes, "changed", diff)
    opened = snapshot.open_for_read(*_dirs(repo), small_ok=True)
    assert opened is not None
    opened.close()
    assert asked == ["diff"]


def test_a_writer_holding_the_lock_leaves_the_fold_to_the_reader(
    large: None, cloned: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, upstream = cloned
    _teammate_pulls(repo, upstream)
    monkeypatch.setattr(snapshot, "request_sync", lambda *a: True)  # no detached process from a test
    index_dir, memory_dir = _dirs(repo)
    with file_lock(str(Path(index_dir) / snapshot.WRITE_LOCK), timeout=0):
        assert _reconcile(repo) == "behind"  # never waits: a pull is not held up by a writer
    opened = snapshot.open_for_read(index_dir, memory_dir, fold=False, small_ok=True)
    assert opened is not None and "Pin the node version" in str(opened.overlay)
    opened.close()


def test_nothing_to_do_without_a_snapshot_or_with_a_foreign_meta(repo: Path, tmp_path: Path) -> None:
    assert after_git.reconcile(str(repo)) == "none"  # no store yet
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "index").mkdir(parents=True)
    (elsewhere / "index" / snapshot.NAME).write_bytes(b"")
    (repo / ".meta").symlink_to(elsewhere)
    assert after_git.reconcile(str(repo)) == "none"  # a symlinked .meta: nothing read, nothing written


def test_unknown_arguments_go_to_the_full_cli(repo: Path) -> None:
    assert after_git.main(["reconcile", "--bogus"]) is None
    assert after_git.main(["reconcile", "--help"]) is None
    assert after_git.main(["search", "x"]) is None
