"""DuckDB's engine, loaded without the ``duckdb`` package's Python layer where that is possible.

``import duckdb`` (2.x) loads the compiled engine (``_duckdb``) and then its relational API, expression
classes, Arrow sources and version lookup (``importlib.metadata``, ``email``, ``zipfile``, ...): about four
times the engine's own import time, on every report and ingest. The ledger uses only ``connect``, its
connections' ``execute``/``executemany``/``fetch*`` and the exception classes, which the engine module
holds itself (the package re-exports them, so they are the same objects). When the engine module is not
where 2.x puts it, the package is imported as usual.
"""

from __future__ import annotations

from typing import Any


def duckdb_module() -> Any:
    """The module with ``connect``, ``Error`` and ``IOException``: ``_duckdb`` when it has them, else ``duckdb``."""
    import importlib

    try:
        engine = importlib.import_module("_duckdb")
    except ImportError:  # pragma: no cover - a DuckDB without a top-level engine module
        return importlib.import_module("duckdb")
    if not all(hasattr(engine, name) for name in ("connect", "Error", "IOException")):  # pragma: no cover
        return importlib.import_module("duckdb")
    return engine
