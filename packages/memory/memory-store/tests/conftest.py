"""Fixtures: a throwaway repository with a memory store."""

from __future__ import annotations

from pathlib import Path

import pytest
from ctxops_memory_store.store import MemoryStore


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The per-user data dir (the trust record every store write adds to) inside the test's temp dir."""
    path = tmp_path / "data"
    monkeypatch.setenv("CTXOPS_DATA_DIR", str(path))
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.fixture
def store(repo: Path) -> MemoryStore:
    return MemoryStore(repo)
