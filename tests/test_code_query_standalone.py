"""ctxops-code-query installs alone: its wheel plus code-scan, code-graph, contracts and their third-party
dependencies in a clean virtual environment, nothing of the memory or ledger lines, and `cq` works."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from workspace_facts import ROOT, find_uv

pytestmark = pytest.mark.slow

CODE_LINE = {"ctxops-contracts", "ctxops-code-scan", "ctxops-code-graph", "ctxops-code-query"}
OTHER_LINES = {
    "ctxops",
    "ctxops-hooks-capture",
    "ctxops-memory-store",
    "ctxops-memory-inject",
    "ctxops-token-capture",
    "ctxops-ledger-report",
}


def test_code_query_alone_in_a_clean_venv(tmp_path: Path) -> None:
    uv = find_uv()
    wheels = tmp_path / "wheels"
    for member in ("contracts", "packages/code/code-scan", "packages/code/code-graph", "packages/code/code-query"):
        done = subprocess.run(
            [uv, "build", "--wheel", "--out-dir", str(wheels), str(ROOT / member)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-3000:]
    venv = tmp_path / "venv"
    subprocess.run([uv, "venv", "--quiet", "--python", sys.executable, str(venv)], check=True)
    python = venv / "bin" / "python"
    (wheel,) = wheels.glob("ctxops_code_query-*.whl")
    done = subprocess.run(
        [uv, "pip", "install", "--quiet", "--python", str(python), "--find-links", str(wheels), str(wheel)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    listed = subprocess.run(
        [
            str(python),
            "-c",
            "import importlib.metadata as m; print('\\n'.join(d.metadata['Name'] for d in m.distributions()))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    ours = {name.lower() for name in listed if name.lower().startswith("ctxops")}
    assert ours == CODE_LINE
    assert not ours & OTHER_LINES
    assert "lancedb" not in {n.lower() for n in listed}  # the vector extra stays optional

    repo = tmp_path / "order-service"
    subprocess.run(
        [str(python), str(ROOT / "examples" / "make_history.py"), str(repo)], check=True, capture_output=True
    )
    cq = venv / "bin" / "cq"
    done = subprocess.run(
        [str(cq), "def", "OrderStateMachine.transition", "--root", str(repo)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("api/orders/state_machine.py:")
    assert "building it in the background" in done.stderr
    done = subprocess.run(
        [str(cq), "grep", "def transition", "--root", str(repo)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and "api/orders/state_machine.py" in done.stdout
