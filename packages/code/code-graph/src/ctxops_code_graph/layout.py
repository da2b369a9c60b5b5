"""Where the index lives under a repository: `.meta/index/`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class IndexLayout:
    root: Path

    @property
    def index_dir(self) -> Path:
        return self.root / ".meta" / "index"

    @property
    def duckdb_path(self) -> Path:
        return self.index_dir / "code.duckdb"

    @property
    def lock_path(self) -> Path:
        return self.index_dir / "code.lock"

    @property
    def pointer_path(self) -> Path:
        """A one-line file naming the current lookup snapshot (replaced atomically on full builds)."""
        return self.index_dir / "code-lookup.current"

    def lookup_path(self, generation: int) -> Path:
        return self.index_dir / f"code-lookup.{generation}.sqlite"

    def current_lookup(self) -> Path | None:
        try:
            name = self.pointer_path.read_text("utf-8").strip()
        except OSError:
            return None
        return self.index_dir / name if name else None

    @property
    def update_lock_path(self) -> Path:
        """Held by a detached update process for its whole life: a queued or running automatic update."""
        return self.index_dir / "code-update.lock"

    @property
    def update_report_path(self) -> Path:
        """The last detached update's report (JSON), or its error."""
        return self.index_dir / "code-update.json"
