"""Where transcripts are and which of them changed since the last ingest: a walk and one ``stat`` per file.

Kept to the standard library on purpose: a re-run with nothing new (the common case, run by hooks and the
status line's refresh) is this module, the saved signature and the ledger's own freshness check, and never
imports a parser, msgspec or DuckDB (see ``ingest``).

The signature (``state/sources.sig``) lists every file the last ingest found with the device, inode, size and
modification time its saved state holds, in the walk's order, under a line naming the state file's own
``stat``. A new walk whose files all ``stat`` the same gives the same bytes: then every file is untouched by
the rule ``ingest`` reads with (same inode, size and modification time), and there is nothing to read. Any
difference (a new, grown, touched, replaced or vanished file; the state file rewritten or gone) means the
usual path, which decides per file.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

from .paths import default_claude_dirs, default_codex_home, default_gemini_dir

SIGNATURE_VERSION = b"ctxops-sources-sig 1"
# What a walk found: (kind, top directory, path, stat), kind "claude-code" | "codex" | "gemini".
Found = tuple[str, str, str, os.stat_result]
_KIND_MARK = {"claude-code": b"c", "codex": b"x", "gemini": b"g"}


class Sources:
    """Where to look: Claude config directories (holding ``projects/``), Codex homes (holding ``sessions/``)
    and Gemini CLI directories (``.gemini``, holding ``tmp/<project>/chats/``)."""

    __slots__ = ("claude_dirs", "codex_homes", "gemini_dirs")

    def __init__(
        self,
        claude_dirs: list[Path] | None = None,
        codex_homes: list[Path] | None = None,
        gemini_dirs: list[Path] | None = None,
    ) -> None:
        self.claude_dirs: list[Path] = list(claude_dirs or [])
        self.codex_homes: list[Path] = list(codex_homes or [])
        self.gemini_dirs: list[Path] = list(gemini_dirs or [])

    @classmethod
    def defaults(cls) -> Sources:
        codex, gemini = default_codex_home(), default_gemini_dir()
        return cls(
            claude_dirs=default_claude_dirs(),
            codex_homes=[codex] if codex else [],
            gemini_dirs=[gemini] if gemini else [],
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sources):
            return NotImplemented
        return (self.claude_dirs, self.codex_homes, self.gemini_dirs) == (
            other.claude_dirs,
            other.codex_homes,
            other.gemini_dirs,
        )

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dataclass it replaces

    def __repr__(self) -> str:
        dirs = f"claude_dirs={self.claude_dirs!r}, codex_homes={self.codex_homes!r}, gemini_dirs={self.gemini_dirs!r}"
        return f"Sources({dirs})"


def scan(sources: Sources) -> list[Found]:
    """Every transcript file under ``sources`` with its ``stat``, each real file once (by device and inode,
    so a file reached through a symlink counts once): Claude Code's in walk order, then Codex's and Gemini
    CLI's sorted by path. Raises FileNotFoundError when a directory lacks its agent's subdirectory."""
    seen: set[tuple[int, int]] = set()
    found: list[Found] = []
    for kind, bases, sub, expected, accept, ordered in (
        ("claude-code", sources.claude_dirs, "projects", "a Claude config directory", None, False),
        ("codex", sources.codex_homes, "sessions", "a Codex home", _is_rollout, True),
        ("gemini", sources.gemini_dirs, "tmp", "a Gemini CLI .gemini directory", _is_chat, True),
    ):
        for top, path, st in _found(bases, sub, expected, seen, accept=accept, ordered=ordered):
            found.append((kind, top, path, st))
    return found


def _is_rollout(path: str) -> bool:
    return path.rpartition(os.sep)[2].startswith("rollout-")


def _is_chat(path: str) -> bool:
    parts = path.rsplit(os.sep, 2)
    return len(parts) == 3 and parts[1] == "chats" and parts[2].startswith("session-")


def _found(
    bases: list[Path],
    sub: str,
    expected: str,
    seen: set[tuple[int, int]],
    *,
    accept: Callable[[str], bool] | None = None,
    ordered: bool = True,
) -> Iterator[tuple[str, str, os.stat_result]]:
    """(``base/sub``, file, its stat) for each transcript file under each base not met before.

    ``accept`` picks the agent's files by name; ``ordered`` sorts them by path (else in walk order). Paths
    stay strings here: a re-run stats thousands of files and makes a ``Path`` only of those it reads.
    """
    for base in bases:
        top = base / sub
        if not top.is_dir():
            raise FileNotFoundError(f"{base} has no {sub}/ directory (expected {expected})")
        paths = (path for path in _walk_jsonl(str(top)) if accept is None or accept(path))
        for path in sorted(paths, key=_parts) if ordered else paths:
            try:
                st = os.stat(path)  # noqa: PTH116 - strings on purpose (see above)
            except OSError:
                continue  # a dangling link, or gone since the walk
            if stat.S_ISREG(st.st_mode) and (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                yield str(top), path, st


def _parts(path: str) -> list[str]:
    """Sorts like ``Path`` (component by component) for the normalized paths a walk gives."""
    return path.split(os.sep)  # noqa: PTH206


def _walk_jsonl(top: str) -> Iterator[str]:
    """``*.jsonl`` files under ``top``, following symlinked directories, each directory once (cycle-safe)."""
    visited: set[tuple[int, int]] = set()
    for directory, subdirs, names in os.walk(top, followlinks=True):
        try:
            st = os.stat(directory)  # noqa: PTH116
        except OSError:
            subdirs[:] = []
            continue
        if (st.st_dev, st.st_ino) in visited:
            subdirs[:] = []  # reached again through a link: already walked
            continue
        visited.add((st.st_dev, st.st_ino))
        subdirs.sort()
        for name in sorted(names):
            if name.endswith(".jsonl"):
                yield os.path.join(directory, name)  # noqa: PTH118


def _header(state_file: Path) -> bytes | None:
    try:
        st = state_file.stat()
    except OSError:
        return None
    return b"%s\t%d\t%d\t%d\t%d\n" % (SIGNATURE_VERSION, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def signature_now(found: list[Found], state_file: Path) -> bytes | None:
    """The signature of the files as they are now (None when the state file is missing)."""
    header = _header(state_file)
    if header is None:
        return None
    fsencode = os.fsencode
    lines = [
        b"%s%s\t%d\t%d\t%d\t%d\n" % (_KIND_MARK[kind], fsencode(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        for kind, _, path, st in found
    ]
    return header + b"".join(lines)


def signature_of_states(
    found: list[Found], state_file: Path, recorded: Callable[[str], tuple[int, int, int, int] | None]
) -> bytes | None:
    """The signature a later walk gives when no file changed after the states were saved: each found file with
    the (device, inode, size, modification time) ``recorded`` returns for its path (None: the file has no
    state, so the line can never match a walk and the next run takes the usual path)."""
    header = _header(state_file)
    if header is None:
        return None
    fsencode = os.fsencode
    lines = []
    for kind, _, path, _ in found:
        values = recorded(path)
        if values is None:
            lines.append(b"%s%s\t-\n" % (_KIND_MARK[kind], fsencode(path)))
        else:
            dev, inode, size, mtime_ns = values
            lines.append(b"%s%s\t%d\t%d\t%d\t%d\n" % (_KIND_MARK[kind], fsencode(path), dev, inode, size, mtime_ns))
    return header + b"".join(lines)


def unchanged_since_saved(found: list[Found], state_file: Path, signature_file: Path) -> bool:
    """Whether every found file is as the saved states describe it (nothing to read)."""
    try:
        saved = signature_file.read_bytes()
    except OSError:
        return False
    return saved == signature_now(found, state_file)


def save_signature(signature_file: Path, signature: bytes | None) -> None:
    """Write the signature atomically (or remove a stale one when there is none to write)."""
    if signature is None:
        signature_file.unlink(missing_ok=True)
        return
    from ctxops_contracts.shared.files import atomic_write

    atomic_write(signature_file, signature, fsync=False)  # 0600 in a 0700 directory
