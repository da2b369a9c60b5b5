"""The shared guard for paths derived from repository content (``ctxops_contracts.shared.confine``) and
the modes of what the shared writers create."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ctxops_contracts.shared.confine import (
    UnsafePath,
    check_meta,
    checked_dir,
    confined,
    create_private,
    ensure_dir,
    meta_is_safe,
    open_regular,
    read_config_text,
    read_regular,
)
from ctxops_contracts.shared.files import append_lines, atomic_write
from ctxops_contracts.shared.layout import ensure_meta, meta_subdir
from ctxops_contracts.shared.locks import file_lock
from ctxops_contracts.shared.repo import NotARepository, find_root

ROOT_ONLY = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown needs root")


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def test_an_unsafe_path_is_one_line_for_clis_and_an_oserror_for_hooks(tmp_path: Path) -> None:
    (tmp_path / ".meta").symlink_to(tmp_path)
    with pytest.raises(UnsafePath) as caught:
        check_meta(str(tmp_path))
    assert isinstance(caught.value, NotARepository) and isinstance(caught.value, OSError)
    assert "\n" not in str(caught.value) and "a symlink" in str(caught.value)


def test_check_meta(tmp_path: Path) -> None:
    assert check_meta(str(tmp_path)) == str(tmp_path / ".meta")  # absent: fine, nothing made
    assert not (tmp_path / ".meta").exists()
    check_meta(str(tmp_path), create=True)
    assert _mode(tmp_path / ".meta") == 0o700
    other = tmp_path / "other"
    other.mkdir()
    (other / ".meta").write_text("a file")
    with pytest.raises(UnsafePath, match="a file, not a directory"):
        check_meta(str(other))
    assert not meta_is_safe(str(other)) and meta_is_safe(str(tmp_path))


@ROOT_ONLY
def test_a_meta_owned_by_another_user_is_refused(tmp_path: Path) -> None:
    (tmp_path / ".meta").mkdir()
    os.chown(tmp_path / ".meta", 4242, 4242)
    with pytest.raises(UnsafePath, match="owned by uid 4242"):
        ensure_meta(str(tmp_path))
    assert list((tmp_path / ".meta").iterdir()) == []


def test_find_root_refuses_a_symlinked_meta(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".meta").symlink_to(tmp_path)
    with pytest.raises(NotARepository, match=r"refusing .*\.meta: a symlink"):
        find_root(repo)
    with pytest.raises(UnsafePath):
        find_root(explicit=repo)


def test_ensure_dir_creates_private_levels_and_refuses_links_under_meta(tmp_path: Path) -> None:
    made = ensure_dir(tmp_path / "repo" / ".meta" / "events" / ".state")
    for level in ("repo/.meta", "repo/.meta/events", "repo/.meta/events/.state"):
        assert _mode(tmp_path / level) == 0o700, level
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "repo" / ".meta" / "index").symlink_to(elsewhere)
    with pytest.raises(UnsafePath, match="index: a symlink"):
        ensure_dir(tmp_path / "repo" / ".meta" / "index" / "sub")
    assert list(elsewhere.iterdir()) == []
    assert made == str(tmp_path / "repo" / ".meta" / "events" / ".state")
    # Above .meta the user's own symlinks are fine (a symlinked checkout)
    (tmp_path / "link").symlink_to(tmp_path / "repo")
    ensure_dir(tmp_path / "link" / ".meta" / "logs")
    assert (tmp_path / "repo" / ".meta" / "logs").is_dir()
    # No .meta in the path (the per-user data directory): every level made 0700
    ensure_dir(tmp_path / "data" / "ctxops" / "context")
    assert _mode(tmp_path / "data") == _mode(tmp_path / "data" / "ctxops") == 0o700


def test_checked_dir_reads_without_making(tmp_path: Path) -> None:
    assert checked_dir(tmp_path / ".meta" / "memory") is False
    assert not (tmp_path / ".meta").exists()
    (tmp_path / ".meta").mkdir()
    (tmp_path / ".meta" / "memory").symlink_to(tmp_path)
    with pytest.raises(UnsafePath):
        checked_dir(tmp_path / ".meta" / "memory")


@pytest.mark.parametrize(
    "name",
    ["", "..", ".", "../x", "a/../../x", "/etc/passwd", "a\x00b", "a/b", "a\\b", "\\x", "//x"],
)
def test_confined_refuses_names_that_leave(tmp_path: Path, name: str) -> None:
    with pytest.raises(UnsafePath):
        confined(str(tmp_path), name)


def test_confined_resolves_symlinks(tmp_path: Path) -> None:
    base = tmp_path / "base"
    base.mkdir()
    (base / "out").symlink_to(tmp_path)
    assert confined(str(base), "entry.md") == str(base / "entry.md")
    assert confined(str(base), "sub/entry.md", nested=True) == str(base / "sub" / "entry.md")
    with pytest.raises(UnsafePath, match="resolves outside"):
        confined(str(base), "out")
    with pytest.raises(UnsafePath, match="resolves outside"):
        confined(str(base), "out/x", nested=True)


def test_open_regular_refuses_links_fifos_and_devices_without_blocking(tmp_path: Path) -> None:
    regular = tmp_path / "file"
    regular.write_bytes(b"x" * 10)
    (tmp_path / "link").symlink_to(regular)
    os.mkfifo(tmp_path / "fifo")
    started = time.monotonic()
    for path, what in ((tmp_path / "link", "a symlink"), (tmp_path / "fifo", "a FIFO"), (Path("/dev/zero"), "device")):
        with pytest.raises(UnsafePath, match=what):
            open_regular(str(path))
    assert time.monotonic() - started < 2
    assert read_regular(str(regular), 4) == b"xxxx"
    with pytest.raises(FileNotFoundError):
        read_regular(str(tmp_path / "missing"), 4)


def test_read_config_text_caps_and_refuses(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[memory]\n")
    assert read_config_text(str(config)) == "[memory]\n"
    with config.open("wb") as fh:
        fh.truncate(200 * 1024 * 1024)  # sparse: a 200 MB "config" is refused without reading it all
    with pytest.raises(UnsafePath, match="larger than"):
        read_config_text(str(config))
    config.unlink()
    config.symlink_to("/dev/zero")
    with pytest.raises(UnsafePath):
        read_config_text(str(config))


def test_create_private_replaces_a_planted_link(tmp_path: Path) -> None:
    target = tmp_path / "victim"
    target.write_text("keep")
    (tmp_path / "derived").symlink_to(target)
    fd = create_private(str(tmp_path / "derived"))
    os.write(fd, b"new")
    os.close(fd)
    assert target.read_text() == "keep" and (tmp_path / "derived").read_text() == "new"
    assert _mode(tmp_path / "derived") == 0o600


def test_shared_writers_create_private_files_and_never_write_through_links(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    ensure_meta(str(repo))
    assert _mode(repo / ".meta") == 0o700 and _mode(repo / ".meta" / ".gitignore") == 0o644  # committed
    logs = Path(meta_subdir(str(repo), "logs"))
    append_lines(logs / "a.log", b"one\n")
    atomic_write(logs / "b.json", "{}")
    with file_lock(logs / "c.lock"):
        pass
    assert {p.name: _mode(p) for p in logs.iterdir()} == {"a.log": 0o600, "b.json": 0o600, "c.lock": 0o600}
    old = logs / "old.log"
    old.write_bytes(b"x\n")
    old.chmod(0o644)
    append_lines(old, b"y\n")
    assert _mode(old) == 0o600  # an older version's world-readable log is tightened on the next append
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    (logs / "link.log").symlink_to(victim)
    (logs / "link.lock").symlink_to(victim)
    with pytest.raises(UnsafePath):
        append_lines(logs / "link.log", b"evil\n")
    with pytest.raises(UnsafePath), file_lock(logs / "link.lock"):
        pass
    (logs / "atomic.json").symlink_to(victim)
    atomic_write(logs / "atomic.json", "replaced")
    assert victim.read_text() == "keep\n" and not (logs / "atomic.json").is_symlink()
    os.mkfifo(logs / "fifo.log")
    with pytest.raises(UnsafePath, match="FIFO"):
        append_lines(logs / "fifo.log", b"never blocks\n")


def test_the_guard_is_cheap_to_import() -> None:
    """The hook path imports it: the standard library's os, stat and errno only (no pathlib, re, typing)."""
    code = (
        "import sys; before = set(sys.modules)\n"
        "import ctxops_contracts.shared.confine\n"
        "new = sorted(m for m in set(sys.modules) - before if not m.startswith('ctxops_contracts'))\n"
        "print(new)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert set(out.strip().strip("[]").replace("'", "").split(", ")) - {""} <= {"__future__", "errno"}
