"""The parallel scan works under every multiprocessing start method (spawn is the default on macOS and
Windows): the workers need nothing inherited from the parent."""

from __future__ import annotations

from pathlib import Path

import pytest
from ctxops_code_scan.records import ScanResult
from ctxops_code_scan.scan import PARALLEL_THRESHOLD, scan_files


def _tree(root: Path, n: int) -> list[tuple[str, str]]:
    items = []
    for i in range(n):
        rel = f"pkg{i % 7}/mod_{i}.py"
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(
            f"def f{i}(x):\n    return g{i}(x)\n\n\nclass K{i}:\n    def m(self):\n        f{i}(1)\n"
        )
        items.append((rel, "python"))
    return items


def _names(outcomes: object) -> set[tuple[str, str]]:
    return {(o.file.path, s.qualname) for o in outcomes if isinstance(o, ScanResult) for s in o.symbols}  # type: ignore[attr-defined]


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_parallel_scan_under_a_start_method_matches_the_serial_scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, method: str
) -> None:
    items = _tree(tmp_path, PARALLEL_THRESHOLD + 40)
    serial = _names(scan_files(tmp_path, items, workers=1))
    monkeypatch.setenv("CTXOPS_START_METHOD", method)
    parallel = _names(scan_files(tmp_path, items, workers=2))
    assert parallel == serial and len(serial) == 3 * len(items)
