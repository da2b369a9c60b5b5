"""The JSONL truth's files, and whether the DuckDB ledger already holds every line of them.

Standard library only: a re-run with nothing new asks :func:`up_to_date` without importing DuckDB, msgspec
or the record schema (see ``sources`` and ``ingest``).
"""

from __future__ import annotations

import json
from pathlib import Path

from .paths import data_dir

USAGE_DIR = "usage"
LEDGER_FILE = "ledger.duckdb"
LOADED_STATE = "state/loaded.json"


def usage_dir(root: Path | None = None) -> Path:
    return (root or data_dir()) / USAGE_DIR


def record_files(root: Path | None = None) -> list[Path]:
    """Every JSONL file of records, oldest name first."""
    directory = usage_dir(root)
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.iterdir() if p.suffix == ".jsonl" and p.is_file())


def fingerprint(root: Path) -> dict[str, list[int]]:
    """(inode, size) of every record file: what ``loaded.json`` holds once all of it is in the ledger."""
    out = {}
    for path in record_files(root):
        st = path.stat()
        out[str(path)] = [st.st_ino, st.st_size]
    return out


def up_to_date(root: Path) -> bool:
    """Whether the ledger file exists and holds every line of every record file (nothing to load)."""
    state_file = root / LOADED_STATE
    if not (root / LEDGER_FILE).exists() or not state_file.exists():
        return False
    try:
        saved = json.loads(state_file.read_text())
    except (OSError, ValueError):
        return False
    return bool(saved == fingerprint(root))


def remember_loaded(root: Path, loaded: dict[str, list[int]]) -> None:
    """Record (inode, bytes loaded) per file: equal to (inode, size) on disk means nothing is pending."""
    state_file = root / LOADED_STATE
    from ctxops_contracts.shared.files import atomic_write

    atomic_write(state_file, json.dumps(loaded), fsync=False)  # 0600 in a 0700 directory
