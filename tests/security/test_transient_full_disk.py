"""Promise 7 (full disk): every CLI error on a full or read-only disk is one line on stderr naming the path
and the fix, exit 4, never a traceback.

On a real full filesystem: a 1 MB tmpfs mounted for the test (root only; skipped where mounting is not
permitted), the repository and the data directory on it, filled to the last byte, then real `ctx` and
`cq` processes. The read-only case remounts it read-only.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from ctxops_contracts.shared.cli import EXIT_DISK, disk_error

BIN = Path(sys.executable).parent


def _mount(point: Path, *options: str) -> bool:
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", ",".join(["size=1m", *options]), "tmpfs", str(point)],
        capture_output=True,
        check=False,
    )
    return done.returncode == 0


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    """A 1 MB tmpfs holding a git repository with one source file and a saved-output staging leftover."""
    if sys.platform != "linux" or os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root on Linux")
    point = tmp_path / "disk"
    point.mkdir()
    if not _mount(point):
        pytest.skip("mounting a tmpfs is not permitted here")
    try:
        repo = point / "repo"
        repo.mkdir()
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        (repo / "app.py").write_text("def total(x):\n    return x\n", encoding="utf-8")
        yield point
    finally:
        subprocess.run(["umount", "-l", str(point)], check=False)


def _fill(point: Path) -> None:
    block = b"\0" * 4096
    try:
        with (point / "filler").open("wb") as fh:
            while True:
                fh.write(block)
                fh.flush()
    except OSError as exc:
        assert exc.errno == errno.ENOSPC


def _run(point: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CTXOPS_DATA_DIR": str(point / "data"), "HOME": str(point.parent / "home")}
    return subprocess.run(
        [str(BIN / argv[0]), *argv[1:]],
        cwd=point / "repo",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


COMMANDS = [
    ("ctx", "init"),
    ("ctx", "mem", "add", "--title", "Money is Decimal", "never float"),
    ("ctx", "mem", "rebuild"),
    ("cq", "index"),
    ("ctx", "ledger", "ingest"),
    ("ctx", "out", "show", "0123abcd"),
]


@pytest.mark.parametrize("argv", COMMANDS, ids=[" ".join(a[:3]) for a in COMMANDS])
def test_full_disk_is_one_line_exit_4(disk: Path, argv: tuple[str, ...]) -> None:
    if argv[:2] == ("ctx", "out"):  # an output an older version staged raw: `ctx out show` redacts it to disk
        pending = disk / "repo" / ".meta" / ".state" / "guard" / "pending"
        pending.mkdir(parents=True)
        (pending / "0123abcd.raw").write_text('{"id": "0123abcd"}\n' + "line\n" * 20_000, encoding="utf-8")
    if argv[:3] == ("ctx", "mem", "rebuild"):
        memory = disk / "repo" / ".meta" / "memory"
        memory.mkdir(parents=True)
        (memory / "m1.md").write_text("---\nid: m1\nkind: lesson\ntitle: t\n---\nbody\n", encoding="utf-8")
    _fill(disk)
    done = _run(disk, *argv)
    assert done.returncode == EXIT_DISK, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert "[ENOSPC]" in lines[0] and str(disk) in lines[0] and "fix: free space" in lines[0], lines[0]


def test_read_only_disk_is_one_line_exit_4(disk: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
    done = _run(disk, "ctx", "mem", "add", "--title", "Money is Decimal", "never float")
    assert done.returncode == EXIT_DISK, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "[EROFS]" in lines[0] and str(disk) in lines[0], done.stderr
    as_json = _run(disk, "ctx", "mem", "add", "--json", "--title", "Money is Decimal", "never float")
    assert as_json.returncode == EXIT_DISK
    assert json.loads(as_json.stdout)["error"]["code"] == EXIT_DISK


def test_disk_error_names_what_libraries_wrap() -> None:
    """DuckDB and sqlite keep the OS words in their own exception types; other errors are not disk errors."""

    class IOException(Exception):  # duckdb.IOException's shape
        pass

    assert disk_error(IOException('Could not write file "x.duckdb": No space left on device')) is not None
    wrapped = RuntimeError("could not save")
    wrapped.__cause__ = OSError(errno.EDQUOT, "Disk quota exceeded", "/srv/q/file")
    error = disk_error(wrapped)
    assert error is not None and "/srv/q/file" in error.message and "[EDQUOT]" in error.message
    assert disk_error(ValueError("bad value")) is None
    assert disk_error(OSError(errno.ENOENT, "No such file", "/x")) is None
