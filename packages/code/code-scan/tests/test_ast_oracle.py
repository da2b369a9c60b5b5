"""Python definitions agree with Python's own `ast` on a sample of the standard library (>= 99%)."""

from __future__ import annotations

import sysconfig
from collections import Counter
from pathlib import Path

import pytest
from ast_oracle import compare, python_definitions
from ctxops_code_scan.records import ScanResult
from ctxops_code_scan.scan import scan_file

STDLIB = Path(sysconfig.get_paths()["stdlib"])


SAMPLE = 60


def _sample(size: int = SAMPLE) -> list[Path]:
    """``size`` files spread evenly over whichever standard library this interpreter has (pyenv's ships its
    test suite, ~2,000 files; Debian's python3.11 does not, ~900): the same number of files on each."""
    files = sorted(p for p in STDLIB.rglob("*.py") if "site-packages" not in p.parts)
    return files[:: max(1, len(files) // size)][:size]


def test_definitions_match_ast_on_a_stdlib_sample() -> None:
    sample = _sample()
    assert len(sample) == SAMPLE, f"{STDLIB} holds fewer than {SAMPLE} .py files"
    tp = expected_total = found_total = 0
    misses: list[str] = []
    for path in sample:
        data = path.read_bytes()
        expected = python_definitions(data)
        if expected is None:
            continue
        out = scan_file(path.parent, path.name, "python")
        if not isinstance(out, ScanResult):
            continue  # skipped by rule (generated, too large): not the extractor's business
        found = Counter((s.name, s.line) for s in out.symbols)
        a, b, c = compare(expected, found)
        tp, expected_total, found_total = tp + a, expected_total + b, found_total + c
        misses += [f"{path.name}:{line} {name}" for (name, line) in (expected - found)][:3]
    recall, precision = tp / expected_total, tp / found_total
    assert recall >= 0.99, (recall, misses[:20])
    assert precision >= 0.99, precision


@pytest.mark.parametrize(
    "source",
    [
        "a, [b, c] = 1, [2, 3]\n[d, e] = 4, 5\n",
        "if True:\n    X = 1\nelse:\n    X = 2\n",
        "class K:\n    if True:\n        f = 1\n    def m(self):\n        local = 2\n",
        "async def f():\n    pass\n@dec\nclass C:\n    y: int\n",
        "x = y = 0\nfor i in range(3):\n    Z = i\ntry:\n    W = 1\nexcept E:\n    W = 2\n",
    ],
)
def test_oracle_agrees_on_tricky_forms(source: str, tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(source)
    out = scan_file(tmp_path, "m.py", "python")
    assert isinstance(out, ScanResult)
    assert Counter((s.name, s.line) for s in out.symbols) == python_definitions(source.encode())
