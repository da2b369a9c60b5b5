# ruff: noqa: PTH101, PTH102, PTH112, PTH116, PTH118, PTH120
# os.path on the hook path: the inject hook asks this module which memories it may inject, without pathlib.
"""Which memories may be injected: the ones this machine wrote or a person here accepted, or every memory of
a repository its user trusts (``ctx trust``).

``.meta/memory/`` is committed, so a cloned repository brings memories nobody here wrote: text a stranger
chose, which would otherwise reach the agent's context on the first prompt. The record of what this machine
vouches for is kept per user, never in the repository (a repository cannot vouch for itself):

- ``<user data dir>/trust/repositories.json``: the roots of trusted repositories (``ctx trust``);
- ``<user data dir>/trust/memories/<key of the root>``: one content hash a line, of every memory the store
  wrote here (``ctx mem add``, harvest, digests, the MCP ``remember`` tool: ``MemoryStore._save``) or a
  review accepted (``ctx mem review --accept``).

The hash covers what injection shows of a memory (kind, title, body, scope) and is computed from the text
being injected, never taken from the entry's own ``content_hash`` field or from a derived index (a
repository may commit either): a memory edited in git after it was accepted has a new hash and is held back
again. Files are 0600 under a 0700 directory; the hook reads at most two small files and hashes only when
the repository is not trusted.
"""

from __future__ import annotations

import os
import time

from ctxops_contracts.shared import jsonlite
from ctxops_contracts.shared.digest import blake2b_hex
from ctxops_contracts.shared.layout import user_data_dir
from ctxops_contracts.shared.lazylog import get_logger

TYPE_CHECKING = False  # typing is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

log = get_logger(__name__)

TRUST_DIR = "trust"
REPOSITORIES = "repositories.json"
MEMORIES_DIR = "memories"
FORMAT = 1
HASH_BYTES = 16
COMPACT_AFTER_BYTES = 256 * 1024  # ~7,700 hashes: then the file keeps the live ones and the newest KEEP_NEWEST
KEEP_NEWEST = 2048
INJECTED_STATUSES = ("active",)


def trust_dir() -> str:
    return os.path.join(user_data_dir(), TRUST_DIR)


def repository_key(root: str | os.PathLike[str]) -> str:
    """The repository as the record names it: its real path (a moved or re-cloned repository is a new one)."""
    return os.path.realpath(os.fspath(root))


def _memories_path(root: str | os.PathLike[str]) -> str:
    key = blake2b_hex(repository_key(root).encode("utf-8", "surrogateescape"), 12)
    return os.path.join(trust_dir(), MEMORIES_DIR, key)


def _text(value: object) -> str:
    return value if isinstance(value, str) else "" if value is None else str(value)


def entry_hash(entry: Mapping[str, object]) -> str:
    """The hash of what injection shows of an entry (kind, title, body, scope), each part length-prefixed."""
    scope = entry.get("scope")
    parts = [_text(entry.get("kind")), _text(entry.get("title")), _text(entry.get("body"))]
    parts += [_text(s) for s in scope] if isinstance(scope, list) else [_text(scope)] if scope else []
    data = "".join(f"{len(p)}:{p}" for p in parts)
    return blake2b_hex(data.encode("utf-8", "surrogatepass"), HASH_BYTES)


# -- reading (the hook) ----------------------------------------------------------------------------


def _read_repositories() -> dict[str, object]:
    try:
        with open(os.path.join(trust_dir(), REPOSITORIES), "rb") as fh:
            data = jsonlite.loads(fh.read())
    except (OSError, ValueError):
        return {}
    trusted = data.get("trusted") if isinstance(data, dict) and data.get("format") == FORMAT else None
    return trusted if isinstance(trusted, dict) else {}


def repository_trusted(root: str | os.PathLike[str]) -> bool:
    return repository_key(root) in _read_repositories()


def trusted_since(root: str | os.PathLike[str]) -> str | None:
    value = _read_repositories().get(repository_key(root))
    return str(value) if value is not None else None


def known_hashes(root: str | os.PathLike[str]) -> set[str]:
    """Hashes of the memories this machine wrote or accepted in this repository."""
    try:
        with open(_memories_path(root), "rb") as fh:
            data = fh.read()
    except OSError:
        return set()
    return _hashes_in(data)


def _hashes_in(data: bytes) -> set[str]:
    lines = (line.strip() for line in data.splitlines())
    return {line.decode("ascii", "replace") for line in lines if line and not line.startswith(b"#")}


class Verdict:
    """What may be injected in one repository (read once per hook call)."""

    __slots__ = ("_hashes", "repository_trusted", "root")

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = os.fspath(root)
        self.repository_trusted = repository_trusted(root)
        self._hashes: set[str] | None = None

    def entry_trusted(self, entry: Mapping[str, object]) -> bool:
        if self.repository_trusted:
            return True
        if self._hashes is None:
            self._hashes = known_hashes(self.root)
        return entry_hash(entry) in self._hashes

    def split(self, records: list[dict[str, object]]) -> tuple[list[dict[str, object]], int]:
        """Catalog records (``{"entry": {...}, ...}``) whose entry may be injected, and how many active
        entries may not (they await review)."""
        if self.repository_trusted:
            return records, 0
        kept: list[dict[str, object]] = []
        held = 0
        for record in records:
            entry = record.get("entry")
            if not isinstance(entry, dict):
                continue
            if entry.get("status") not in INJECTED_STATUSES:
                kept.append(record)  # never shown (superseded, folded, archived, pending): no hash needed
            elif self.entry_trusted(entry):
                kept.append(record)
            else:
                held += 1
        return kept, held


