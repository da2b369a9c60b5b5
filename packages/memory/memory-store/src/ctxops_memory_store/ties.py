# os.path, not pathlib: the inject hook checks ties on every prompt.
"""Memories tied to the code they speak of (issue 23, item 6).

A memory that names files of the repository (``shop/orders.py``, ``api/schema.yaml``, ``gen/``) records
them as *ties*: the repository-relative path, and for a file the BLAKE2b-128 hash and size of its bytes
when the memory was written. Where the code map is installed, core passes in a ``CodeTieSource``
(``ctxops_contracts.CodeTieSource``): the symbols the text names unambiguously are tied too (their id, and
their file with its hash). The memory line never imports the code line.

When a tied file changes or vanishes (edited, renamed, deleted), the memory is *for review*: ``ctx mem
list/show`` say so, ranking multiplies its score by ``REVIEW_FACTOR`` (``GONE_FACTOR`` when a file is
gone) and injection marks its line ``(review: shop/orders.py renamed or deleted?)``. The check is a
``stat`` of each tied path, and a read only when the size still matches: no git, no code map, on the hook
path. ``ctx mem tie ID`` ties a reviewed memory again to the files as they are now.

Hostile by default: paths come from a memory's text, which came from a repository or a prompt. Only
relative paths without ``..`` that stay inside the repository once symlinks are resolved are tied or
checked (``confine.confined``); files are opened without following a final symlink and never blocking
(``open_regular``), read up to ``MAX_HASH_BYTES``; extraction is one pass over a capped text, no regex.
"""

from __future__ import annotations

import os

from ctxops_contracts.shared.digest import blake2b_hex

TYPE_CHECKING = False  # typing is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from ctxops_contracts import CodeTie, CodeTieSource, MemoryEntry

MAX_SCAN = 20_000  # characters of a memory's text looked at for paths
MAX_TIES = 16  # paths (and symbols) one memory is tied to at most
MAX_TOKEN = 240  # a longer word is not a path
MAX_HASH_BYTES = 8_000_000  # a larger file is hashed on its first bytes (its size is compared whole)
REVIEW_FACTOR = 0.7  # a tied file changed: the memory may still hold, ranked a little lower
GONE_FACTOR = 0.4  # a tied file or symbol is gone: the memory likely speaks of code that is not there
HOOK_READ_BYTES = 4_000_000  # what the inject hook reads at most to compare tied files of unchanged size
DIR_HASH = "dir"  # a directory's tie records its existence only
WRAPPERS = "`'\"()[]{}<>,;!?*"
SKIP_ROOTS = frozenset({".git", ".meta", "node_modules", ".venv", "__pycache__"})
KINDS_UNTIED = frozenset({"summary"})  # session digests name every file a session touched: not tied

# Set by core when the code map is installed (``ctxops_core``): a factory ``root -> CodeTieSource | None``.
source_factory: object = None


def candidates(text: str) -> list[str]:
    """Repository-relative path candidates named in ``text``: words with a ``/`` or a file extension, bare of
    quotes, brackets, trailing punctuation and ``:line`` suffixes, normalized (``./a//b`` -> ``a/b``);
    absolute paths, URLs, ``~`` and ``..`` are left out. Linear in the text (split, strip; no regex)."""
    found: list[str] = []
    for raw in text[:MAX_SCAN].split():
        if len(raw) > MAX_TOKEN or "://" in raw:
            continue
        word = raw.strip(WRAPPERS).rstrip(".:")
        if ":" in word:
            word = word.split(":", 1)[0]  # shop/orders.py:42
        if "#" in word:
            word = word.split("#", 1)[0]  # docs/x.md#section
        word = word.replace("\\", "/").strip(WRAPPERS)
        if not word or word.startswith(("/", "~", "-", "$")) or "\x00" in word:
            continue
        is_dir = word.endswith("/") and len(word) > 1
        tail = word.rstrip("/").rsplit("/", 1)[-1]
        dotted = "." in tail.strip(".") and not tail.endswith(".")
        if "/" not in word and not dotted:
            continue
        pieces = [p for p in word.split("/") if p not in ("", ".")]
        if not pieces or ".." in pieces:
            continue
        path = "/".join(pieces) + ("/" if is_dir else "")
        if path not in found:
            found.append(path)
        if len(found) >= MAX_TIES * 4:
            break
    return found


