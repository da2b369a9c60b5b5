"""An isolated ledger directory for every test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty ledger directory, also the default (so nothing touches the real user data dir)."""
    root = tmp_path / "data"
    root.mkdir()
    monkeypatch.setenv("CTXOPS_DATA_DIR", str(root))
    monkeypatch.setenv("CTXOPS_CONFIG", str(tmp_path / "user-config.toml"))
    monkeypatch.setenv("CTXOPS_STATUSLINE_NO_REFRESH", "1")
    yield root
