"""The result cache and the suggestions for an empty answer."""

from __future__ import annotations

import os
import time
from pathlib import Path

from ctxops_code_query.cache import ResultCache
from ctxops_code_query.suggest import suggest


def test_cache_hit_miss_and_invalidation_by_generation(tmp_path: Path) -> None:
    d = tmp_path / "cache"
    c = ResultCache(d, "gen-1")
    assert c.get("def", {"name": "f"}) is None
    c.put("def", {"name": "f"}, {"text": "a.py:1  f()"})
    assert ResultCache(d, "gen-1").get("def", {"name": "f"}) == {"text": "a.py:1  f()"}
    assert ResultCache(d, "gen-1").get("def", {"name": "g"}) is None
    # Any index change (a new generation) clears every entry.
    assert ResultCache(d, "gen-2").get("def", {"name": "f"}) is None
    assert ResultCache(d, "gen-1").get("def", {"name": "f"}) is None


def test_cache_entries_expire_after_their_lifetime(tmp_path: Path) -> None:
    c = ResultCache(tmp_path, "g", ttl_s=60)
    c.put("refs", {"name": "x"}, [1])
    (entry,) = [p for p in tmp_path.glob("*.json")]
    old = time.time() - 120
    os.utime(entry, (old, old))
    assert c.get("refs", {"name": "x"}) is None


def test_corrupt_entries_are_misses(tmp_path: Path) -> None:
    c = ResultCache(tmp_path, "g")
    c.put("def", {"name": "f"}, 1)
    (entry,) = [p for p in tmp_path.glob("*.json")]
    entry.write_bytes(b"{not json")
    assert c.get("def", {"name": "f"}) is None


def test_suggestions_prefer_case_then_containment_then_fuzzy() -> None:
    names = ["transition", "Transition", "transition_state", "OrderState", "cancel_order", "create_order"]
    assert suggest("TRANSITION", names)[:2] == ["Transition", "transition"]
    assert suggest("cancel_ordr", names)[0] == "cancel_order"
    assert "OrderState" in suggest("orderstate", names)
    assert suggest("zzzz", names) == []


def test_cached_answers_are_tied_to_the_cq_version(example_repo: Path) -> None:
    # An upgraded cq must not serve answers another version rendered: the version is in the generation.
    from ctxops_code_query import __version__
    from ctxops_code_query.cache import _GENERATION_FILE
    from ctxops_code_query.repo import index_dir
    from ctxops_code_query.service import Request, execute

    first = execute(example_repo, Request(command="refs", params={"name": "verify_signature"}))
    marker = index_dir(example_repo) / "cq-cache" / _GENERATION_FILE
    assert marker.read_text(encoding="utf-8").startswith(f"cq {__version__}|")
    again = execute(example_repo, Request(command="refs", params={"name": "verify_signature"}))
    assert again.cached and again.rendered.text == first.rendered.text
