# ruff: noqa: SIM105
# try/except, not contextlib.suppress: contextlib costs the hook path ~2 ms of imports.
"""Paths from repository content stay inside ``.meta/``; ``.meta`` itself is the user's own directory.

A repository cloned from a stranger decides what is under ``.meta/``: symlinks (``.meta`` itself, or
``.meta/events`` pointing at ``~``), FIFOs and device files where files are expected, huge files, and the
names and ids that ctxops turns into file names. Every writer under ``.meta/`` goes through these helpers:

- :func:`check_meta`: ``.meta`` is a real directory (not a symlink) owned by the current user, or absent;
- :func:`ensure_dir`: ``os.makedirs`` that creates what is missing with mode 0700 and, from the last
  ``.meta`` component of the path down, refuses a symlink or a non-directory at any level;
- :func:`confined`: joins a name read from content (an id, a title, a file name) under a directory and
  refuses ``..``, absolute names, NUL, separators, and anything that escapes once symlinks are resolved;
- :func:`open_regular` / :func:`read_regular`: open without following a final symlink and without
  blocking (``O_NOFOLLOW | O_NONBLOCK``), refuse anything but a regular file, read with a cap.

A refusal raises :class:`UnsafePath`: a :class:`~ctxops_contracts.shared.repo.NotARepository` (every CLI
turns it into one line and exit 2) and an ``OSError`` (hooks log it and exit 0; writers that fall back on
an ``OSError`` fall back). The checks are ``lstat`` walks (a few microseconds): they hold against what a
repository contains, not against another local process racing to swap directories while we write (that
process could already write to the user's files).

Standard library only, no pathlib: the hook path imports this.
"""

from __future__ import annotations

import errno
import os
import stat

from .repo import NotARepository

META_DIR = ".meta"
DIR_MODE = 0o700
FILE_MODE = 0o600
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_BINARY = getattr(os, "O_BINARY", 0)
_HAS_UID = hasattr(os, "geteuid")


class UnsafePath(NotARepository, OSError):
    """A path ctxops refuses to write or read: outside ``.meta``, through a symlink, not a regular file."""

    def __init__(self, path: str, reason: str, fix: str = "") -> None:
        super().__init__(
            f"refusing {path}: {reason}",
            fix or "ctxops writes only inside a real .meta directory you own; remove what the repository put there",
        )
        self.path = path
        self.reason = reason


def _describe(st: os.stat_result) -> str:
    mode = st.st_mode
    if stat.S_ISLNK(mode):
        return "a symlink"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device file"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


def _check_dir(path: str, st: os.stat_result) -> None:
    if not stat.S_ISDIR(st.st_mode):  # an lstat result: a symlink is not a directory here
        what = _describe(st) if not stat.S_ISREG(st.st_mode) else "a file"
        raise UnsafePath(path, f"{what}, not a directory")
    if _HAS_UID and st.st_uid != os.geteuid():
        raise UnsafePath(path, f"owned by uid {st.st_uid}, not by you (uid {os.geteuid()})")


def check_meta(root: str, *, create: bool = False) -> str:
    """``<root>/.meta``, checked: a real directory owned by the current user, or absent.

    With ``create`` a missing ``.meta`` is made (mode 0700). Raises :class:`UnsafePath` for a symlink, a
    file, or a directory owned by someone else; nothing is written then.
    """
    meta = os.path.join(root, META_DIR)
    try:
        st = os.lstat(meta)
    except FileNotFoundError:
        if not create:
            return meta
        return ensure_dir(meta)
    _check_dir(meta, st)
    return meta


def meta_is_safe(root: str) -> bool:
    """Whether ``<root>/.meta`` is absent or a real directory the current user owns (never raises)."""
    try:
        check_meta(root)
    except OSError:
        return False
    return True


def _meta_index(parts: list[str]) -> int:
    for i in range(len(parts) - 1, -1, -1):
        if parts[i] == META_DIR:
            return i
    return -1


def ensure_dir(path: str | os.PathLike[str], mode: int = DIR_MODE) -> str:
    """Create the directory ``path`` (and what is missing above it) with ``mode``; return it.

    From the last ``.meta`` component of ``path`` down every level is checked with ``lstat``: a symlink, a
    file or a directory owned by another user raises :class:`UnsafePath`. Above ``.meta`` (the repository
    and its parents), and for paths with no ``.meta`` in them (the per-user data directory), missing
    directories are created with ``mode`` as ``os.makedirs`` would.
    """
    name = os.path.abspath(os.fspath(path))
    parts = name.split(os.sep)
    at = _meta_index(parts)
    if at < 0:
        _makedirs(name, mode)
        return name
    base = os.sep.join(parts[:at]) or os.sep
    if not os.path.isdir(base):
        _makedirs(base, mode)
    current = base
    for i, part in enumerate(parts[at:]):
        if not part:
            continue
        current = os.path.join(current, part)
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            try:
                os.mkdir(current, mode)
            except FileExistsError:
                pass  # a concurrent writer made it: checked below like any other
            st = os.lstat(current)
        _check_dir(current, st)
        if i == 0 and not os.path.lexists(os.path.join(current, ".gitignore")):
            # The first write under .meta by any package keeps derived data out of `git status`.
            from .layout import write_ignore

            write_ignore(current)
    return name


