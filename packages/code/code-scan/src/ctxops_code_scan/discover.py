"""Find the files to index under a root: the working tree, honouring ignore rules, never leaving the root."""

from __future__ import annotations

import contextlib
import errno
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .config import ALWAYS_IGNORED_DIRS, FIRST_PARTY_VENDOR_NAMES, MODULE_METADATA, ScanConfig
from .languages import language_for_path, language_for_shebang
from .records import Skipped


@dataclass(frozen=True)
class Candidate:
    """A file that looks like source: to be read and scanned."""

    path: str
    lang: str
    size: int
    mtime_ns: int


@dataclass
class Discovery:
    files: list[Candidate] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    # repo-relative dir ('' = root) -> mtime_ns; also .gitignore and config files, whose edits change the file set
    dirs: dict[str, int] = field(default_factory=dict)
    other_files: int = 0  # files in no language we map (docs, data): counted, not listed


class _Ignores:
    """gitignore semantics across nested .gitignore files: the deepest matching pattern decides."""

    def __init__(self, root_lines: list[str], config_patterns: tuple[str, ...]) -> None:
        self._stack: list[tuple[str, Any]] = []
        if root_lines:
            self._stack.append(("", _spec(root_lines)))
        self._config = _spec(list(config_patterns)) if config_patterns else None

    def push(self, rel_dir: str, lines: list[str]) -> int:
        if lines:
            self._stack.append((rel_dir, _spec(lines)))
            return 1
        return 0

    def pop(self, count: int) -> None:
        for _ in range(count):
            self._stack.pop()

    def ignored(self, rel: str, is_dir: bool) -> bool:
        verdict: bool | None = None
        for base, spec in self._stack:
            sub = rel[len(base) + 1 :] if base else rel
            result = spec.check_file(sub + "/" if is_dir else sub)
            if result.include is not None:
                verdict = result.include
        if self._config is not None:
            result = self._config.check_file(rel + "/" if is_dir else rel)
            if result.include is not None:
                verdict = result.include
        return bool(verdict)


def _spec(lines: list[str]) -> Any:
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(lines)


def _note_rules_file(out: Discovery, path: Path, rel: str) -> None:
    """Ignore files change what is indexed: their mtimes are watched like directories'."""
    with contextlib.suppress(OSError):
        out.dirs[rel] = path.stat().st_mtime_ns


def _read_lines(path: Path) -> list[str]:
    try:
        return path.read_text("utf-8", errors="replace").splitlines()
    except OSError:
        return []


def discover(root: Path, config: ScanConfig | None = None) -> Discovery:
    """Walk `root` (no symlinks followed), classify every file: a candidate, skipped with a reason, or other."""
    config = config or ScanConfig()
    root = root.resolve()
    out = Discovery()
    root_lines = _read_lines(root / ".gitignore") + _read_lines(root / ".git" / "info" / "exclude")
    ignores = _Ignores(root_lines, config.ignore)
    _note_rules_file(out, root / ".meta" / "config.toml", ".meta/config.toml")
    _walk(root, "", root, ignores=ignores, config=config, out=out, top=True)
    return out


def discover_dirs(root: Path, rel_dirs: list[str], known_dirs: set[str], config: ScanConfig | None = None) -> Discovery:
    """List only the directories `rel_dirs` (whose entries changed), under the same rules as `discover`.

    Subdirectories in `known_dirs` are not entered (an unchanged directory has the same entries); a new
    one is walked whole. The ignore rules of each listed directory are those of its ancestors, as in a
    full walk; a change to the rules themselves needs a full `discover`.
    """
    config = config or ScanConfig()
    root = root.resolve()
    out = Discovery()
    root_lines = _read_lines(root / ".gitignore") + _read_lines(root / ".git" / "info" / "exclude")
    for rel_dir in sorted(set(rel_dirs)):
        ignores = _Ignores(root_lines, config.ignore)
        parts = rel_dir.split("/") if rel_dir else []
        for depth in range(1, len(parts)):  # the ancestors' .gitignore files (the root's is in root_lines)
            ancestor = "/".join(parts[:depth])
            ignores.push(ancestor, _read_lines(root / ancestor / ".gitignore"))
        abs_dir = root / rel_dir if rel_dir else root
        _walk(root, rel_dir, abs_dir, ignores=ignores, config=config, out=out, top=not rel_dir, known=known_dirs)
    return out