# -- writing (the store, `ctx trust`, review) ------------------------------------------------------


def _private_dir(path: str) -> None:
    """``path`` (the trust directory or one below it) and every level from the trust directory down: 0700
    (``os.makedirs`` gives the intermediate levels the default mode). os, not pathlib: the fast add writes here."""
    top = trust_dir()
    from ctxops_contracts.shared.confine import ensure_dir

    ensure_dir(os.path.dirname(top))  # the per-user data directory: created 0700, as every level it adds
    for level in [top] + ([path] if os.path.normpath(path) != os.path.normpath(top) else []):
        try:
            os.mkdir(level, 0o700)
        except FileExistsError:
            if not os.path.isdir(level):
                raise
        if os.stat(level).st_mode & 0o077:
            os.chmod(level, 0o700)


def record_hashes(
    root: str | os.PathLike[str], hashes: Iterable[str], *, live: Callable[[], Iterable[str]] | None = None
) -> None:
    """Vouch for these memory hashes in this repository (appended; one write, so concurrent writers never
    interleave within a line). When the file has grown past ``COMPACT_AFTER_BYTES`` and the caller knows the
    repository's current hashes (``live``), it is rewritten with those and the newest ``KEEP_NEWEST``."""
    new = list(dict.fromkeys(h for h in hashes if h))
    if not new:
        return
    path = _memories_path(root)
    _private_dir(os.path.dirname(path))
    from ctxops_contracts.shared.locks import file_lock

    with file_lock(path + ".lock", timeout=5.0):  # the compaction's rewrite never loses an append
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            header = "" if os.fstat(fd).st_size else f"# ctxops: memories vouched for in {repository_key(root)}\n"
            os.write(fd, (header + "".join(h + "\n" for h in new)).encode("utf-8", "surrogateescape"))
            size = os.fstat(fd).st_size
        finally:
            os.close(fd)
        if live is not None and size > COMPACT_AFTER_BYTES:
            _compact(root, path, set(live()))


def _compact(root: str | os.PathLike[str], path: str, live: set[str]) -> None:
    from ctxops_contracts.shared.files import atomic_write

    try:  # under record_hashes's lock
        with open(path, "rb") as fh:
            data = fh.read()
        lines = [line.strip().decode("ascii", "replace") for line in data.splitlines()]
        lines = [line for line in lines if line and not line.startswith("#")]
        newest = set(lines[-KEEP_NEWEST:])
        kept = [h for h in dict.fromkeys(lines) if h in live or h in newest]
        header = f"# ctxops: memories vouched for in {repository_key(root)}\n"
        atomic_write(path, header + "".join(h + "\n" for h in kept), mode=0o600, fsync=False)
    except OSError as exc:
        log.warning("trust record not compacted: %s", exc)


def _write_repositories(change: dict[str, object | None]) -> None:
    from ctxops_contracts.shared.files import atomic_write
    from ctxops_contracts.shared.locks import file_lock

    directory = trust_dir()
    _private_dir(directory)
    path = os.path.join(directory, REPOSITORIES)
    with file_lock(path + ".lock", timeout=5.0):
        trusted = dict(_read_repositories())
        for key, value in change.items():
            if value is None:
                trusted.pop(key, None)
            else:
                trusted[key] = value
        data = {"format": FORMAT, "trusted": dict(sorted(trusted.items()))}
        atomic_write(path, jsonlite.dumps(data, ensure_ascii=False) + "\n", mode=0o600)


def trust_repository(root: str | os.PathLike[str]) -> bool:
    """Trust every memory of this repository, now and after later pulls; False when it was trusted already."""
    if repository_trusted(root):
        return False
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    _write_repositories({repository_key(root): stamp})
    return True


def revoke_repository(root: str | os.PathLike[str]) -> bool:
    """Stop trusting the repository as a whole (memories written or accepted here stay vouched for)."""
    if not repository_trusted(root):
        return False
    _write_repositories({repository_key(root): None})
    return True


def held_back(root: str | os.PathLike[str], entries: Iterable[Mapping[str, object]]) -> list[Mapping[str, object]]:
    """The active entries injection holds back in this repository (none when it is trusted)."""
    verdict = Verdict(root)
    return [e for e in entries if e.get("status") in INJECTED_STATUSES and not verdict.entry_trusted(e)]


def forget_repository(root: str | os.PathLike[str]) -> None:
    """Drop every record of vouching for ``root`` (a throwaway checkout such as a `ctx bench` worktree)."""
    revoke_repository(root)
    try:
        os.unlink(_memories_path(root))  # noqa: PTH108 (os on the hook path's module, as above)
    except FileNotFoundError:
        return
