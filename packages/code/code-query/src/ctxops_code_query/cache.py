"""Result cache: answers keyed by (command, arguments, index generation), kept 30 minutes.

Lives in `.meta/index/cq-cache/`. The index generation (revision plus the index files' identity) is
part of every key, and a change of generation clears the directory, so any index change invalidates
every cached answer. Writes are atomic; a corrupt or unreadable entry is a miss, never an error.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
import time
from pathlib import Path
from typing import Any

from ctxops_contracts.shared.confine import ensure_dir, read_regular

TTL_S = 30 * 60
_GENERATION_FILE = "GENERATION"


class ResultCache:
    def __init__(self, directory: Path, generation: str, *, ttl_s: float = TTL_S) -> None:
        self.directory = directory
        self.generation = generation
        self.ttl_s = ttl_s
        self._checked = False

    def _ensure_generation(self) -> None:
        """Clear the cache when the index changed since it was filled."""
        if self._checked:
            return
        self._checked = True
        marker = self.directory / _GENERATION_FILE
        try:
            current = read_regular(str(marker), 4096).decode("utf-8", "replace")
        except OSError:
            current = None
        if current == self.generation:
            return
        if self.directory.is_symlink():
            self.directory.unlink()  # a link a repository planted: removed, never followed (rmtree refuses it)
        elif self.directory.exists():
            shutil.rmtree(self.directory, ignore_errors=True)
        try:
            ensure_dir(self.directory)  # 0700; a symlinked .meta or .meta/index is refused
            _atomic_write(marker, self.generation.encode())
        except OSError:
            pass  # a read-only checkout: the cache is an optimisation only

    def key(self, command: str, args: dict[str, Any]) -> str:
        blob = json.dumps([command, args, self.generation], sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:32]

    def get(self, command: str, args: dict[str, Any]) -> Any | None:
        self._ensure_generation()
        path = self.directory / f"{self.key(command, args)}.json"
        try:
            if time.time() - path.stat().st_mtime > self.ttl_s:
                path.unlink(missing_ok=True)
                return None
            entry = json.loads(read_regular(str(path), 64_000_000))  # never a FIFO or a symlink
        except (OSError, ValueError):
            return None
        if not isinstance(entry, dict) or entry.get("generation") != self.generation:
            return None
        return entry.get("value")

    def put(self, command: str, args: dict[str, Any], value: Any) -> None:
        self._ensure_generation()
        path = self.directory / f"{self.key(command, args)}.json"
        blob = json.dumps({"generation": self.generation, "value": value}, default=str).encode()
        with contextlib.suppress(OSError):  # a read-only checkout: the cache is an optimisation only
            _atomic_write(path, blob)


def _atomic_write(path: Path, data: bytes) -> None:
    from ctxops_contracts.shared.files import atomic_write

    atomic_write(path, data, fsync=False)  # a cache: losing it to a crash costs one recomputation
