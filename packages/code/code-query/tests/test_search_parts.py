"""Words, BM25 and the default offline embedder behind `cq search`."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from ctxops_code_query.embedders import HashingEmbedder, load_embedder
from ctxops_code_query.errors import UsageError
from ctxops_code_query.textsearch import BM25, stem, words


def test_identifiers_split_into_stemmed_words() -> None:
    assert words("parseHTTPHeaders") == ["pars", "http", "header"]
    assert words("read_config_file") == ["read", "config"]  # 'file' is a stopword in questions
    assert stem("parsing") == stem("parses") == stem("parse") == stem("parsed") == "pars"
    assert stem("process") == stem("processes") == "process"
    assert stem("headers") == "header"


def test_bm25_ranks_the_matching_document_first() -> None:
    docs = [words("open the socket and connect"), words("parse http headers from lines"), words("sort a list")]
    top = BM25(docs).top(words("parsing header lines"), 2)
    assert top[0][0] == 1
    assert BM25(docs).top(words("nothing matches here zz"), 3) == []


def test_hashing_embedder_is_deterministic_normalised_and_lexically_semantic() -> None:
    e = HashingEmbedder()
    a, b, c = e.embed(["def parse_headers(lines)", "parsing header lines", "open a tcp socket"])
    assert a == e.embed(["def parse_headers(lines)"])[0]
    assert math.isclose(sum(x * x for x in a), 1.0, rel_tol=1e-9)
    sim = lambda u, v: sum(x * y for x, y in zip(u, v, strict=True))  # noqa: E731
    assert sim(a, b) > sim(a, c)


def test_embedder_specs(monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_embedder("hashing:64").dimensions == 64
    monkeypatch.setenv("CQ_EMBEDDER", "hashing:32")
    assert load_embedder().dimensions == 32
    with pytest.raises(UsageError):
        load_embedder("nonsense")
    with pytest.raises(UsageError):
        load_embedder("json:dumps")


def test_vector_store_embeds_only_new_or_changed_chunks(tmp_path: Path) -> None:
    pytest.importorskip("lancedb")
    from ctxops_code_query.vectors import Chunk, VectorStore

    store = VectorStore(tmp_path / "v", HashingEmbedder(64))
    chunks = [
        Chunk(
            id="a", path="x.py", line=1, end_line=3, name="parse_headers", kind="function", text="parse http headers"
        ),
        Chunk(id="b", path="x.py", line=5, end_line=9, name="open_socket", kind="function", text="open a tcp socket"),
        Chunk(id="c", path="y.py", line=1, end_line=2, name="sort_items", kind="function", text="sort the items"),
    ]
    assert store.ensure(chunks) == 3
    assert store.ensure(chunks) == 0
    changed = [chunks[0], Chunk(**{**chunks[1].__dict__, "text": "connect a socket"})]
    assert store.ensure(changed) == 1
    assert store.count() == 3
    best = store.search("header parsing", paths=["x.py"], k=2)
    assert best[0][0] == "a" and {i for i, _ in best} <= {"a", "b"}


def test_auto_uses_the_local_model_when_installed_and_hashing_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    from ctxops_code_query.embedders import local_model

    monkeypatch.delenv("CQ_EMBEDDER", raising=False)
    chosen = load_embedder()
    if local_model() is None:  # the default install: no model, the named fallback
        assert chosen.name == "cq-hashing-v2-384"
    else:  # the vector extra with the packaged MiniLM: a real model, 384 dimensions
        assert chosen.name == "st:all-MiniLM-L6-v2-128" and chosen.dimensions == 384


def test_british_spellings_meet_american_ones() -> None:
    assert stem("colour") == stem("color") and stem("colours") == stem("colors")
    assert stem("behaviour") == stem("behavior")
    assert stem("initialise") == stem("initialize") and stem("normalised") == stem("normalized")
    assert stem("otherwise") == "otherwis" and stem("hour") == "hour" and stem("raise") == "rais"


def test_vector_store_nearest_paths_searches_the_whole_table(tmp_path: Path) -> None:
    pytest.importorskip("lancedb")
    from ctxops_code_query.vectors import Chunk, VectorStore

    store = VectorStore(tmp_path / "v", HashingEmbedder(64))
    assert store.nearest_paths("anything") == []
    store.ensure(
        [
            Chunk(id="a", path="x.py", line=1, end_line=2, name="parse_headers", kind="function", text="parse headers"),
            Chunk(id="b", path="y.py", line=1, end_line=2, name="open_socket", kind="function", text="open a socket"),
            Chunk(id="c", path="y.py", line=4, end_line=5, name="close_socket", kind="function", text="close socket"),
        ]
    )
    assert store.nearest_paths("socket", k=1) == ["y.py"]
    assert store.nearest_paths("header parsing", k=2)[0] == "x.py"
    assert len(store.nearest_paths("socket", k=5)) == 2  # each file once