def _inside(root: str, path: str) -> str | None:
    """``root/path`` when ``path`` stays inside the repository (symlinks resolved), else None."""
    from ctxops_contracts.shared.confine import UnsafePath, confined

    rel = path.rstrip("/")
    if not rel or rel.split("/", 1)[0] in SKIP_ROOTS:
        return None
    try:
        return confined(root, rel, nested=True)
    except (UnsafePath, OSError, ValueError):
        return None


def fingerprint(root: str, path: str) -> tuple[str, int] | None:
    """``(hash, size)`` of a tied path as it is now (``(DIR_HASH, 0)`` for a directory), None when absent
    or not something a memory can be tied to (outside the repository, a symlink, a FIFO, a device)."""
    found = _stat_tied(root, path)
    if found is None:
        return None
    full, size = found
    return (DIR_HASH, 0) if size is None else _file_hash(full, size)


def _stat_tied(root: str, path: str) -> tuple[str, int | None] | None:
    """``(full path, size)`` of a tied regular file, ``(full path, None)`` for a directory, None when absent
    or not something a memory can be tied to (outside the repository, a symlink, a FIFO, a device)."""
    full = _inside(root, path)
    if full is None:
        return None
    try:
        st = os.lstat(full)
    except OSError:
        return None
    import stat

    if stat.S_ISDIR(st.st_mode):
        return (full, None)
    if not stat.S_ISREG(st.st_mode):
        return None
    return (full, st.st_size)


def _file_hash(full: str, size: int) -> tuple[str, int] | None:
    from ctxops_contracts.shared.confine import UnsafePath, open_regular

    try:
        fd = open_regular(full)
    except (UnsafePath, OSError):
        return None
    chunks: list[bytes] = []
    left = min(size, MAX_HASH_BYTES)
    try:
        while left > 0:  # os.read, not a buffered file object: a tied file is read whole, once
            chunk = os.read(fd, left)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    return blake2b_hex(b"".join(chunks), 16), size


def path_ties(root: str, text: str, extra: Iterable[str] = ()) -> list[tuple[str, str, int]]:
    """``tie_paths`` as plain (path, hash, size): the fast ``ctx mem add`` ties without msgspec."""
    ties: list[tuple[str, str, int]] = []
    seen: set[str] = set()
    for path in [*extra, *candidates(text)]:
        key = path.rstrip("/")
        if key in seen:
            continue
        seen.add(key)
        found = fingerprint(root, path)
        if found is None:
            continue
        ties.append((key, found[0], found[1]))
        if len(ties) >= MAX_TIES:
            break
    return ties


def tie_paths(root: str, text: str, extra: Iterable[str] = ()) -> list[CodeTie]:
    """Ties for the existing files and directories of the repository ``text`` (and ``extra``) names."""
    from ctxops_contracts import CodeTie

    return [CodeTie(path=path, hash=digest, size=size) for path, digest, size in path_ties(root, text, extra)]


def tie(root: str, entry: MemoryEntry, source: CodeTieSource | None = None) -> list[CodeTie]:
    """The ties of ``entry``: the files it names or lists, and (with a code map) the symbols it names."""
    if entry.kind in KINDS_UNTIED:
        return []
    text = f"{entry.title}\n{entry.body}"
    ties = tie_paths(root, text, entry.files)
    if source is not None:
        from ctxops_contracts import CodeTie

        try:
            named = source.symbols_named(text[:MAX_SCAN])
        except Exception:  # a missing, locked or old code index: paths alone
            named = []
        for symbol_id, path in named[:MAX_TIES]:
            found = fingerprint(root, path)
            if found is not None and found[0] != DIR_HASH:
                ties.append(CodeTie(path=path, hash=found[0], size=found[1], symbol=symbol_id))
    return ties


def default_source(root: str) -> CodeTieSource | None:
    """The code map's tie source core registered (``source_factory``), or None."""
    factory = source_factory
    if not callable(factory):
        return None
    try:
        made = factory(root)
    except Exception:
        return None
    return made  # type: ignore[no-any-return]


