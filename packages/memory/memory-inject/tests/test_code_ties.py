"""Injection and memories tied to code (issue 23, item 6): a real git repository, real renames and edits."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from ctxops_memory_inject import build
from ctxops_memory_inject.build import build_injection
from ctxops_memory_store import MemoryStore, new_entry, snapshot

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e"}
RULE = "Orders are cancelled only through cancel_order in shop/orders.py, never by setting the state column"


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env={**os.environ, **GIT_ENV})


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    root = tmp_path / "shop-repo"
    (root / "shop").mkdir(parents=True)
    (root / "shop" / "orders.py").write_text("def cancel_order(order):\n    order.state = 'cancelled'\n")
    (root / "shop" / "cart.py").write_text("def total(cart):\n    return sum(cart)\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "shop")
    return root


def fill(root: Path, n: int = 30) -> tuple[MemoryStore, str]:
    """A store of ``n`` unrelated facts about orders and one fact tied to shop/orders.py."""
    store = MemoryStore(root)
    for i in range(n):
        store.put(new_entry(kind="fact", title=f"Order export job {i} runs nightly at {i % 24}:00 for region {i}"))
    tied = store.put(new_entry(kind="fact", title=RULE)).entry
    assert [t.path for t in tied.ties] == ["shop/orders.py"]
    return store, tied.id


def line_of(text: str, entry_id: str) -> str:
    return next((line for line in text.splitlines() if entry_id[-8:] in line), "")


def test_a_memory_tied_to_a_file_in_play_is_injected_without_a_word_in_common(shop: Path) -> None:
    _, tied = fill(shop)
    prompt = "the export job is slow"
    cold = build_injection(shop, prompt, budget=300)
    warm = build_injection(shop, prompt, budget=300, files_in_play=["shop/orders.py"])
    assert tied not in cold.memory_ids
    assert tied in warm.memory_ids
    assert warm.layers["task"][0] == tied  # first of the task memories: it speaks of the file in play


def test_a_prompt_that_names_the_file_puts_it_in_play(shop: Path) -> None:
    _, tied = fill(shop)
    injection = build_injection(shop, "the export job in shop/orders.py is slow", budget=300)
    assert injection.layers["task"][0] == tied


def test_rename_marks_the_line_and_ranks_it_down(shop: Path) -> None:
    _, tied = fill(shop)
    prompt = "cancel an order: state column or cancel_order?"
    before = build_injection(shop, prompt, budget=600)
    assert "(review:" not in before.text and before.layers["task"][0] == tied
    git(shop, "mv", "shop/orders.py", "shop/order_service.py")
    after = build_injection(shop, prompt, budget=600)
    assert "(review: shop/orders.py renamed or deleted?)" in line_of(after.text, tied)
    ranking = build.rank(
        list(build.load_catalog(*_dirs(shop)).readable()),
        prompt,
        review={tied: build.factor(build.check(str(shop), _ties(shop, tied)))},
    )
    plain = build.rank(list(build.load_catalog(*_dirs(shop)).readable()), prompt)
    score = next(r.score for r in ranking if r.entry["id"] == tied)
    assert score < next(r.score for r in plain if r.entry["id"] == tied)


def test_an_edit_marks_the_line_changed(shop: Path) -> None:
    _, tied = fill(shop)
    with (shop / "shop" / "orders.py").open("a") as fh:
        fh.write("# audit trail\n")
    after = build_injection(shop, "cancel_order and the state column", budget=600)
    assert "(review: shop/orders.py changed)" in line_of(after.text, tied)


def test_the_snapshot_path_finds_tied_memories_and_marks_them(shop: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build, "SMALL", 2)
    monkeypatch.setattr(snapshot, "SMALL", 2)
    monkeypatch.setattr(snapshot, "RACY_NS", 0)
    _, tied = fill(shop)
    monkeypatch.setattr(build, "load_catalog", _no_catalog)
    warm = build_injection(shop, "the export job is slow", budget=300, files_in_play=["shop/orders.py"])
    assert tied in warm.memory_ids
    (shop / "shop" / "orders.py").unlink()
    gone = build_injection(shop, "cancel_order and the state column", budget=600)
    assert "(review: shop/orders.py renamed or deleted?)" in line_of(gone.text, tied)


def test_the_hook_process_marks_a_renamed_file(shop: Path, data_dir: Path) -> None:
    store = MemoryStore(shop)
    rule = store.put(new_entry(kind="constraint", title=RULE)).entry
    git(shop, "mv", "shop/orders.py", "shop/order_service.py")
    payload = {"hook_event_name": "UserPromptSubmit", "session_id": "s1", "cwd": str(shop), "prompt": "cancel"}
    done = subprocess.run(
        [sys.executable, "-m", "ctxops_memory_inject", "hook", "claude-code"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=shop,
        env={**os.environ, "CTXOPS_DATA_DIR": str(data_dir)},
        timeout=60,
        check=False,
    )
    assert done.returncode == 0 and done.stderr == ""
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "(review: shop/orders.py renamed or deleted?)" in line_of(context, rule.id)


def _dirs(root: Path) -> tuple[str, str]:
    return str(root / ".meta" / "memory"), str(root / ".meta" / "index")


def _ties(root: Path, entry_id: str) -> list[object]:
    entry = MemoryStore(root).get(entry_id)
    assert entry is not None
    return list(entry.ties)


def _no_catalog(*args: object, **kwargs: object) -> object:
    raise AssertionError("the snapshot should have answered")
