"""After a `git pull`, readers take the memory files git says the commits changed, not a listing of the whole
directory; a quick write lists it to sweep temporary files only when the last writer died (issue 23, item 4)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from ctxops_memory_store import MemoryStore, git_changes, new_entry, snapshot, write_marker
from ctxops_memory_store import store as store_module
from ctxops_memory_store.catalog import load_catalog
from ctxops_memory_store.entry_file import file_name, render_entry

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main"]

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(where: Path, *args: str) -> str:
    return subprocess.run([*GIT, "-C", str(where), *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture
def small_is_tiny(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(snapshot, "SMALL", 0)
    # the directory's time is settled at once (no racy window): each step's path is the one under test
    monkeypatch.setattr(snapshot, "RACY_NS", 0)
    monkeypatch.setattr(snapshot, "RACY_FINE_NS", 0)


@pytest.fixture
def cloned(repo: Path) -> tuple[Path, Path]:
    """A repository with committed memories (its snapshot in step) and a teammate's clone of it."""
    (repo / ".git").rmdir()
    _git(repo, "init", "-q")
    store = MemoryStore(repo)
    for title in ("Money is decimal.Decimal", "Logs are structured JSON", "Retry webhooks with backoff"):
        store.put(new_entry(kind="lesson", title=title))
    _git(repo, "add", ".meta/memory")
    _git(repo, "commit", "-q", "-m", "memories")
    upstream = repo.parent / "upstream"
    _git(repo.parent, "clone", "-q", str(repo), str(upstream))
    return repo, upstream


def _dirs(repo: Path) -> tuple[str, str]:
    return str(repo / ".meta" / "index"), str(repo / ".meta" / "memory")


def _meta(repo: Path) -> dict[str, str]:
    import sqlite3

    con = sqlite3.connect(repo / ".meta" / "index" / snapshot.NAME)
    try:
        return dict(con.execute("SELECT key, value FROM meta").fetchall())
    finally:
        con.close()


def _entries(records: list[dict[str, object]]) -> dict[str, object]:
    return {str(r["entry"]["id"]): r["entry"] for r in records if isinstance(r.get("entry"), dict)}  # type: ignore[index]


def _no_listing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(directory: str) -> None:
        raise AssertionError(f"listed {directory}")

    monkeypatch.setattr(snapshot, "_listing", refuse)


def test_head_is_read_from_the_git_directory(cloned: tuple[Path, Path]) -> None:
    repo, _ = cloned
    commit = _git(repo, "rev-parse", "HEAD").strip()
    assert git_changes.head(str(repo)) == commit  # a loose ref
    _git(repo, "pack-refs", "--all")
    assert git_changes.head(str(repo)) == commit  # packed-refs
    _git(repo, "worktree", "add", "-q", "--detach", str(repo.parent / "linked"))
    assert git_changes.head(str(repo.parent / "linked")) == commit  # a `gitdir:` file, a detached HEAD
    _git(repo, "checkout", "-q", "-b", "side")
    assert git_changes.head(str(repo)) == commit  # a branch whose ref lives in the common directory


def test_what_the_repository_wrote_is_checked(cloned: tuple[Path, Path], tmp_path: Path) -> None:
    repo, _ = cloned
    (repo / ".git" / "HEAD").write_text("ref: refs/../../../outside\n", encoding="utf-8")
    assert git_changes.head(str(repo)) is None  # a ref is a path under refs/, never above it
    (repo / ".git" / "HEAD").write_text("--output=/tmp/x\n", encoding="utf-8")
    assert git_changes.head(str(repo)) is None  # a commit is hex digits, never an option
    assert git_changes.changed(str(repo / ".meta" / "memory"), "--output=/tmp/x", "0" * 40) is None
    assert git_changes.head(str(tmp_path / "nowhere")) is None


