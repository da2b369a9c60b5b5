"""Fixtures: the per-user data dir (ledger, context records, the memory trust record) kept in the test's temp
dir, for this process and the `ctx` processes it starts."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "ctxops-data"
    monkeypatch.setenv("CTXOPS_DATA_DIR", str(path))
    return path
