"""The `vector` extra: a LanceDB table of function-level chunk embeddings under `.meta/index/`.

Imported only on vector paths (LanceDB costs ~2 s to import). The table is a cache keyed by chunk id
and content hash: a query embeds only the chunks of its candidate files that are new or changed, so
no up-front embedding pass is needed (``cq index --vectors`` does one for whole-repository vector
search). One table per embedder name, so vectors of different models are never compared.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxops_contracts import Embedder

from .errors import EnvironmentProblem

EMBED_BATCH = 256


@dataclass(frozen=True)
class Chunk:
    """A function-level piece of code: a symbol's lines, with the words that describe it."""

    id: str
    path: str
    line: int
    end_line: int
    name: str
    kind: str
    text: str

    @property
    def digest(self) -> str:
        return hashlib.blake2b(self.text.encode(), digest_size=12).hexdigest()


def vectors_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("lancedb") is not None


def _sql_str(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


class VectorStore:
    def __init__(self, directory: Path, embedder: Embedder) -> None:
        try:
            import lancedb
        except ImportError as exc:
            raise EnvironmentProblem(
                "vector search needs the `vector` extra",
                fix="pip install 'ctxops-code-query[vector]' (or search without --vector)",
            ) from exc
        from ctxops_contracts.shared.confine import ensure_dir

        ensure_dir(directory)  # 0700; a symlinked .meta or .meta/index is refused
        self.embedder = embedder
        self._db: Any = lancedb.connect(str(directory))
        self.table_name = "chunks_" + re.sub(r"[^A-Za-z0-9_]", "_", embedder.name)
        self._table: Any = None

    def _open(self) -> Any:
        if self._table is None and self.table_name in self._db.list_tables().tables:
            self._table = self._db.open_table(self.table_name)
        return self._table

    def count(self) -> int:
        table = self._open()
        return 0 if table is None else int(table.count_rows())

    def _known(self, paths: Sequence[str]) -> dict[str, str]:
        table = self._open()
        if table is None or not paths:
            return {}
        where = "path IN (" + ", ".join(_sql_str(p) for p in sorted(set(paths))) + ")"
        rows = table.search().where(where).select(["id", "digest"]).limit(None).to_arrow()
        return dict(zip(rows.column("id").to_pylist(), rows.column("digest").to_pylist(), strict=True))

    def ensure(self, chunks: Sequence[Chunk]) -> int:
        """Embed and store the chunks that are new or changed; drop rows of these files that are gone.

        Returns how many chunks were embedded.
        """
        import pyarrow as pa

        if not chunks:
            return 0
        paths = sorted({c.path for c in chunks})
        known = self._known(paths)
        wanted = {c.id: c for c in chunks}
        todo = [c for c in chunks if known.get(c.id) != c.digest]
        stale = [i for i in known if i not in wanted or known[i] != wanted[i].digest]
        table = self._open()
        if table is not None and stale:
            for start in range(0, len(stale), 500):
                ids = ", ".join(_sql_str(i) for i in stale[start : start + 500])
                table.delete(f"id IN ({ids})")
        for start in range(0, len(todo), EMBED_BATCH):
            batch = todo[start : start + EMBED_BATCH]
            vectors = self.embedder.embed([c.text for c in batch])
            data = pa.table(
                {
                    "id": [c.id for c in batch],
                    "path": [c.path for c in batch],
                    "line": [c.line for c in batch],
                    "digest": [c.digest for c in batch],
                    "vector": pa.array(vectors, type=pa.list_(pa.float32(), self.embedder.dimensions)),
                }
            )
            if table is None:
                table = self._db.create_table(self.table_name, data=data, mode="overwrite")
                self._table = table
            else:
                table.add(data)
        return len(todo)

    def nearest_paths(self, text: str, *, k: int = 3) -> list[str]:
        """The files of the chunks nearest to ``text`` in the whole table, best first, at most ``k``."""
        table = self._open()
        if table is None:
            return []
        (vector,) = self.embedder.embed([text])
        rows = table.search(vector).distance_type("cosine").select(["path", "_distance"]).limit(4 * k).to_list()
        return list(dict.fromkeys(r["path"] for r in rows))[:k]

    def search(self, text: str, *, paths: Sequence[str] | None = None, k: int = 10) -> list[tuple[str, float]]:
        """``(chunk id, cosine similarity)`` best first, optionally only within ``paths``."""
        table = self._open()
        if table is None:
            return []
        (vector,) = self.embedder.embed([text])
        query = table.search(vector).distance_type("cosine")
        if paths:
            query = query.where("path IN (" + ", ".join(_sql_str(p) for p in sorted(set(paths))) + ")", prefilter=True)
        rows = query.select(["id", "_distance"]).limit(k).to_list()
        return [(r["id"], 1.0 - float(r["_distance"])) for r in rows]
