# ruff: noqa: PTH118
"""Embeddings computed once per text, kept on disk by content hash and embedder (issue 23, item 3).

Without it every put re-embedded every active entry of its kind (120-163 s a put at 200 memories with a
model embedder). The cache is one append-only file per embedder under ``.meta/.state/embeddings/`` (ignored
by git, 0600, refused through a symlink): fixed-size records of a 16-byte key (BLAKE2b of the embedder's
name and the text) and the vector as little-endian float32. A put embeds only its new text; a rebuild, a
search and the next process read the rest. A record torn by a crash (a short tail) is ignored and
overwritten by the next append; a key written twice (two writers racing) is harmless (the same vector).
"""

from __future__ import annotations

import hashlib
import os
import sys
from array import array
from collections.abc import Sequence
from typing import Any

from ctxops_contracts import Embedder
from ctxops_contracts.shared.confine import confined, ensure_dir, open_regular, read_regular
from ctxops_contracts.shared.lazylog import get_logger

log = get_logger(__name__)
CACHE_DIR = "embeddings"
KEY_BYTES = 16
BATCH = 256  # texts embedded per call (then appended)
MAX_BYTES = 1 << 30  # a cache larger than this is not read (1 GiB: ~1M vectors of 256 dimensions)


def _file_name(embedder_name: str) -> str:
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in embedder_name)[:80].strip(".") or "embedder"
    digest = hashlib.blake2b(embedder_name.encode("utf-8"), digest_size=4).hexdigest()
    return f"{safe}-{digest}.f32"


def _to_bytes(vector: Any) -> bytes:
    if hasattr(vector, "astype"):  # a numpy row
        return bytes(vector.astype("<f4").tobytes())
    out = array("f", (float(v) for v in vector))
    if sys.byteorder != "little":
        out.byteswap()
    return out.tobytes()


class EmbeddingCache:
    """Vectors of texts by ``embedder``, read from and appended to ``state_dir/embeddings/<embedder>.f32``."""

    def __init__(self, state_dir: str | os.PathLike[str], embedder: Embedder) -> None:
        self.embedder = embedder
        self.dims = int(getattr(embedder, "dimensions", 0) or 0)
        self.directory = os.path.join(os.fspath(state_dir), CACHE_DIR)
        self.path = confined(self.directory, _file_name(embedder.name))
        self._rows: dict[bytes, bytes] | None = None
        self._size = 0  # bytes of whole records read or appended (a torn tail beyond is overwritten)
        self.computed = 0  # texts embedded by this object (what the cache could not answer): tests, benches
        self.reused = 0

    def key(self, text: str) -> bytes:
        return hashlib.blake2b(f"{self.embedder.name}\x1f{text}".encode(), digest_size=KEY_BYTES).digest()

    def _load(self) -> dict[bytes, bytes]:
        if self._rows is not None:
            return self._rows
        rows: dict[bytes, bytes] = {}
        record = KEY_BYTES + 4 * self.dims
        try:
            data = read_regular(self.path, MAX_BYTES) if self.dims else b""
        except FileNotFoundError:
            data = b""
        except OSError as exc:  # unreadable or refused (a symlink): embed afresh, never fail the caller
            log.warning("embedding cache unreadable, recomputing: %s", exc)
            data = b""
        whole = len(data) - len(data) % record if record else 0
        view = memoryview(data)
        for start in range(0, whole, record):
            rows[bytes(view[start : start + KEY_BYTES])] = bytes(view[start + KEY_BYTES : start + record])
        self._rows, self._size = rows, whole
        return rows

    def _append(self, records: list[tuple[bytes, bytes]]) -> None:
        if not records:
            return
        try:
            ensure_dir(self.directory)
            fd = open_regular(self.path, os.O_WRONLY | os.O_CREAT)
            try:
                if os.fstat(fd).st_size != self._size:
                    # Another process appended, or a crash tore the tail: drop a torn tail, keep whole records.
                    size = os.fstat(fd).st_size
                    record = KEY_BYTES + 4 * self.dims
                    whole = size - size % record
                    if whole != size:
                        os.ftruncate(fd, whole)
                    self._size = whole
                os.lseek(fd, 0, os.SEEK_END)
                payload = b"".join(k + v for k, v in records)
                os.write(fd, payload)
                self._size += len(payload)
            finally:
                os.close(fd)
        except OSError as exc:  # best effort: the vectors are still returned, only not kept
            log.warning("embedding cache not written: %s", exc)

    def raw(self, texts: Sequence[str]) -> list[bytes]:
        """Each text's vector as float32 bytes: from the cache, or embedded now (all misses in one batch)."""
        rows = self._load()
        keys = [self.key(t) for t in texts]
        missing: dict[bytes, str] = {}
        for key, text in zip(keys, texts, strict=True):
            if key not in rows and key not in missing:
                missing[key] = text
        matrix = getattr(self.embedder, "matrix", None)
        pending = list(missing.items())
        for start in range(0, len(pending), BATCH):  # appended batch by batch: a killed rebuild keeps its progress
            batch = pending[start : start + BATCH]
            texts_now = [t for _, t in batch]
            fresh = matrix(texts_now) if callable(matrix) else self.embedder.embed(texts_now)
            new = [(k, _to_bytes(v)) for (k, _), v in zip(batch, fresh, strict=True)]
            new = [(k, v) for k, v in new if len(v) == 4 * self.dims]
            rows.update(new)
            self._append(new)
            self.computed += len(batch)
        self.reused += len(texts) - len(missing)
        return [rows.get(k, bytes(4 * self.dims)) for k in keys]

    def vectors(self, texts: Sequence[str]) -> list[list[float]]:
        """Each text's vector as a list of floats."""
        out = []
        for data in self.raw(texts):
            values = array("f")
            values.frombytes(data)
            if sys.byteorder != "little":
                values.byteswap()
            out.append(values.tolist())
        return out

    def matrix(self, texts: Sequence[str]) -> Any:
        """The texts' vectors as one float32 numpy array (numpy required: the model extras bring it)."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        return np.frombuffer(b"".join(self.raw(texts)), dtype="<f4").reshape(len(texts), self.dims)

    def compact(self, live: Sequence[str]) -> None:
        """Rewrite the file with only the vectors of ``live`` texts when most records are dead (rebuilds)."""
        rows = self._load()
        keep = {k for k in (self.key(t) for t in live) if k in rows}
        if len(rows) <= 2 * max(len(keep), 64):
            return
        from ctxops_contracts.shared.files import atomic_write

        payload = b"".join(k + rows[k] for k in sorted(keep))
        try:
            atomic_write(self.path, payload, fsync=False)
        except OSError as exc:
            log.warning("embedding cache not compacted: %s", exc)
            return
        self._rows, self._size = {k: rows[k] for k in keep}, len(payload)
