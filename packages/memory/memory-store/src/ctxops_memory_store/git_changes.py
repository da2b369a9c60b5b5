# ruff: noqa: PTH112, PTH118
# os.path on the hook path: the inject hook asks this module what a `git pull` changed, without pathlib.
"""What a `git pull` changed in the memory directory, without listing it (issue 23, item 4).

Listing 50,000 memory files and comparing them with the snapshot's rows costs ~0.1 s of CPU, more than the
whole hook may spend. A pull, a checkout or a merge moves ``HEAD``; the memory files it changed are those
that differ between the commit the snapshot last matched (``git_head`` in its meta) and what the new ``HEAD``
checked out: ``git diff-index --cached`` compares that commit's tree with git's index, never the working
tree, and names only those files.

``head`` reads the commit from ``.git`` itself (``HEAD``, a loose ref, ``packed-refs``; a linked worktree's
``gitdir:`` file), never starting git; ``changed`` starts one ``git diff-index`` (``posix_spawn``: importing
``subprocess`` costs ~20 ms). Everything read from the repository is capped and checked: a ref is a path
under ``refs/`` without ``..``, a commit is 40 or 64 hex digits, names are plain file names. None, whenever
anything is unusual: the caller then lists the directory, as before.
"""

from __future__ import annotations

import os
import stat

HEX = frozenset("0123456789abcdef")
MAX_REF_BYTES = 4096
MAX_PACKED_REFS = 8_000_000
MAX_DIFF_BYTES = 4_000_000
DIFF_TIMEOUT_S = 5.0


def _read(path: str, limit: int) -> str | None:
    """A regular file's text, at most ``limit`` bytes; None otherwise. Opened without blocking and checked
    before reading: a FIFO planted at ``.git/HEAD`` must not hang the hook (as code-scan's ``gitinfo``)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = os.read(fd, limit + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(data) > limit:
        return None
    return data.decode("utf-8", "replace")


def _commit(text: str | None) -> str | None:
    value = (text or "").strip()
    return value if len(value) in {40, 64} and set(value) <= HEX else None


def git_dir(root: str) -> str | None:
    """The repository's git directory: ``ROOT/.git``, or where a ``gitdir:`` file there points."""
    path = os.path.join(root, ".git")
    if os.path.isdir(path):
        return path
    text = _read(path, MAX_REF_BYTES)
    if text is None or not text.startswith("gitdir: "):
        return None
    target = os.path.join(root, text[len("gitdir: ") :].strip())
    return target if os.path.isdir(target) else None


def head(root: str) -> str | None:
    """The commit ``HEAD`` names in the repository at ``root``, or None (no git, an unborn branch, unusual)."""
    where = git_dir(root)
    if where is None:
        return None
    text = _read(os.path.join(where, "HEAD"), MAX_REF_BYTES)
    if text is None:
        return None
    if not text.startswith("ref: "):
        return _commit(text)
    ref = text[len("ref: ") :].strip()
    if not ref.startswith("refs/") or ".." in ref.split("/") or "\\" in ref or "\0" in ref:
        return None
    common = where
    pointer = _read(os.path.join(where, "commondir"), MAX_REF_BYTES)  # a linked worktree: refs are shared
    if pointer is not None and pointer.strip():
        common = os.path.normpath(os.path.join(where, pointer.strip()))
    for base in dict.fromkeys((where, common)):
        loose = _read(os.path.join(base, ref), MAX_REF_BYTES)
        if loose is not None:
            return _commit(loose)
    packed = _read(os.path.join(common, "packed-refs"), MAX_PACKED_REFS)
    for line in (packed or "").splitlines():
        if line.endswith(" " + ref):
            return _commit(line[: -len(ref) - 1])
    return None


def changed(memory_dir: str, old: str, new: str) -> list[str] | None:
    """The memory files (plain ``*.md`` names) that differ between commit ``old`` and what ``HEAD`` (``new``)
    checked out, or None when git cannot say (not installed, a commit unknown here, a timeout, a path outside
    the directory).

    ``git diff-index --cached OLD``: the commit's tree against git's index, which a pull, checkout or merge
    leaves as the new ``HEAD``'s tree (plus whatever was staged, whose files are read too: harmless). One tree
    inflated, not two: at 50,000 memories the memory directory's tree is one 4.7 MB object in each commit."""
    if _commit(old) is None or _commit(new) is None:
        return None
    # The pathspec "." (the memory directory, git's cwd here) prunes the walk to that subtree: a pull that also
    # changed code elsewhere has git read none of those trees (without it, every changed subtree is inflated).
    options = ["--cached", "-r", "-z", "--no-renames", "--name-only", "--relative"]
    argv = ["git", "-C", memory_dir, "diff-index", *options, old, "--", "."]
    out = _run(argv)
    if out is None:
        return None
    names = [n for n in out.decode("utf-8", "surrogateescape").split("\0") if n]
    if any("/" in n or n.startswith(".") or not n.endswith(".md") for n in names):
        return None  # a subdirectory or another file: not what a memory directory holds; the listing decides
    return names


def _run(argv: list[str]) -> bytes | None:
    """stdout of ``argv`` (found on PATH) when it exits 0 within ``DIFF_TIMEOUT_S``; None otherwise."""
    import time

    try:
        read_end, write_end = os.pipe()
    except OSError:
        return None
    env = dict(os.environ, GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_DUP2, write_end, 1),
        (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_CLOSE, read_end),
    ]
    try:
        pid = os.posix_spawnp(argv[0], argv, env, file_actions=actions)
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return None
    os.close(write_end)
    chunks: list[bytes] = []
    size = 0
    deadline = time.monotonic() + DIFF_TIMEOUT_S
    ok = True
    try:
        import select

        while True:
            if not select.select([read_end], [], [], max(deadline - time.monotonic(), 0))[0]:
                ok = False  # too slow: never wait on the hook path
                break
            data = os.read(read_end, 65536)
            if not data:
                break
            size += len(data)
            if size > MAX_DIFF_BYTES:
                ok = False
                break
            chunks.append(data)
    finally:
        os.close(read_end)
        if not ok:
            import contextlib  # the rare path only: not imported by every hook

            with contextlib.suppress(OSError):
                os.kill(pid, 9)
        _, status = os.waitpid(pid, 0)
    return b"".join(chunks) if ok and os.waitstatus_to_exitcode(status) == 0 else None
