"""Git facts for an index revision: HEAD (cheaply, without pygit2) and the dirty marker (pygit2)."""

# os.path, not pathlib, and no dataclasses: `read_head` runs in every fresh `cq def` process.
# ruff: noqa: PTH112, PTH113, PTH117, PTH118

from __future__ import annotations

import os
import stat

_MAX_GIT_FILE = 4_000_000  # HEAD, a ref, packed-refs: a repository with more refs than this is read in part
TYPE_CHECKING = False  # not `from typing import ...`: typing costs a fresh process milliseconds

if TYPE_CHECKING:
    from pathlib import Path


class GitFacts:
    """HEAD, whether the working tree differs from it, and whether there is a repository at all."""

    __slots__ = ("dirty", "head", "is_repo")

    def __init__(self, head: str | None, dirty: bool, is_repo: bool) -> None:
        self.head = head  # full hex of HEAD's commit; None outside git or before the first commit
        self.dirty = dirty
        self.is_repo = is_repo

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GitFacts):
            return NotImplemented
        return (self.head, self.dirty, self.is_repo) == (other.head, other.dirty, other.is_repo)

    def __hash__(self) -> int:
        return hash((self.head, self.dirty, self.is_repo))

    def __repr__(self) -> str:
        return f"GitFacts(head={self.head!r}, dirty={self.dirty!r}, is_repo={self.is_repo!r})"

    @property
    def revision(self) -> str | None:
        """`abc1234` or `abc1234-dirty`; `no-commits` for a fresh repository; None outside git."""
        if not self.is_repo:
            return None
        base = self.head[:7] if self.head else "no-commits"
        return f"{base}-dirty" if self.dirty else base


def _read(path: str) -> str:
    # A regular file only, capped, opened without blocking (a FIFO at .git/HEAD must not hang `cq def`); the
    # contracts' confine helpers do this too, but this module stays free of them (the lean `cq def` path).
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path}: not a regular file")
        return os.read(fd, _MAX_GIT_FILE).decode("utf-8").strip()
    finally:
        os.close(fd)


def git_dir(root: str | Path) -> str | None:
    """The .git directory of the repository rooted exactly at `root` (a worktree's .git file is followed)."""
    dot = os.path.join(root, ".git")
    if os.path.isdir(dot):
        return dot
    if os.path.isfile(dot):
        try:
            text = _read(dot)
        except OSError:
            return None
        if text.startswith("gitdir:"):
            target = text.split(":", 1)[1].strip()
            return target if os.path.isabs(target) else os.path.realpath(os.path.join(root, target))
    return None


def read_head(root: str | Path) -> str | None:
    """HEAD's commit id by reading git's files (a few small reads, no libgit2); None if unknown."""
    gdir = git_dir(root)
    if gdir is None:
        return None
    try:
        head = _read(os.path.join(gdir, "HEAD"))
    except OSError:
        return None
    if not head.startswith("ref:"):
        return head or None
    ref = head[4:].strip()
    common = _common_dir(gdir)
    for base in (gdir, common):
        try:
            return _read(os.path.join(base, ref)) or None
        except OSError:
            pass
    try:
        for line in _read(os.path.join(common, "packed-refs")).splitlines():
            if line.endswith(" " + ref):
                return line.split(" ", 1)[0]
    except OSError:
        pass
    return None  # an unborn branch: a repository with no commits


def _common_dir(gdir: str) -> str:
    try:
        text = _read(os.path.join(gdir, "commondir"))
    except OSError:
        return gdir
    return os.path.realpath(os.path.join(gdir, text))


def git_facts(root: str | Path) -> GitFacts:
    """HEAD and whether the working tree differs from it: `git status` when git is installed (a detached
    update after a save pays ~0.15 CPU-s less than importing pygit2 and letting libgit2 walk the tree),
    else pygit2, imported here only."""
    if git_dir(root) is None:
        return GitFacts(head=None, dirty=False, is_repo=False)
    dirty = _dirty_by_cli(root)
    if dirty is not None:
        return GitFacts(head=read_head(root), dirty=dirty, is_repo=True)
    return _facts_by_pygit2(root)


def _dirty_by_cli(root: str | Path) -> bool | None:
    """Whether `git status` lists anything outside `.meta/`; None when git is missing or fails (pygit2
    then decides: a repository git cannot read, an unborn HEAD it reports differently)."""
    import shutil
    import subprocess

    git, gdir = shutil.which("git"), git_dir(root)
    if git is None or gdir is None:
        return None
    # The repository is the one at `root`, never a GIT_DIR from a caller's hook environment nor a parent
    # directory's (which git would search for if `root/.git` were not a repository).
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_DIR=gdir, GIT_WORK_TREE=str(root))
    try:
        done = subprocess.run(
            # --no-optional-locks: a background reader must not take git's index lock (a user's `git commit`
            # at the same moment would fail on it).
            [git, "--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=normal"],
            cwd=str(root),
            env=env,
            capture_output=True,
            check=False,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    entries = done.stdout.split(b"\0")
    i = 0
    while i < len(entries):
        entry = entries[i]
        i += 1
        if len(entry) < 4:
            continue
        if entry[:1] in (b"R", b"C"):
            i += 1  # a rename or copy: the next entry is its source
        if not entry[3:].startswith(b".meta/"):
            return True  # ctxops's own files (index, memory, ledger), when not git-ignored, are not an edit
    return False


def _facts_by_pygit2(root: str | Path) -> GitFacts:
    import pygit2

    try:
        repo = pygit2.Repository(str(root))
    except pygit2.GitError:
        return GitFacts(head=None, dirty=False, is_repo=False)
    head = None if repo.head_is_unborn else str(repo.head.target)
    dirty = False
    for path, flags in repo.status(untracked_files="normal").items():
        if path.startswith(".meta/"):
            continue  # ctxops's own files (the index, memory, ledger), when not git-ignored, are not an edit
        if flags not in (pygit2.GIT_STATUS_CURRENT, pygit2.GIT_STATUS_IGNORED):
            dirty = True
            break
    return GitFacts(head=head, dirty=dirty, is_repo=True)


def changed_paths_between(root: Path, old: str, new: str) -> set[str]:
    """Paths that differ between two commits (what a checkout, merge or pull changed)."""
    import pygit2

    repo = pygit2.Repository(str(root))
    diff = repo.diff(old, new)
    paths: set[str] = set()
    for delta in diff.deltas:
        paths.add(delta.old_file.path)
        paths.add(delta.new_file.path)
    return paths
