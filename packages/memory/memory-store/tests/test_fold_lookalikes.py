# Full-width Chinese punctuation is the data here.
"""Issue 23, item 3: folding never merges two facts that differ in a number, a name or a path (a labelled
set of look-alikes in English and Chinese), and still folds a copy with a few words added."""

from __future__ import annotations

from pathlib import Path

import pytest
from ctxops_memory_store import MemoryStore, new_entry
from ctxops_memory_store.fold_calibration import LOOK_ALIKES
from ctxops_memory_store.similarity import anchors

# The labelled set lives in the package (fold_calibration), where the per-embedder calibration reads it.


@pytest.mark.parametrize(("first", "second"), LOOK_ALIKES)
def test_look_alikes_never_fold(repo: Path, first: str, second: str) -> None:
    store = MemoryStore(repo)
    one = store.put(new_entry(kind="fact", title=first)).entry
    two = store.put(new_entry(kind="fact", title=second))
    assert two.folded == [] and store.resolve(one.id).status == "active", (first, second)
    assert anchors(first) != anchors(second)


def test_a_copy_with_words_added_still_folds(repo: Path) -> None:
    store = MemoryStore(repo)
    one = store.put(new_entry(kind="fact", title="Service A must answer within 100 ms under normal load")).entry
    two = store.put(new_entry(kind="fact", title="Service A must answer within 100 ms under normal load, always"))
    assert two.folded == [one.id]


def test_the_set_is_one_vectors_alone_would_fold() -> None:
    from ctxops_memory_store.fold_calibration import _pair_cosines
    from ctxops_memory_store.similarity import fold_threshold, jaccard, shingles
    from ctxops_memory_store.vector import HashingEmbedder

    # Without the anchors rule nearly all of these pairs fold by cosine (the rule is what keeps them apart),
    # and their shingles overlap as a reworded copy's do.
    embedder = HashingEmbedder()
    cosines = _pair_cosines(embedder, LOOK_ALIKES)
    assert sum(c >= fold_threshold(embedder.name) for c in cosines) >= 14
    assert sum(jaccard(shingles(a), shingles(b)) >= 0.3 for a, b in LOOK_ALIKES) >= 10