class Problem:
    """A tie that no longer holds: ``changed`` (the file's bytes), ``gone`` (path or symbol) or ``moved``."""

    __slots__ = ("hash", "path", "state", "symbol", "to")

    def __init__(self, path: str, state: str, symbol: str | None = None, to: str | None = None, hash: str = "") -> None:
        self.path = path
        self.state = state
        self.symbol = symbol
        self.to = to
        self.hash = hash  # the tied file's hash when it was tied

    def note(self) -> str:
        if self.state == "moved":
            return f"{self.path} moved to {self.to}?"
        if self.symbol and self.state == "gone":
            return f"{_symbol_name(self.symbol)} gone from {self.path}?"
        if self.state == "gone":
            return f"{self.path} renamed or deleted?"
        return f"{self.path} changed"

    def as_dict(self) -> dict[str, object]:
        return {"path": self.path, "state": self.state, "symbol": self.symbol, "to": self.to}

    def __repr__(self) -> str:
        return f"Problem({self.path!r}, {self.state!r}, symbol={self.symbol!r}, to={self.to!r})"


def _symbol_name(symbol_id: str) -> str:
    return symbol_id.rsplit(" ", 1)[-1].rstrip(".#/()") or symbol_id


def _field(tie: object, name: str) -> object:
    return tie.get(name) if isinstance(tie, dict) else getattr(tie, name, None)


def check(
    root: str,
    ties: Sequence[object],
    cache: dict[str, tuple[str, int] | None] | None = None,
    read_budget: list[int] | None = None,
) -> list[Problem]:
    """The ties that no longer hold (plain dicts from the catalog or ``CodeTie`` records): a ``stat`` of each
    path, its bytes hashed only when the size still matches. ``cache`` shares fingerprints between entries;
    ``read_budget`` (a one-item list, bytes) bounds what is read: past it, a file of unchanged size is taken
    as unchanged (the hook's time budget holds in a repository of large tied files)."""
    problems: list[Problem] = []
    memo: dict[str, tuple[str, int] | None] = {} if cache is None else cache
    flagged: set[str] = set()
    for tie in ties[:MAX_TIES]:  # a hand-written file may list thousands: only as many as a write records
        path, digest, size = _field(tie, "path"), _field(tie, "hash"), _field(tie, "size")
        symbol = _field(tie, "symbol")
        if not isinstance(path, str) or not isinstance(digest, str) or path in flagged:
            continue
        key = f"{path}\x00{size}"
        if key not in memo:
            memo[key] = _current(root, path, digest, size if isinstance(size, int) else -1, read_budget)
        now = memo[key]
        if now is None:
            problems.append(Problem(path, "gone", symbol if isinstance(symbol, str) else None, hash=digest))
            flagged.add(path)
        elif now[0] != digest:
            problems.append(Problem(path, "changed"))
            flagged.add(path)
    return problems


def _current(root: str, path: str, digest: str, size: int, budget: list[int] | None = None) -> tuple[str, int] | None:
    found = _stat_tied(root, path)
    if found is None:
        return None
    full, now = found
    if now is None:
        return (DIR_HASH, 0)
    if digest == DIR_HASH:
        return ("file", now)  # a directory became a file
    if now != size:
        return ("size", now)  # changed, told without reading it
    if budget is not None:
        if budget[0] < min(now, MAX_HASH_BYTES):
            return (digest, size)  # past the read budget: the same size is taken as the same bytes
        budget[0] -= min(now, MAX_HASH_BYTES)
    return _file_hash(full, now)


def moves_in_play(
    root: str, problems: Iterable[list[Problem]], files: Sequence[str], limit: int = 20
) -> dict[str, str]:
    """Tied files that vanished and are among the files in play under another name with the same bytes (a
    ``git mv`` the session works on): ``{old path: new path}``, and those problems become ``moved``. Hook-cheap:
    only when a tie is gone, only the first ``limit`` files in play are hashed."""
    gone = [p for found in problems for p in found if p.state == "gone" and not p.symbol and p.hash]
    if not gone or not files:
        return {}
    by_hash: dict[str, str] = {}
    for path in files[:limit]:
        found = fingerprint(root, path)
        if found is not None and found[0] != DIR_HASH:
            by_hash.setdefault(found[0], path)
    moved: dict[str, str] = {}
    for problem in gone:
        to = by_hash.get(problem.hash)
        if to is not None and to != problem.path:
            problem.state, problem.to = "moved", to
            moved[problem.path] = to
    return moved


