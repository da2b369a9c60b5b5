"""Issue 23, item 3: embeddings cached by content hash (a put embeds only its new text), BM25 fused with
vectors (reciprocal-rank fusion), and fold thresholds calibrated per embedder. A deterministic embedder stands
in for the model here; the model's own tests are skipped unless the ``embed`` extra is installed."""

from __future__ import annotations

import stat
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

import pytest
from ctxops_memory_store import MemoryStore, new_entry
from ctxops_memory_store.config import MemoryConfig, load_config
from ctxops_memory_store.embed_cache import CACHE_DIR, EmbeddingCache
from ctxops_memory_store.extras import wordllama_files
from ctxops_memory_store.fold_calibration import DUPLICATES_EN, DUPLICATES_ZH, LOOK_ALIKES, NEAR_MISSES, calibrate
from ctxops_memory_store.hybrid import fuse, hybrid_rank
from ctxops_memory_store.similarity import FOLD_THRESHOLDS, fold_threshold, polarity
from ctxops_memory_store.vector import HashingEmbedder, embedder_from_name

EMBED_MISSING = wordllama_files() is None
needs_embed = pytest.mark.skipif(
    EMBED_MISSING, reason="needs the embed extra: pip install 'ctxops-memory-store[embed]'"
)


class Counting:
    """The hashing embedder as a non-lexical model that counts what it embeds; synonyms map to one word, so
    its vectors see a meaning BM25 does not ("puppy" is "dog")."""

    SYNONYMS: ClassVar[dict[str, str]] = {"puppy": "dog", "hound": "dog", "relocated": "moved", "automobile": "car"}

    def __init__(self, name: str = "counting-test-64") -> None:
        self._inner = HashingEmbedder(64)
        self.name = name
        self.dimensions = 64
        self.lexical = False
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.texts += list(texts)
        mapped = [" ".join(self.SYNONYMS.get(w, w) for w in t.lower().split()) for t in texts]
        return self._inner.embed(mapped)


def _store(repo: Path, embedder: Counting | None = None) -> MemoryStore:
    store = MemoryStore(repo, MemoryConfig(vector_enabled=True, embedder="hashing"))
    store.embedder = embedder or Counting()
    return store


def test_a_put_embeds_only_its_new_text(repo: Path) -> None:
    embedder = Counting()
    store = _store(repo, embedder)
    for n in range(6):
        store.put(new_entry(kind="fact", title=f"Fact number {n} about the {['api', 'db', 'ui'][n % 3]} layer"))
    assert len(embedder.texts) == 6  # one text per put, never the store again
    assert len(set(embedder.texts)) == 6


def test_the_cache_outlives_the_process_and_is_private(repo: Path) -> None:
    store = _store(repo)
    for n in range(4):
        store.put(new_entry(kind="decision", title=f"Decision {n}: the queue is drained nightly by worker {n}"))
    later = Counting()
    again = _store(repo, later)
    assert again.warm_vectors(lance=False) == 0 and later.texts == []  # a rebuild in another process
    assert again.vector_search("queue drained nightly")  # and search reads it
    folder = repo / ".meta" / ".state" / CACHE_DIR
    (path,) = list(folder.iterdir())
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.stat().st_size == 4 * (16 + 4 * 64)


def test_another_embedder_has_its_own_vectors(repo: Path) -> None:
    one, two = Counting("counting-a"), Counting("counting-b")
    cache_a = EmbeddingCache(repo / ".meta" / ".state", one)
    cache_b = EmbeddingCache(repo / ".meta" / ".state", two)
    cache_a.raw(["same text"])
    cache_b.raw(["same text"])
    assert one.texts == ["same text"] and two.texts == ["same text"]
    assert cache_a.path != cache_b.path


def test_a_torn_record_is_ignored_and_overwritten(repo: Path) -> None:
    embedder = Counting()
    cache = EmbeddingCache(repo / ".meta" / ".state", embedder)
    cache.raw(["alpha", "beta"])
    with open(cache.path, "ab") as handle:
        handle.write(b"\x01" * 40)  # a writer killed mid-record
    fresh = EmbeddingCache(repo / ".meta" / ".state", embedder)
    assert fresh.raw(["alpha"]) == cache.raw(["alpha"]) and fresh.computed == 0
    fresh.raw(["gamma"])
    assert Path(cache.path).stat().st_size == 3 * (16 + 4 * 64)
    third = EmbeddingCache(repo / ".meta" / ".state", embedder)
    third.raw(["alpha", "beta", "gamma"])
    assert third.computed == 0


def test_a_symlinked_cache_is_never_followed(repo: Path, tmp_path: Path) -> None:
    embedder = Counting()
    cache = EmbeddingCache(repo / ".meta" / ".state", embedder)
    Path(cache.directory).mkdir(parents=True, exist_ok=True)
    outside = tmp_path / "outside.bin"
    outside.write_bytes(b"")
    Path(cache.path).symlink_to(outside)
    vectors = cache.vectors(["alpha"])
    assert len(vectors[0]) == 64 and outside.read_bytes() == b""  # computed, nothing written through the link


