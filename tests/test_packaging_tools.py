"""The packaging tests find `./dev`'s private uv, and never skip silently in CI (issue 22, item 6)."""

from __future__ import annotations

import shutil
import stat
import subprocess
from pathlib import Path

import pytest

import workspace_facts
from workspace_facts import REQUIRE_ENV, find_uv


def test_without_uv_a_skip_says_why_and_ci_makes_it_a_failure(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(workspace_facts, "PRIVATE_UV", tmp_path / "none" / "uv")
    monkeypatch.delenv(REQUIRE_ENV, raising=False)
    with pytest.raises(pytest.skip.Exception, match="cannot run on this machine: no uv on PATH"):
        find_uv()
    monkeypatch.setenv(REQUIRE_ENV, "1")
    with pytest.raises(pytest.fail.Exception, match="a failure, not a skip"):
        find_uv()


def test_the_private_uv_of_dev_is_found_off_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    private = tmp_path / ".dev" / "uv" / "bin" / "uv"
    private.parent.mkdir(parents=True)
    private.write_text("#!/bin/sh\n")
    private.chmod(private.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(workspace_facts, "PRIVATE_UV", private)
    assert find_uv() == str(private)


def test_dev_test_puts_its_private_uv_on_path(tmp_path: Path) -> None:
    # ./dev in a copy whose private uv is a stand-in that reports what it was run with
    if shutil.which("uv", path="/usr/bin:/bin"):
        pytest.skip("cannot run on this machine: a system uv in /usr/bin would be found before ./dev's own")
    shutil.copy2(workspace_facts.ROOT / "dev", tmp_path / "dev")
    private = tmp_path / ".dev" / "uv" / "bin" / "uv"
    private.parent.mkdir(parents=True)
    private.write_text('#!/bin/sh\necho "args=$*"\necho "path=$PATH"\n')
    private.chmod(0o755)
    done = subprocess.run(
        ["/bin/sh", str(tmp_path / "dev"), "test", "-q"],
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "args=run pytest -q" in done.stdout
    path = next(line for line in done.stdout.splitlines() if line.startswith("path="))[5:]
    assert path.split(":")[0] == str(private.parent)
