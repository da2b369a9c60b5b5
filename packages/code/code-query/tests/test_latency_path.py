"""`cq def` as a fresh process does not import what it does not use (measured with -X importtime)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

# CI's coverage leg traces subprocesses, which loads coverage's own modules (pathlib, argparse, ...) into
# every process: import hygiene is checked by the untraced run (`make test`), not there.
_UNTRACED = pytest.mark.skipif(
    bool(os.environ.get("COVERAGE_PROCESS_CONFIG")), reason="coverage tracing loads modules of its own"
)

HEAVY = ("duckdb", "tree_sitter", "lancedb", "pyarrow", "mcp", "bpe_openai", "pygit2", "watchdog", "pydantic")


def _imported(args: list[str]) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "ctxops_code_query", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode in (0, 1), done.stderr[-2000:]
    names = set()
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip().split(".")[0])
    return names


def test_def_imports_no_heavy_module(example_repo: Path) -> None:
    names = _imported(["def", "transition", "--root", str(example_repo), "--no-cache"])
    assert "ctxops_code_graph" in names  # the measurement sees the read path at all
    assert not names & set(HEAVY), names & set(HEAVY)


@_UNTRACED
def test_grep_and_open_do_not_touch_the_index_modules(example_repo: Path) -> None:
    for args in (["grep", "def transition"], ["open", "api/clock.py:1-5"]):
        names = _imported([*args, "--root", str(example_repo)])
        assert not names & {*HEAVY, "ctxops_code_graph", "ctxops_code_scan", "sqlite3"}, (args, names)