def test_rank_fusion_adds_weighted_reciprocal_ranks() -> None:
    fused = dict(fuse([(["a", "b"], 1.0), (["b", "c"], 0.5)], k=10))
    assert fused["a"] == pytest.approx(1 / 11)
    assert fused["b"] == pytest.approx(1 / 12 + 0.5 / 11)
    assert fused["c"] == pytest.approx(0.5 / 12)
    ranked = hybrid_rank([("a", 9.0), ("b", 3.0)], [("c", 0.9), ("a", 0.8)], keep=lambda i: i != "b")
    assert [i for i, _ in ranked] == ["a", "c"]


def test_hybrid_search_finds_a_paraphrase_and_keeps_the_keyword_hit_first(repo: Path) -> None:
    store = _store(repo)
    store.put(new_entry(kind="fact", title="Maya adopted a dog named Biscuit last weekend"))
    store.put(new_entry(kind="fact", title="The deploy freeze starts on Friday at noon"))
    store.put(new_entry(kind="fact", title="Jonas moved to Porto for a new job"))
    for n in range(12):
        store.put(new_entry(kind="fact", title=f"Chit-chat number {n} about the weather and the game"))
    found = store.find("which puppy did Maya get", limit=3)
    assert found.engine == "hybrid"
    assert "Biscuit" in found.hits[0][0].title  # "puppy" is nowhere in the text: the vectors bring it
    keyword = store.find("deploy freeze Friday", limit=3)
    assert "freeze" in keyword.hits[0][0].title
    bm25 = MemoryStore(repo, MemoryConfig(vector_enabled=False)).find("which puppy did Maya get", limit=3)
    assert bm25.engine != "hybrid"


def test_a_lexical_embedder_leaves_search_to_bm25(repo: Path) -> None:
    store = MemoryStore(repo, MemoryConfig(vector_enabled=True, embedder="hashing"))
    store.put(new_entry(kind="fact", title="The deploy freeze starts on Friday"))
    assert not store.hybrid_on() and store.find("deploy freeze").engine != "hybrid"


def test_vectors_default_off_without_a_model(repo: Path) -> None:
    config = load_config(repo)
    assert config.embedder == "auto"
    assert config.vector_enabled == (not EMBED_MISSING)
    (repo / ".meta").mkdir(exist_ok=True)
    (repo / ".meta" / "config.toml").write_text("[memory.vector]\nenabled = false\n")
    assert not load_config(repo).vector_enabled


def test_hashing_threshold_is_its_calibration() -> None:
    result = calibrate(HashingEmbedder())
    assert result.threshold == pytest.approx(FOLD_THRESHOLDS["memory-hashing-v2"], abs=1e-3)
    assert fold_threshold("memory-hashing-v2-256") == FOLD_THRESHOLDS["memory-hashing-v2"]
    assert fold_threshold("something-new") >= 0.9  # an unknown embedder folds cautiously


def test_polarity_tells_a_rule_from_its_negation() -> None:
    assert polarity("Never store session tokens in the database")
    assert not polarity("Store session tokens in the database")
    assert polarity("部署前绝对不能清空缓存") and not polarity("部署前必须清空缓存")


def _folded(repo: Path, pairs: list[tuple[str, str]], embedder: object | None) -> int:
    folded = 0
    for n, (first, second) in enumerate(pairs):
        root = repo / f"pair{n}"
        (root / ".git").mkdir(parents=True)
        store = MemoryStore(root, MemoryConfig(vector_enabled=embedder is not None, embedder="hashing"))
        if embedder is not None:
            store.embedder = embedder
        store.put(new_entry(kind="fact", title=first))
        folded += bool(store.put(new_entry(kind="fact", title=second)).folded)
    return folded


@pytest.mark.parametrize("embedder_name", ["hashing", pytest.param("wordllama", marks=needs_embed)])
def test_folding_is_calibrated_per_embedder(tmp_path: Path, embedder_name: str) -> None:
    embedder = embedder_from_name(embedder_name)
    assert _folded(tmp_path / "look", LOOK_ALIKES, embedder) == 0
    assert _folded(tmp_path / "miss", NEAR_MISSES, embedder) == 0
    en, zh = _folded(tmp_path / "en", DUPLICATES_EN, embedder), _folded(tmp_path / "zh", DUPLICATES_ZH, embedder)
    if embedder_name == "hashing":
        assert (en, zh) == (6, 8)  # a lexical embedder: the words alone do not carry every rewording
    else:
        assert en >= 8 and zh >= 8


def test_the_inject_path_imports_no_embedder_with_vectors_off(repo: Path) -> None:
    code = (
        "import sys; from pathlib import Path; from ctxops_memory_store.config import load_config;"
        f"c = load_config(Path({str(repo)!r})); print(c.vector_enabled, 'numpy' in sys.modules,"
        " 'tokenizers' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[1:] == ["False", "False"]
