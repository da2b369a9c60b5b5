"""Where transcripts are and which of them changed since the last ingest: a walk and one ``stat`` per file.

Kept to the standard library on purpose: a re-run with nothing new (the common case, run by hooks and the
status line's refresh) is this module, the saved signature and the ledger's own freshness check, and never
imports a parser, msgspec or DuckDB (see ``ingest``).

The signature (``state/sources.sig``, its format in ``livecheck``, which also walks) lists every file the last
ingest found with the device, inode, size and modification time its saved state holds, in the walk's order,
under a line naming the state file's own ``stat`` and the directories walked. A new walk whose files all
``stat`` the same gives the same bytes: then every file is untouched by the rule ``ingest`` reads with (same
inode, size and modification time), and there is nothing to read. Any difference (a new, grown, touched,
replaced or vanished file; the state file rewritten or gone) means the usual path, which decides per file.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from . import livecheck
from .livecheck import KIND_MARK, Base, Found, walk
from .paths import default_claude_dirs, default_codex_home, default_gemini_dir

__all__ = ["Found", "Sources", "bases_of", "save_signature", "scan", "signature_of_states", "unchanged_since_saved"]


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


def bases_of(sources: Sources) -> list[Base]:
    """The directories ``sources`` names, as the walk and the signature take them."""
    return [
        *(("claude-code", str(p)) for p in sources.claude_dirs),
        *(("codex", str(p)) for p in sources.codex_homes),
        *(("gemini", str(p)) for p in sources.gemini_dirs),
    ]


def scan(sources: Sources) -> list[Found]:
    """Every transcript file under ``sources`` with its ``stat``, each real file once (by device and inode,
    so a file reached through a symlink counts once): Claude Code's in walk order, then Codex's and Gemini
    CLI's sorted by path. Raises FileNotFoundError when a directory lacks its agent's subdirectory.

    Paths stay strings: a re-run stats thousands of files and makes a ``Path`` only of those it reads."""
    return walk(bases_of(sources))


def signature_now(found: list[Found], state_file: Path, sources: Sources) -> bytes | None:
    """The signature of the files as they are now (None when the state file is missing)."""
    return livecheck.signature_now(found, str(state_file), bases_of(sources))


def signature_of_states(
    found: list[Found],
    state_file: Path,
    recorded: Callable[[str], tuple[int, int, int, int] | None],
    sources: Sources,
) -> bytes | None:
    """The signature a later walk gives when no file changed after the states were saved: each found file with
    the (device, inode, size, modification time) ``recorded`` returns for its path (None: the file has no
    state, so the line can never match a walk and the next run takes the usual path)."""
    header = livecheck._header(str(state_file), bases_of(sources))
    if header is None:
        return None
    fsencode = os.fsencode
    lines = []
    for kind, _, path, _ in found:
        values = recorded(path)
        if values is None:
            lines.append(b"%s%s\t-\n" % (KIND_MARK[kind], fsencode(path)))
        else:
            dev, inode, size, mtime_ns = values
            lines.append(b"%s%s\t%d\t%d\t%d\t%d\n" % (KIND_MARK[kind], fsencode(path), dev, inode, size, mtime_ns))
    return header + b"".join(lines)


def unchanged_since_saved(found: list[Found], state_file: Path, signature_file: Path, sources: Sources) -> bool:
    """Whether every found file is as the saved states describe it (nothing to read)."""
    try:
        saved = signature_file.read_bytes()
    except OSError:
        return False
    return saved == signature_now(found, state_file, sources)


def save_signature(signature_file: Path, signature: bytes | None) -> None:
    """Write the signature atomically (or remove a stale one when there is none to write)."""
    if signature is None:
        signature_file.unlink(missing_ok=True)
        return
    from ctxops_contracts.shared.files import atomic_write

    atomic_write(signature_file, signature, fsync=False)  # 0600 in a 0700 directory