def checked_dir(path: str | os.PathLike[str]) -> bool:
    """Whether the directory ``path`` exists, checked like :func:`ensure_dir` (for readers: nothing made).

    False when a level is missing; :class:`UnsafePath` when a level from ``.meta`` down is a symlink, a
    file, or another user's directory.
    """
    name = os.path.abspath(os.fspath(path))
    parts = name.split(os.sep)
    at = _meta_index(parts)
    if at < 0:
        return os.path.isdir(name)
    current = os.sep.join(parts[:at]) or os.sep
    for part in parts[at:]:
        if not part:
            continue
        current = os.path.join(current, part)
        try:
            st = os.lstat(current)
        except (FileNotFoundError, NotADirectoryError):
            return False
        _check_dir(current, st)
    return True


def _makedirs(name: str, mode: int) -> None:
    """``os.makedirs(name, mode, exist_ok=True)`` with ``mode`` on every directory it creates."""
    if os.path.isdir(name):
        return
    parent = os.path.dirname(name)
    if parent and parent != name:
        _makedirs(parent, mode)
    try:
        os.mkdir(name, mode)
    except FileExistsError:
        if not os.path.isdir(name):
            raise


def confined(base: str, name: str, *, nested: bool = False) -> str:
    """``base/name`` for a ``name`` read from content (an id, a title, a file name); refuses escapes.

    ``name`` must be non-empty, relative, without NUL, ``.`` or ``..`` components, and (unless ``nested``)
    without path separators. The result, with symlinks resolved, must stay under ``base`` resolved.
    Raises :class:`UnsafePath` otherwise.
    """
    if not isinstance(name, str) or not name:
        raise UnsafePath(repr(name), "an empty name")
    shown = name if len(name) <= 80 else name[:77] + "..."
    if "\x00" in name:
        raise UnsafePath(repr(shown), "a name with a NUL byte")
    separators = "/\\" if os.sep == "/" else "/\\:"
    if os.path.isabs(name) or name[0] in separators:
        raise UnsafePath(shown, "an absolute path where a name was expected")
    if not nested and any(sep in name for sep in separators):
        raise UnsafePath(shown, "a path separator in a name")
    pieces = name.replace("\\", "/").split("/")
    if any(piece in ("", ".", "..") for piece in pieces):
        raise UnsafePath(shown, "a '.' or '..' component or an empty one")
    joined = os.path.join(base, *pieces)
    real_base = os.path.realpath(base)
    real = os.path.realpath(joined)
    if real != real_base and not real.startswith(real_base.rstrip(os.sep) + os.sep):
        raise UnsafePath(shown, f"resolves outside {base}")
    return joined


def open_regular(path: str, flags: int = os.O_RDONLY, mode: int = FILE_MODE) -> int:
    """``os.open`` that never follows a final symlink, never blocks on a FIFO, and refuses non-files.

    Returns the descriptor (blocking mode restored); raises :class:`UnsafePath` for a symlink, a FIFO, a
    device or a directory, ``FileNotFoundError`` when absent (and not created).
    """
    try:
        fd = os.open(path, flags | _NOFOLLOW | _NONBLOCK | _CLOEXEC | _BINARY, mode)
    except OSError as exc:
        if _NOFOLLOW and exc.errno == errno.ELOOP:  # O_NOFOLLOW on a final symlink
            raise UnsafePath(path, "a symlink") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafePath(path, _describe(st))
        if _NONBLOCK:
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def create_private(path: str) -> int:
    """A new, empty file at ``path`` (mode 0600) opened for writing; whatever was there is removed first.

    For derived files whose old content does not matter: a symlink, FIFO or file a repository put at the
    name is unlinked (never followed), then the file is created exclusively. A directory there raises.
    """
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC | _BINARY, FILE_MODE)


def refuse_symlink(path: str | os.PathLike[str]) -> str:
    """``path``, unless it is a symlink (:class:`UnsafePath`): for files opened by a library (DuckDB,
    SQLite, LanceDB) that would follow one out of ``.meta``."""
    name = os.fspath(path)
    if os.path.islink(name):
        raise UnsafePath(name, "a symlink")
    return name


def read_regular(path: str, limit: int) -> bytes:
    """The first ``limit`` bytes of the regular file at ``path`` (see :func:`open_regular`)."""
    fd = open_regular(path)
    try:
        chunks: list[bytes] = []
        left = limit
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


CONFIG_LIMIT = 1_000_000


def read_config_text(path: str, limit: int = CONFIG_LIMIT) -> str:
    """A configuration file (``.meta/config.toml``) as text: a regular file only, at most ``limit`` bytes.

    ``FileNotFoundError`` when absent, :class:`UnsafePath` for a symlink, FIFO or device (a repository
    commits its config: ``config.toml -> /dev/zero`` must not hang a hook), ``ValueError`` when larger
    than ``limit``, ``UnicodeDecodeError`` when not UTF-8.
    """
    data = read_regular(path, limit + 1)
    if len(data) > limit:
        raise UnsafePath(path, f"larger than {limit} bytes")
    return data.decode("utf-8")


def is_regular(path: str) -> bool:
    """Whether ``path`` is a regular file itself (not a symlink to one, not a FIFO or device)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False
