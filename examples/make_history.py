#!/usr/bin/env python3
"""Create a reproducible git history of the example order service.

Usage: python examples/make_history.py DEST

Copies ``examples/order-service`` into DEST in the stages listed in
``STAGES`` and commits each one with a fixed author, committer and date, so
the commit hashes are the same on every run and every machine. Stage 6 is a
real bug fix: until then, the files in ``OLD_VERSIONS`` are written in their
earlier, buggy form. Prints the final HEAD hash.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SOURCE = Path(__file__).resolve().parent / "order-service"

AUTHOR_NAME = "Ada Example"
AUTHOR_EMAIL = "ada@example.com"
FIRST_COMMIT_EPOCH = 1_709_542_800  # 2024-03-04 09:00:00 UTC
STAGE_SPACING_SECONDS = 26 * 3600 + 17 * 60  # one commit a day, drifting a little

IGNORED_NAMES = {"__pycache__", ".pytest_cache", ".benchmarks", "node_modules", "dist", ".DS_Store"}
IGNORED_SUFFIXES = (".pyc", ".pyo")

# (commit message, paths relative to order-service). A directory stands for
# every file under it. A file listed again in a later stage is re-written
# with its content for that stage.
STAGES: list[tuple[str, list[str]]] = [
    (
        "Add order state machine, domain models, storage and stock reservations",
        [
            ".gitignore",
            "README.md",
            "pyproject.toml",
            "api/__init__.py",
            "api/app.py",
            "api/clock.py",
            "api/config.py",
            "api/errors.py",
            "api/events.py",
            "api/ids.py",
            "api/models.py",
            "api/orders",
            "api/inventory",
            "api/storage",
            "api/tests/__init__.py",
            "api/tests/conftest.py",
            "api/tests/test_config.py",
            "api/tests/test_models.py",
            "api/tests/test_state_machine.py",
            "api/tests/test_repository.py",
            "api/tests/test_rollback.py",
        ],
    ),
    (
        "Handle payment provider callbacks with signature checks and idempotency",
        [
            "api/payments",
            "api/tests/payment_helpers.py",
            "api/tests/test_signature.py",
            "api/tests/test_callbacks.py",
        ],
    ),
    (
        "Serve the API over HTTP with plain handler functions",
        [
            "api/server",
            "api/tests/test_handlers.py",
        ],
    ),
    (
        "Close unpaid orders after a timeout; add the Go worker",
        [
            "api/__main__.py",
            "api/jobs",
            "api/tests/test_timeout_close.py",
            "worker",
        ],
    ),
    (
        "Add the checkout web front end",
        ["web"],
    ),
    (
        "Release reserved stock when the timeout job expires an order\n\n"
        "close_expired_orders moved overdue orders to EXPIRED but never called\n"
        "rollback_reservation, so every expired order kept its units reserved.\n"
        "Roll the reservation back, count the released units in the report and\n"
        "add a regression test.",
        [
            "api/jobs/timeout_close.py",
            "api/tests/test_timeout_close.py",
        ],
    ),
]

# Index into STAGES of the bug-fix commit; before it, OLD_VERSIONS apply.
FIX_STAGE = 5

# path -> [(text in the current file, text it had before the fix)]
OLD_VERSIONS: dict[str, list[tuple[str, str]]] = {
    "api/jobs/timeout_close.py": [
        ("from api.inventory.rollback import rollback_reservation\n", ""),
        (
            "        if order.reservation_id:\n"
            '            result = rollback_reservation(services.inventory, order.reservation_id, reason="expired")\n'
            "            report.released_units += sum(result.released.values())\n",
            "",
        ),
    ],
    "api/tests/test_timeout_close.py": [
        (
            "def test_expired_order_releases_reserved_stock(services, order, clock):\n"
            "    clock.advance(3600)\n"
            "    report = close_expired_orders(services)\n"
            "    assert report.released_units == 3\n"
            '    assert services.inventory.available("MUG-01") == 10\n'
            '    assert services.inventory.available("TEE-M") == 5\n'
            "\n\n",
            "",
        ),
    ],
}


def fail(message: str, code: int = 2) -> None:
    print(f"make_history: {message}", file=sys.stderr)
    sys.exit(code)


def is_ignored(rel: Path) -> bool:
    return any(part in IGNORED_NAMES for part in rel.parts) or rel.name.endswith(IGNORED_SUFFIXES)


def project_files() -> list[str]:
    """Every file of the example project, as sorted POSIX paths."""
    files = []
    for path in SOURCE.rglob("*"):
        rel = path.relative_to(SOURCE)
        if path.is_file() and not is_ignored(rel):
            files.append(rel.as_posix())
    return sorted(files)


def expand(paths: list[str], all_files: list[str]) -> list[str]:
    """Resolve stage paths (files or directories) to project files."""
    out = []
    for entry in paths:
        matched = [f for f in all_files if f == entry or f.startswith(entry.rstrip("/") + "/")]
        if not matched:
            fail(f"stage path {entry!r} matches no file in {SOURCE}", code=1)
        out.extend(matched)
    return sorted(set(out))


def content_at(rel: str, stage_index: int) -> bytes:
    """File content as it should be committed at ``stage_index``."""
    data = (SOURCE / rel).read_bytes()
    if stage_index >= FIX_STAGE or rel not in OLD_VERSIONS:
        return data
    text = data.decode("utf-8")
    for current, old in OLD_VERSIONS[rel]:
        if current not in text:
            fail(f"{rel}: patch anchor not found; update OLD_VERSIONS", code=1)
        text = text.replace(current, old, 1)
    return text.encode("utf-8")


def git_env(stage_index: int) -> dict[str, str]:
    """Environment pinning identity and dates, isolated from user config."""
    date = f"{FIRST_COMMIT_EPOCH + stage_index * STAGE_SPACING_SECONDS} +0100"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        {
            "GIT_AUTHOR_NAME": AUTHOR_NAME,
            "GIT_AUTHOR_EMAIL": AUTHOR_EMAIL,
            "GIT_AUTHOR_DATE": date,
            "GIT_COMMITTER_NAME": AUTHOR_NAME,
            "GIT_COMMITTER_EMAIL": AUTHOR_EMAIL,
            "GIT_COMMITTER_DATE": date,
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_CONFIG_NOSYSTEM": "1",
            "TZ": "UTC",
        }
    )
    return env


def git(dest: Path, *args: str, stage_index: int = 0) -> str:
    result = subprocess.run(
        ["git", "-c", "commit.gpgsign=false", "-c", "core.autocrlf=false", *args],
        cwd=dest,
        env=git_env(stage_index),
        check=True,
        capture_output=True,
        text=True,
    )
    return result.stdout.strip()


def check_stages(all_files: list[str]) -> None:
    """Every project file must be introduced by some stage."""
    introduced = set()
    for _, paths in STAGES:
        introduced.update(expand(paths, all_files))
    missing = sorted(set(all_files) - introduced)
    if missing:
        fail("files not covered by any stage: " + ", ".join(missing), code=1)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    dest = Path(argv[0])
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        fail(f"destination {dest} exists and is not an empty directory")
    dest.mkdir(parents=True, exist_ok=True)

    all_files = project_files()
    check_stages(all_files)
    git(dest, "-c", "init.defaultBranch=main", "init", "-q")
    for index, (message, paths) in enumerate(STAGES):
        for rel in expand(paths, all_files):
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content_at(rel, index))
        git(dest, "add", "-A", stage_index=index)
        git(dest, "commit", "-q", "-m", message, stage_index=index)

    leftover = git(dest, "status", "--porcelain")
    if leftover:
        fail(f"working tree not clean after the last stage:\n{leftover}", code=1)
    print(git(dest, "rev-parse", "HEAD"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
