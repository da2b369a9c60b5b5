"""Where the index lives under a repository: `.meta/index/`."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ctxops_contracts.shared.confine import ensure_dir, is_regular, read_regular
from ctxops_contracts.shared.layout import ensure_meta


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

    def ensure_index_dir(self) -> Path:
        """``.meta/index`` created (0700) and checked: a symlinked ``.meta`` or ``.meta/index`` raises
        ``UnsafePath`` (a repository decides what ``.meta`` holds)."""
        ensure_meta(str(self.root))
        ensure_dir(self.index_dir)
        return self.index_dir

    def current_lookup(self) -> Path | None:
        """The lookup snapshot the pointer names: only a ``code-lookup.<n>.sqlite`` regular file in the
        index directory (the pointer is a file a repository could have written)."""
        try:
            name = read_regular(str(self.pointer_path), 4096).decode("utf-8").strip()
        except (OSError, UnicodeDecodeError):
            return None
        middle = name[len("code-lookup.") : -len(".sqlite")]
        if not (name.startswith("code-lookup.") and name.endswith(".sqlite") and middle.isascii() and middle.isdigit()):
            return None
        path = self.index_dir / name
        return path if is_regular(str(path)) or not os.path.lexists(path) else None

    @property
    def update_lock_path(self) -> Path:
        """Held by a detached update process for its whole life: a queued or running automatic update."""
        return self.index_dir / "code-update.lock"

    @property
    def update_report_path(self) -> Path:
        """The last detached update's report (JSON), or its error."""
        return self.index_dir / "code-update.json"
