# ruff: noqa: PTH100, PTH111, PTH112, PTH116, PTH118, PTH206 - os.path and strings on purpose (see below)
"""Whether any transcript changed since the last ingest: the walk, the ``stat`` per file and the signature.

This module imports ``os`` and nothing else, so a live report's no-op check (nothing changed, the common
case) costs the walk and the ``stat`` calls, not the imports of pathlib, json, msgspec or DuckDB: in a
fresh process it is :func:`unchanged` on the data directory (``python -m ctxops_token_capture.livecheck``).
``sources`` (the ``Path`` API the ingest uses) walks with the same functions, so both see the same files in
the same order.

The signature (``state/sources.sig``, written by every ingest) is::

    ctxops-sources-sig 2 <TAB> dev <TAB> inode <TAB> size <TAB> mtime_ns     (the state file's own stat)
    D<kind><base directory>                                                (the directories the ingest read)
    <kind><path> <TAB> dev <TAB> inode <TAB> size <TAB> mtime_ns           (each file found, in walk order)

with the values each file's saved state holds (``<kind><path> <TAB> -`` for a file without one, which no
walk can match). A walk of the named directories whose files all ``stat`` the same gives the same bytes:
then every file is untouched by the rule the ingest reads with (same inode, size and modification time).
Any difference (a new, grown, touched, replaced or vanished file or directory; the state file rewritten or
gone; the signature missing or of another version) answers "changed", and the usual path decides per file.
"""

from __future__ import annotations

import os
import sys

SIGNATURE_VERSION = b"ctxops-sources-sig 2"
SIGNATURE_FILE = os.path.join("state", "sources.sig")
STATE_FILE = os.path.join("state", "sources.json")
# Where each agent keeps its transcripts under the directory it is given, and the mark of its lines.
SUBDIR = {"claude-code": "projects", "codex": "sessions", "gemini": "tmp"}
KIND_MARK = {"claude-code": b"c", "codex": b"x", "gemini": b"g"}
_KIND_OF_MARK = {mark: kind for kind, mark in KIND_MARK.items()}
_MARK_TEXT = {kind: mark.decode() for kind, mark in KIND_MARK.items()}
_FS_ENCODING, _FS_ERRORS = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()
_EXPECTED = {
    "claude-code": "a Claude config directory",
    "codex": "a Codex home",
    "gemini": "a Gemini CLI .gemini directory",
}
_S_IFMT, _S_IFREG = 0o170000, 0o100000  # stat.S_ISREG without importing stat

# (kind, directory): the directories a walk reads, Claude Code's first, then Codex's, then Gemini CLI's.
Base = tuple[str, str]
# What a walk found: (kind, top directory, path, stat).
Found = tuple[str, str, str, os.stat_result]


def _paths(kind: str, base: str) -> tuple[str, list[str]]:
    sub = SUBDIR[kind]
    top = os.path.join(base, sub)
    if not os.path.isdir(top):
        raise FileNotFoundError(f"{base} has no {sub}/ directory (expected {_EXPECTED[kind]})")
    if kind == "claude-code":
        return top, _walk_jsonl(top)
    accept = _is_rollout if kind == "codex" else _is_chat
    return top, sorted((p for p in _walk_jsonl(top) if accept(p)), key=_parts)


