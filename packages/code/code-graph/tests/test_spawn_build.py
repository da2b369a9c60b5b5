"""A full build with its scan workers started by spawn (macOS's and Windows' default): one writer, many
scanners, nothing inherited."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ctxops_code_scan.scan import PARALLEL_THRESHOLD


def _tree(root: Path, n: int) -> list[str]:
    paths = []
    for i in range(n):
        rel = f"pkg{i % 7}/mod_{i}.py"
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"def f{i}(x):\n    return x\n\n\nclass K{i}:\n    def m(self):\n        f{i}(1)\n")
        paths.append(rel)
    return paths


def test_a_full_index_build_under_spawn(tmp_path: Path) -> None:
    """A whole build in a fresh interpreter with spawned workers (the graph's writer stays one process)."""
    items = _tree(tmp_path, PARALLEL_THRESHOLD + 40)
    code = (
        "import sys; from ctxops_code_graph import CodeIndex;"
        "ix = CodeIndex(sys.argv[1], auto_update=False); r = ix.build(workers=2);"
        "print(r.scanned, len(ix.definitions('m')))"
    )
    env = {**os.environ, "CTXOPS_START_METHOD": "spawn"}
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=False, timeout=300, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == [str(len(items)), str(len(items))]
