"""Install a pinned agent CLI from npm on first use into the test cache, under a file lock.

Each pinned version lives in one `*-version.txt` file next to this module (its single source). Tests
skip only when node or npm is missing; a failed install is an error, never a skip.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

HERE = Path(__file__).parent


class NpmInstallError(RuntimeError):
    """npm could not install a pinned client (an error, never a skip)."""


def pinned_version(version_file: str) -> str:
    """The version written in `HERE/version_file`."""
    path = HERE / version_file
    version = path.read_text(encoding="utf-8").strip()
    if not version:
        raise ValueError(f"{path} is empty")
    return version


def cache_root() -> Path:
    configured = os.environ.get("CTXOPS_TEST_CACHE")
    return Path(configured) if configured else Path.home() / ".cache" / "ctxops-tests"


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)  # parallel pytest processes wait here instead of racing npm
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def ensure_npm_client(package: str, version: str, binary: str, *, label: str, what: str) -> Path:
    """Path of `binary` from `package@version`, installed into `cache_root()/label-version` if absent.

    `what` names the tests in the skip message (e.g. "Codex CLI end-to-end tests").
    """
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"{what} need {' and '.join(missing)} on PATH (Node 18+) to install {package}@{version}")
    prefix = cache_root() / f"{label}-{version}"
    executable = prefix / "node_modules" / ".bin" / binary
    marker = prefix / ".installed"
    with file_lock(cache_root() / f"{label}-{version}.lock"):
        if marker.is_file() and executable.exists():
            return executable
        prefix.mkdir(parents=True, exist_ok=True)
        command = ["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund", f"{package}@{version}"]
        done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
        if done.returncode != 0 or not executable.exists():
            raise NpmInstallError(
                f"`{' '.join(command)}` failed (exit {done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
            )
        check = subprocess.run([str(executable), "--version"], capture_output=True, text=True, timeout=60, check=False)
        if check.returncode != 0 or version not in check.stdout:
            raise NpmInstallError(f"installed {binary} does not run: {check.stdout!r} {check.stderr!r}")
        marker.write_text(version + "\n", encoding="utf-8")
    return executable