def walk(bases: list[Base]) -> list[Found]:
    """Every transcript file under ``bases`` with its ``stat``, each real file once (by device and inode, so a
    file reached through a symlink counts once): Claude Code's in walk order, Codex's and Gemini CLI's sorted
    by path. Raises FileNotFoundError when a directory lacks its agent's subdirectory."""
    seen: set[tuple[int, int]] = set()
    found: list[Found] = []
    stat = os.stat
    for kind, base in bases:
        top, paths = _paths(kind, base)
        for path in paths:
            try:
                st = stat(path)
            except OSError:
                continue  # a dangling link, or gone since the walk
            if st.st_mode & _S_IFMT == _S_IFREG and (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                found.append((kind, top, path, st))
    return found


def _is_rollout(path: str) -> bool:
    return path.rpartition(os.sep)[2].startswith("rollout-")


def _is_chat(path: str) -> bool:
    parts = path.rsplit(os.sep, 2)
    return len(parts) == 3 and parts[1] == "chats" and parts[2].startswith("session-")


def _parts(path: str) -> list[str]:
    """Sorts like ``Path`` (component by component) for the normalized paths a walk gives."""
    return path.split(os.sep)


def _walk_jsonl(top: str) -> list[str]:
    """``*.jsonl`` files under ``top``, following symlinked directories, each directory once (cycle-safe),
    directories and names in sorted order (what ``os.walk`` with sorted lists gives)."""
    visited: set[tuple[int, int]] = set()
    out: list[str] = []
    _walk_into(top, visited, out)
    return out


def _walk_into(directory: str, visited: set[tuple[int, int]], out: list[str]) -> None:
    try:
        st = os.stat(directory)
        if (st.st_dev, st.st_ino) in visited:
            return  # reached again through a link: already walked
        visited.add((st.st_dev, st.st_ino))
        files = []
        subdirs = []
        with os.scandir(directory) as entries:
            for entry in entries:
                try:
                    is_dir = entry.is_dir()  # follows links, as os.walk(followlinks=True) does
                except OSError:
                    is_dir = False
                if is_dir:
                    subdirs.append(entry.name)
                elif entry.name.endswith(".jsonl"):
                    files.append(entry.name)
    except OSError:
        return
    prefix = directory + os.sep
    files.sort()
    out.extend([prefix + name for name in files])
    subdirs.sort()
    for name in subdirs:
        _walk_into(prefix + name, visited, out)


def _header(state_file: str, bases: list[Base]) -> bytes | None:
    try:
        st = os.stat(state_file)
    except OSError:
        return None
    lines = [b"%s\t%d\t%d\t%d\t%d\n" % (SIGNATURE_VERSION, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)]
    for kind, base in bases:
        # Absolute: a check run from another directory walks the same place (a relative directory's files are
        # named relative to it in the lines below, which that walk never gives: it then always answers
        # "changed", and the usual path decides).
        encoded = os.fsencode(os.path.abspath(base))
        if b"\n" in encoded:
            return None  # a name the signature cannot hold: no signature, every run takes the usual path
        lines.append(b"D%s%s\n" % (KIND_MARK[kind], encoded))
    return b"".join(lines)


def signature_now(found: list[Found], state_file: str, bases: list[Base]) -> bytes | None:
    """The signature of the files as they are now (None when the state file is missing, or a directory's name
    cannot be held: then no signature is kept and every run takes the usual path)."""
    header = _header(state_file, bases)
    if header is None:
        return None
    lines = [
        f"{_MARK_TEXT[kind]}{path}\t{st.st_dev}\t{st.st_ino}\t{st.st_size}\t{st.st_mtime_ns}\n"
        for kind, _, path, st in found
    ]
    return header + fsencode_all("".join(lines))


def fsencode_all(text: str) -> bytes:
    """``os.fsencode`` of a whole text at once (names that are no valid UTF-8 round-trip as they were)."""
    return text.encode(_FS_ENCODING, _FS_ERRORS)


def saved_bases(saved: bytes) -> list[Base] | None:
    """The directories a saved signature names (None: not a signature of this version)."""
    end = saved.find(b"\n")
    if end < 0 or not saved.startswith(SIGNATURE_VERSION + b"\t"):
        return None
    bases: list[Base] = []
    start = end + 1
    while saved.startswith(b"D", start):
        end = saved.find(b"\n", start)
        if end < 0:
            return None
        kind = _KIND_OF_MARK.get(saved[start + 1 : start + 2])
        if kind is None:
            return None
        bases.append((kind, os.fsdecode(saved[start + 2 : end])))
        start = end + 1
    return bases


def unchanged(root: str) -> bool:
    """True when every transcript file under the directories the last ingest into ``root`` read is as that
    ingest left it, and no file was added: a live report has nothing to ingest. False when something changed,
    or when that cannot be told this way (no signature yet, a directory gone): the caller takes the usual
    path, which decides per file."""
    try:
        with open(os.path.join(root, SIGNATURE_FILE), "rb") as handle:
            saved = handle.read()
    except OSError:
        return False
    bases = saved_bases(saved)
    if bases is None:
        return False
    header = _header(os.path.join(root, STATE_FILE), bases)
    if header is None:
        return False
    try:
        lines = _lines_now(bases)
    except OSError:
        return False
    return saved == header + fsencode_all("".join(lines))


def _lines_now(bases: list[Base]) -> list[str]:
    """The file lines of :func:`signature_now` for a walk of ``bases``, made as it walks (the no-op check's
    loop: :func:`walk` and the signature in one pass, without the tuples)."""
    seen: set[tuple[int, int]] = set()
    lines: list[str] = []
    add, stat = lines.append, os.stat
    for kind, base in bases:
        mark = _MARK_TEXT[kind]
        _, paths = _paths(kind, base)
        for path in paths:
            try:
                st = stat(path)
            except OSError:
                continue
            key = (st.st_dev, st.st_ino)
            if st.st_mode & _S_IFMT == _S_IFREG and key not in seen:
                seen.add(key)
                add(f"{mark}{path}\t{key[0]}\t{key[1]}\t{st.st_size}\t{st.st_mtime_ns}\n")
    return lines


def main(argv: list[str] | None = None) -> int:
    """``python -m ctxops_token_capture.livecheck [DATA_DIR]``: exit 0 when nothing changed since the last
    ingest into DATA_DIR (default: ``$CTXOPS_DATA_DIR`` or the user data dir), 1 otherwise."""
    import sys

    args = sys.argv[1:] if argv is None else argv
    if args:
        root = os.path.expanduser(args[0])
    else:
        from ctxops_contracts.shared.layout import user_data_dir

        root = user_data_dir()
    return 0 if unchanged(root) else 1


if __name__ == "__main__":
    raise SystemExit(main())
