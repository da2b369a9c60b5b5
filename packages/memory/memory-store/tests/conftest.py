"""Fixtures: a throwaway repository with a memory store."""

from __future__ import annotations

from pathlib import Path

import pytest
from ctxops_memory_store.store import MemoryStore


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.fixture
def store(repo: Path) -> MemoryStore:
    return MemoryStore(repo)
