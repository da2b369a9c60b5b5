"""`ctx demo` runs end to end on the bundled example, as a user runs it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from workspace_facts import ROOT

pytestmark = pytest.mark.slow


def test_demo_runs_every_step() -> None:
    from ctxops_core.demo import STEPS

    done = subprocess.run(
        [sys.executable, "-m", "ctxops_core", "demo"], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    for name, _ in STEPS:
        assert f"== {name} (" in done.stdout
    assert "== done in" in done.stdout
    assert "failed" not in done.stdout


def test_example_history_is_reproducible(tmp_path) -> None:
    heads = []
    for name in ("a", "b"):
        out = subprocess.run(
            [sys.executable, str(ROOT / "examples" / "make_history.py"), str(tmp_path / name)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        heads.append(out.strip().splitlines()[-1])
    assert heads[0] == heads[1]


def test_example_history_refuses_a_non_empty_destination(tmp_path) -> None:
    (tmp_path / "keep.txt").write_text("mine", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "make_history.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert (tmp_path / "keep.txt").read_text(encoding="utf-8") == "mine"
