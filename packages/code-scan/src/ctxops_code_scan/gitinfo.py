"""Git facts for an index revision: HEAD (cheaply, without pygit2) and the dirty marker (pygit2)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class GitFacts:
    head: str | None  # full hex of HEAD's commit; None outside git or before the first commit
    dirty: bool
    is_repo: bool

    @property
    def revision(self) -> str | None:
        """`abc1234` or `abc1234-dirty`; `no-commits` for a fresh repository; None outside git."""
        if not self.is_repo:
            return None
        base = self.head[:7] if self.head else "no-commits"
        return f"{base}-dirty" if self.dirty else base


def git_dir(root: Path) -> Path | None:
    """The .git directory of the repository rooted exactly at `root` (a worktree's .git file is followed)."""
    dot = root / ".git"
    if dot.is_dir():
        return dot
    if dot.is_file():
        try:
            text = dot.read_text("utf-8").strip()
        except OSError:
            return None
        if text.startswith("gitdir:"):
            target = Path(text.split(":", 1)[1].strip())
            return target if target.is_absolute() else (root / target).resolve()
    return None


def read_head(root: Path) -> str | None:
    """HEAD's commit id by reading git's files (a few small reads, no libgit2); None if unknown."""
    gdir = git_dir(root)
    if gdir is None:
        return None
    try:
        head = (gdir / "HEAD").read_text("utf-8").strip()
    except OSError:
        return None
    if not head.startswith("ref:"):
        return head or None
    ref = head[4:].strip()
    common = _common_dir(gdir)
    for base in (gdir, common):
        try:
            return (base / ref).read_text("utf-8").strip() or None
        except OSError:
            pass
    try:
        for line in (common / "packed-refs").read_text("utf-8").splitlines():
            if line.endswith(" " + ref):
                return line.split(" ", 1)[0]
    except OSError:
        pass
    return None  # an unborn branch: a repository with no commits


def _common_dir(gdir: Path) -> Path:
    try:
        text = (gdir / "commondir").read_text("utf-8").strip()
    except OSError:
        return gdir
    return (gdir / text).resolve()


def git_facts(root: Path) -> GitFacts:
    """HEAD and whether the working tree differs from it (pygit2, imported here only)."""
    if git_dir(root) is None:
        return GitFacts(head=None, dirty=False, is_repo=False)
    import pygit2

    try:
        repo = pygit2.Repository(str(root))
    except pygit2.GitError:
        return GitFacts(head=None, dirty=False, is_repo=False)
    head = None if repo.head_is_unborn else str(repo.head.target)
    dirty = False
    for path, flags in repo.status(untracked_files="normal").items():
        if path == ".meta/" or path.startswith(".meta/index/"):
            continue  # the index itself (and ctxops's own files, when not yet git-ignored) is not an edit
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
