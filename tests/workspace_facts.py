"""Facts about the workspace shared by the cross-package tests."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# DESIGN.md section 1: within a line a package may use the ones above it; every package may use contracts.
ALLOWED_SIBLINGS: dict[str, set[str]] = {
    "ctxops-contracts": set(),
    "ctxops-hooks-capture": {"ctxops-contracts"},
    "ctxops-memory-store": {"ctxops-contracts", "ctxops-hooks-capture"},
    "ctxops-memory-inject": {"ctxops-contracts", "ctxops-hooks-capture", "ctxops-memory-store"},
    "ctxops-code-scan": {"ctxops-contracts"},
    "ctxops-code-graph": {"ctxops-contracts", "ctxops-code-scan"},
    "ctxops-code-query": {"ctxops-contracts", "ctxops-code-scan", "ctxops-code-graph"},
    "ctxops-token-capture": {"ctxops-contracts"},
    "ctxops-ledger-report": {"ctxops-contracts", "ctxops-token-capture"},
}
ALLOWED_SIBLINGS["ctxops"] = set(ALLOWED_SIBLINGS)


# The members grouped by line (DESIGN.md section 1): packages/<line>/<member>, core at packages/core.
LINES = ("code", "memory", "ledger")


def member_dirs() -> list[Path]:
    members = [ROOT / "packages" / "core"]
    for line in LINES:
        members += sorted(p for p in (ROOT / "packages" / line).iterdir() if (p / "pyproject.toml").is_file())
    return [ROOT / "contracts", *members]


def load_project(directory: Path) -> dict:
    with (directory / "pyproject.toml").open("rb") as fh:
        return tomllib.load(fh)["project"]


def requirement_name(requirement: str) -> str:
    name = requirement
    for stop in "<>=!~;[ ":
        name = name.split(stop, 1)[0]
    return name.strip().lower()


# Where `./dev` installs uv when the machine has none (see ./dev): the packaging tests use it from there too.
PRIVATE_UV = ROOT / ".dev" / "uv" / "bin" / "uv"
# Set in CI (`.ci/run`): a packaging test that cannot find its tools fails there instead of skipping.
REQUIRE_ENV = "CTXOPS_REQUIRE_PACKAGING_TESTS"


def find_uv() -> str:
    """uv for the packaging tests: PATH's, else the one `./dev` installed privately. Neither: a skip that
    says why this machine cannot run them, except under CI (``$CTXOPS_REQUIRE_PACKAGING_TESTS``), where
    it is a failure: a packaging test never skips there silently."""
    import os
    import shutil

    import pytest

    found = shutil.which("uv") or (str(PRIVATE_UV) if os.access(PRIVATE_UV, os.X_OK) else None)
    if found:
        return found
    why = (
        f"cannot run on this machine: no uv on PATH and none at {PRIVATE_UV} "
        "(`./dev uv --version` installs it privately; `./dev test` puts it on PATH)"
    )
    if os.environ.get(REQUIRE_ENV):
        pytest.fail(f"{why}; {REQUIRE_ENV} is set, so this is a failure, not a skip")
    pytest.skip(why)