def factor(problems: Sequence[Problem]) -> float:
    """Ranking's factor for an entry with these problems (1.0 when its ties hold)."""
    if not problems:
        return 1.0
    return GONE_FACTOR if any(p.state in {"gone", "moved"} for p in problems) else REVIEW_FACTOR


def marker(problems: Sequence[Problem], limit: int = 2) -> str:
    """`` (review: shop/orders.py renamed or deleted?)``, or "" when the ties hold."""
    if not problems:
        return ""
    notes = [p.note() for p in problems[:limit]]
    more = f" +{len(problems) - limit}" if len(problems) > limit else ""
    return f" (review: {'; '.join(notes)}{more})"


# -- the CLI's fuller check (not on the hook path): where a vanished file went, whether a symbol is gone ------


def full_check(
    root: str, entry: MemoryEntry, source: CodeTieSource | None = None, *, files: list[str] | None = None
) -> list[Problem]:
    """``check``, plus: a vanished file found elsewhere with the same bytes (``git mv``), or renamed in git's
    history, is ``moved``; a tied symbol the code map no longer defines is ``gone``. ``files``: the
    repository's files (``git ls-files``), shared between calls."""
    problems = check(root, entry.ties)
    gone = {p.path for p in problems if p.state == "gone"}
    if gone:
        listing = files if files is not None else repository_files(root)
        for problem in problems:
            if problem.state != "gone" or problem.symbol:
                continue
            tie = next(t for t in entry.ties if t.path == problem.path)
            to = _same_bytes(root, tie, listing) or _git_renamed(root, tie.path)
            if to:
                problem.state, problem.to = "moved", to
    symbols = [t.symbol for t in entry.ties if t.symbol and t.path not in gone]
    if symbols and source is not None:
        try:
            existing = source.existing(symbols)
        except Exception:
            existing = set(symbols)  # no code map to ask: the file checks stand alone
        for tie in entry.ties:
            if tie.symbol and tie.symbol not in existing and tie.path not in gone:
                problems = [p for p in problems if p.path != tie.path]
                problems.append(Problem(tie.path, "gone", tie.symbol))
    return problems


def repository_files(root: str, limit: int = 200_000) -> list[str]:
    """The repository's tracked files (``git ls-files``), or a walk of its tree when it is not a git work tree."""
    import subprocess

    try:
        out = subprocess.run(
            ["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            capture_output=True,
            timeout=20,
            check=True,
        ).stdout
        return [p for p in out.decode("utf-8", "replace").split("\x00") if p][:limit]
    except (OSError, subprocess.SubprocessError):
        pass
    found: list[str] = []
    for base, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_ROOTS]
        rel = os.path.relpath(base, root)
        found += [n if rel == "." else f"{rel}/{n}".replace(os.sep, "/") for n in names]
        if len(found) >= limit:
            break
    return found[:limit]


def _same_bytes(root: str, tie: CodeTie, files: list[str]) -> str | None:
    if tie.hash == DIR_HASH:
        return None
    name = tie.path.rsplit("/", 1)[-1]
    # The same name first (a move between directories), then any file of the same size.
    ordered = sorted(files, key=lambda p: p.rsplit("/", 1)[-1] != name)
    for path in ordered:
        full = _inside(root, path)
        if full is None:
            continue
        try:
            if os.lstat(full).st_size != tie.size:
                continue
        except OSError:
            continue
        found = fingerprint(root, path)
        if found is not None and found[0] == tie.hash:
            return path
    return None


def _git_renamed(root: str, path: str) -> str | None:
    """Where git's history says ``path`` was renamed to (its rename detection: a move with edits too)."""
    import subprocess

    staged = ["diff", "-M", "--cached", "--name-status", "--diff-filter=R"]  # a `git mv` not yet committed
    history = ["log", "-M", "--diff-filter=R", "--name-status", "--format=", "-n", "200"]
    for command in (staged, history):
        try:
            out = subprocess.run(
                ["git", "-C", root, *command, "--", "."], capture_output=True, timeout=20, check=True
            ).stdout.decode("utf-8", "replace")
        except (OSError, subprocess.SubprocessError):
            return None
        for line in out.splitlines():
            parts = line.split("\t")
            if len(parts) == 3 and parts[0].startswith("R") and parts[1] == path:
                return parts[2]
    return None
