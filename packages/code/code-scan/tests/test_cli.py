"""`python -m ctxops_code_scan` shows what the scanner sees."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctxops_code_scan", *args], capture_output=True, text=True, check=False
    )


def test_outline_refs_and_discover(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text("class A:\n    def f(self, x: int) -> int:\n        return g(x)\n")
    (tmp_path / "blob.py").write_bytes(b"\x00\x01")
    out = _run("outline", str(src))
    assert out.returncode == 0
    assert out.stdout.splitlines()[1:] == ["      1  class     A", "      2    method    f(self, x: int) -> int"]
    refs = _run("refs", str(src))
    assert "call    g  in A.f()." in refs.stdout
    as_json = json.loads(_run("outline", "--json", str(src)).stdout)
    assert [s["id"] for s in as_json["symbols"]] == ["python m.py A#", "python m.py A.f()."]
    disc = _run("discover", str(tmp_path))
    assert disc.stdout.splitlines()[0] == "2 files to scan: python 2"
    assert _run("outline", str(tmp_path / "blob.py")).stdout.strip().endswith("skipped (binary)")
    assert _run("outline", str(tmp_path / "missing.py")).returncode == 2