def test_a_fifo_in_the_git_directory_is_not_waited_on(cloned: tuple[Path, Path]) -> None:
    repo, _ = cloned
    branch = _git(repo, "symbolic-ref", "HEAD").strip()
    (repo / ".git" / branch).unlink()
    os.mkfifo(repo / ".git" / branch)  # a FIFO where the branch's ref should be: opening it would block
    assert git_changes.head(str(repo)) is None
    (repo / ".git" / "HEAD").unlink()
    os.mkfifo(repo / ".git" / "HEAD")
    assert git_changes.head(str(repo)) is None


def test_a_pull_is_read_from_the_commits_not_a_listing(
    small_is_tiny: None, cloned: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, upstream = cloned
    index_dir, memory_dir = _dirs(repo)
    opened = snapshot.open_for_read(index_dir, memory_dir)  # the rows are the directory: HEAD is recorded
    assert opened is not None
    opened.close()
    assert _meta(repo)["git_head"] == _git(repo, "rev-parse", "HEAD").strip()
    # A teammate adds a memory, rewrites one and removes another; this repository pulls.
    theirs = upstream / ".meta" / "memory"
    pulled = new_entry(kind="lesson", title="Pin the node version in .nvmrc")
    (theirs / file_name(pulled)).write_text(render_entry(pulled), encoding="utf-8")
    names = sorted(p.name for p in theirs.glob("*.md"))
    changed = next(n for n in names if "structured" in n)
    (theirs / changed).write_text(
        (theirs / changed).read_text(encoding="utf-8").replace("Logs are structured JSON", "Logs are OTLP records"),
        encoding="utf-8",
    )
    gone = next(n for n in names if "webhooks" in n)
    (theirs / gone).unlink()
    _git(upstream, "add", "-A", ".meta/memory")
    _git(upstream, "commit", "-q", "-m", "theirs")
    _git(repo, "pull", "-q", "--ff-only", str(upstream), "main")
    listing = snapshot._listing
    _no_listing(monkeypatch)  # 50,000 names would cost more than the hook may spend
    opened = snapshot.open_for_read(index_dir, memory_dir)
    assert opened is not None
    try:
        records, _ = opened.records(["node", "log", "money"])
    finally:
        opened.close()
    monkeypatch.setattr(snapshot, "_listing", listing)
    catalog = load_catalog(memory_dir, index_dir)  # the whole directory, parsed: what the answer must equal
    assert _entries(records) == _entries(catalog.readable())
    assert "Logs are OTLP records" in str(_entries(records))
    meta = _meta(repo)
    assert meta["git_head"] == _git(repo, "rev-parse", "HEAD").strip()
    assert meta["dir_mtime_ns"] == str(Path(memory_dir).stat().st_mtime_ns)  # folded: the next reader trusts it
    assert meta["files"] == "3"
    _no_listing(monkeypatch)
    again = snapshot.open_for_read(index_dir, memory_dir)
    assert again is not None and not again.behind
    again.close()


def test_other_changes_are_still_listed(
    small_is_tiny: None, cloned: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, upstream = cloned
    index_dir, memory_dir = _dirs(repo)
    opened = snapshot.open_for_read(index_dir, memory_dir)
    assert opened is not None
    opened.close()
    # HEAD moves with commits that change no memory, and a memory file is written by hand: the listing finds it.
    (upstream / "README").write_text("hello\n", encoding="utf-8")
    _git(upstream, "add", "README")
    _git(upstream, "commit", "-q", "-m", "readme")
    _git(repo, "pull", "-q", "--ff-only", str(upstream), "main")
    by_hand = new_entry(kind="lesson", title="Vendored wheels live in third_party")
    (repo / ".meta" / "memory" / file_name(by_hand)).write_text(render_entry(by_hand), encoding="utf-8")
    opened = snapshot.open_for_read(index_dir, memory_dir, fold=False)
    assert opened is not None
    try:
        assert list(opened.overlay) == [file_name(by_hand)]
    finally:
        opened.close()
    # git unavailable: the listing, as before
    monkeypatch.setattr(git_changes, "changed", lambda *args: None)
    _git(repo, "commit", "-q", "--allow-empty", "-m", "moved")
    opened = snapshot.open_for_read(index_dir, memory_dir, fold=False)
    assert opened is not None and list(opened.overlay) == [file_name(by_hand)]
    opened.close()


def test_a_quick_write_lists_the_memory_directory_only_after_a_writer_died(
    small_is_tiny: None, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    MemoryStore(repo).put(new_entry(kind="fact", title="first"))
    MemoryStore(repo).sync_snapshot()
    memory, index = repo / ".meta" / "memory", repo / ".meta" / "index"
    assert not (index / write_marker.MARKER).exists()  # a write that ended leaves no mark
    listed: list[str] = []
    real = os.scandir

    def watched(path: str) -> object:
        listed.append(str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", watched)  # what the sweep lists (the snapshot trusts its rows here)
    result = MemoryStore(repo).quick_put(new_entry(kind="fact", title="second"))
    assert result is not None and result.action == "added"
    assert str(memory) not in listed and str(index) in listed
    # A writer killed between its temporary file and the rename leaves both the file and its mark.
    orphan = memory / f".fact-orphan-abcdef.md.999999999.{1}.tmp"
    orphan.write_text("half a memory", encoding="utf-8")
    (index / write_marker.MARKER).touch()
    listed.clear()
    result = MemoryStore(repo).quick_put(new_entry(kind="fact", title="third"))
    assert result is not None and result.action == "added"
    assert str(memory) in listed
    assert not orphan.exists() and not (index / write_marker.MARKER).exists()


def test_a_write_that_raises_leaves_its_mark(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = MemoryStore(repo)
    store.put(new_entry(kind="fact", title="first"))

    def fails(*args: object, **kwargs: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(store_module, "atomic_write", fails)
    with pytest.raises(OSError, match="disk full"):
        MemoryStore(repo).put(new_entry(kind="fact", title="second"))
    assert (repo / ".meta" / "index" / write_marker.MARKER).exists()  # the next writer sweeps


def test_git_reads_only_the_memory_directory_of_the_pulled_commits(repo: Path) -> None:
    """A pull that also changed code: git walks the memory directory's subtree only (a pathspec), so a code
    tree it cannot read (here: its object removed) does not stop the answer."""
    (repo / ".git").rmdir()
    _git(repo, "init", "-q")
    (repo / "src" / "app").mkdir(parents=True)
    (repo / "src" / "app" / "main.py").write_text("x = 1\n", encoding="utf-8")
    MemoryStore(repo).put(new_entry(kind="lesson", title="Money is decimal.Decimal"))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "one")
    old = _git(repo, "rev-parse", "HEAD").strip()
    (repo / "src" / "app" / "main.py").write_text("x = 2\n", encoding="utf-8")
    theirs = new_entry(kind="lesson", title="Logs are structured JSON")
    (repo / ".meta" / "memory" / file_name(theirs)).write_text(render_entry(theirs), encoding="utf-8")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "two")
    new = _git(repo, "rev-parse", "HEAD").strip()
    code_tree = _git(repo, "rev-parse", f"{new}:src/app").strip()
    (repo / ".git" / "objects" / code_tree[:2] / code_tree[2:]).unlink()  # a code tree git cannot read
    assert git_changes.changed(str(repo / ".meta" / "memory"), old, new) == [file_name(theirs)]


def test_git_reads_one_tree_of_the_memory_directory_not_two(repo: Path) -> None:
    """The old commit's tree against git's index (what the pull checked out): the new commit's tree of the
    memory directory (one 4.7 MB object at 50,000 memories) is never inflated (here: its object removed)."""
    (repo / ".git").rmdir()
    _git(repo, "init", "-q")
    MemoryStore(repo).put(new_entry(kind="lesson", title="Money is decimal.Decimal"))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "one")
    old = _git(repo, "rev-parse", "HEAD").strip()
    theirs = new_entry(kind="lesson", title="Logs are structured JSON")
    (repo / ".meta" / "memory" / file_name(theirs)).write_text(render_entry(theirs), encoding="utf-8")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "two")
    new = _git(repo, "rev-parse", "HEAD").strip()
    tree = _git(repo, "rev-parse", f"{new}:.meta/memory").strip()
    (repo / ".git" / "objects" / tree[:2] / tree[2:]).unlink()
    assert git_changes.changed(str(repo / ".meta" / "memory"), old, new) == [file_name(theirs)]


def test_a_checkout_that_reuses_an_inode_is_found_when_head_was_never_recorded(
    small_is_tiny: None, cloned: tuple[Path, Path]
) -> None:
    """A pull before any reader recorded HEAD (within the racy window of the last write): git cannot name the
    files, the directory is listed; a file the checkout wrote on the inode it had just freed (ext4 and tmpfs
    reuse it at once) has its row's inode and a new time: it is read, not left stale until the full check."""
    import sqlite3

    repo, upstream = cloned
    index_dir, memory_dir = _dirs(repo)
    assert "git_head" not in _meta(repo)  # the puts' rows, no reader since: HEAD never recorded
    theirs = next(p for p in (upstream / ".meta" / "memory").glob("*.md") if "structured" in p.name)
    theirs.write_text(theirs.read_text(encoding="utf-8").replace("structured JSON", "OTLP records"), encoding="utf-8")
    _git(upstream, "commit", "-q", "-am", "theirs")
    _git(repo, "pull", "-q", "--ff-only", str(upstream), "main")
    ours = Path(memory_dir) / theirs.name
    with sqlite3.connect(snapshot.path_for(index_dir)) as con:  # the inode reused: the row's inode is the file's
        con.execute("UPDATE files SET ino = ? WHERE file = ?", (ours.stat().st_ino, ours.name))
    con.close()
    opened = snapshot.open_for_read(index_dir, memory_dir, small_ok=True)
    assert opened is not None
    try:
        records, _ = opened.records(["logs", "otlp", "structured"])
    finally:
        opened.close()
    assert "OTLP records" in str(_entries(records)) and "structured JSON" not in str(_entries(records))
    assert _meta(repo)["git_head"] == _git(repo, "rev-parse", "HEAD").strip()  # folded: git names the next pull


def test_a_quick_write_after_an_unseen_checkout_finds_a_reused_inode(
    small_is_tiny: None, cloned: tuple[Path, Path]
) -> None:
    """The same checkout, then `ctx mem add` before any reader: the quick write's rows take the file's new text."""
    import sqlite3

    repo, upstream = cloned
    index_dir, memory_dir = _dirs(repo)
    theirs = next(p for p in (upstream / ".meta" / "memory").glob("*.md") if "structured" in p.name)
    theirs.write_text(theirs.read_text(encoding="utf-8").replace("structured JSON", "OTLP records"), encoding="utf-8")
    _git(upstream, "commit", "-q", "-am", "theirs")
    _git(repo, "pull", "-q", "--ff-only", str(upstream), "main")
    ours = Path(memory_dir) / theirs.name
    with sqlite3.connect(snapshot.path_for(index_dir)) as con:
        con.execute("UPDATE files SET ino = ? WHERE file = ?", (ours.stat().st_ino, ours.name))
    con.close()
    result = MemoryStore(repo).quick_put(new_entry(kind="fact", title="Deploys go through the release branch"))
    assert result is not None and result.action == "added"
    with sqlite3.connect(snapshot.path_for(index_dir)) as con:
        (entry,) = con.execute("SELECT entry FROM docs WHERE file = ?", (ours.name,)).fetchone()
    con.close()
    assert "OTLP records" in entry