def _walk(
    root: Path,
    rel_dir: str,
    abs_dir: Path,
    *,
    ignores: _Ignores,
    config: ScanConfig,
    out: Discovery,
    top: bool,
    known: set[str] | None = None,
) -> None:
    try:
        out.dirs[rel_dir] = abs_dir.stat().st_mtime_ns
        entries = sorted(os.scandir(abs_dir), key=lambda e: e.name)
    except OSError as exc:
        out.skipped.append(Skipped(path=rel_dir or ".", reason=f"unreadable: {exc.strerror or exc}"))
        return
    pushed = 0 if top else ignores.push(rel_dir, _read_lines(abs_dir / ".gitignore"))
    _note_rules_file(out, abs_dir / ".gitignore", f"{rel_dir}/.gitignore" if rel_dir else ".gitignore")
    try:
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            try:
                if entry.is_symlink():
                    out.skipped.append(Skipped(path=rel, reason=_symlink_reason(root, entry.path)))
                    continue
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError as exc:
                out.skipped.append(Skipped(path=rel, reason=f"unreadable: {exc.strerror or exc}"))
                continue
            if is_dir:
                if entry.name in ALWAYS_IGNORED_DIRS:
                    continue
                if ignores.ignored(rel, True):
                    out.skipped.append(Skipped(path=rel, reason="ignored"))
                elif entry.name in config.vendored_dirs and rel not in config.include_vendored:
                    why = vendored_reason(entry.name, Path(entry.path))
                    if why is not None:
                        out.skipped.append(Skipped(path=rel, reason=f"vendored: {why}"))
                    elif known is None or rel not in known:  # the project's own code under a vendor-like name
                        _walk(
                            root, rel, Path(entry.path), ignores=ignores, config=config, out=out, top=False, known=known
                        )
                elif known is None or rel not in known:
                    _walk(root, rel, Path(entry.path), ignores=ignores, config=config, out=out, top=False, known=known)
                continue
            if not entry.is_file(follow_symlinks=False):
                continue  # sockets, fifos, devices
            _classify(rel, entry, ignores, config, out)
    finally:
        ignores.pop(pushed)


# Entries looked at to decide whether a vendor-like directory is another module; past it, it counts as one.
VENDOR_CHECK_ENTRIES = 400


def vendored_reason(name: str, path: Path) -> str | None:
    """Why a vendored directory is left out, or None when it is the project's own code: a `vendor/`,
    `third_party/` or `_vendor/` with no module metadata (package.json, go.mod, pyproject.toml, ...) in it
    or in its directories one or two levels down. A package manager's directory (node_modules, ...) is
    always left out."""
    if name not in FIRST_PARTY_VENDOR_NAMES:
        return f"{name} is a package manager's directory"
    seen = 0
    level = [(path, "")]
    for _depth in range(3):
        below: list[tuple[Path, str]] = []
        for directory, rel in level:
            try:
                entries = list(os.scandir(directory))
            except OSError:
                continue
            for entry in entries:
                seen += 1
                if seen > VENDOR_CHECK_ENTRIES:
                    return f"more than {VENDOR_CHECK_ENTRIES} entries to check for module metadata"
                try:
                    if entry.is_dir(follow_symlinks=False):
                        below.append((Path(entry.path), f"{rel}{entry.name}/"))
                    elif entry.name in MODULE_METADATA:
                        return f"has its own {rel}{entry.name}"
                except OSError:
                    continue
        level = below
    return None


def _classify(rel: str, entry: os.DirEntry[str], ignores: _Ignores, config: ScanConfig, out: Discovery) -> None:
    spec = language_for_path(rel)
    try:
        st = entry.stat(follow_symlinks=False)
    except OSError as exc:
        out.skipped.append(Skipped(path=rel, reason=f"unreadable: {exc.strerror or exc}"))
        return
    if spec is None and "." not in entry.name:
        spec = _sniff_shebang(entry.path)
    if spec is None:
        out.other_files += 1
        return
    if ignores.ignored(rel, False):
        out.skipped.append(Skipped(path=rel, reason="ignored", size=st.st_size))
        return
    if st.st_size > config.max_file_bytes:
        out.skipped.append(Skipped(path=rel, reason="too-large", size=st.st_size))
        return
    out.files.append(Candidate(path=rel, lang=spec.name, size=st.st_size, mtime_ns=st.st_mtime_ns))


def _sniff_shebang(path: str) -> Any:
    try:
        with open(path, "rb") as fh:
            return language_for_shebang(fh.readline(128))
    except OSError:
        return None


def _symlink_reason(root: Path, path: str) -> str:
    try:
        Path(path).stat()  # follows the link: raises on loops and dangling targets
        target = Path(os.path.realpath(path))
    except OSError as exc:
        return "symlink-loop" if exc.errno == errno.ELOOP else "symlink-broken"
    if target == root or root in target.parents:
        return "symlink"  # the target is indexed under its own path
    return "symlink-outside"
