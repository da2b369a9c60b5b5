"""Memories tied to the code they speak of (issue 23, item 6): real files, real git repositories."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from ctxops_contracts import CodeTie
from ctxops_memory_store import ties
from ctxops_memory_store.cli import main
from ctxops_memory_store.entry_file import parse_entry
from ctxops_memory_store.store import MemoryStore, new_entry

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e"}


def git(root: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True, env=env).stdout


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    """A real git repository with a small shop package, committed."""
    root = tmp_path / "shop-repo"
    (root / "shop").mkdir(parents=True)
    (root / "api").mkdir()
    (root / "gen").mkdir()
    (root / "shop" / "orders.py").write_text("def cancel_order(order):\n    order.state = 'cancelled'\n")
    (root / "shop" / "payments.py").write_text("def refund(payment):\n    return payment\n")
    (root / "api" / "schema.yaml").write_text("openapi: 3.1.0\n")
    (root / "gen" / "client.py").write_text("# generated\n")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "shop")
    return root


def constraint(store: MemoryStore, text: str) -> str:
    entry = new_entry(kind="constraint", title="Orders are cancelled only through cancel_order", body=text)
    return store.put(entry).entry.id


def test_candidates_are_normalized_and_hostile_words_are_left_out() -> None:
    text = (
        "See `./shop//orders.py:42`, (api/schema.yaml). and gen/ but not /etc/passwd, ../secrets.txt, "
        "~/x.py, https://example.com/a.py, a/../../b.py, plain words, e.g. v1.2 or README.md#usage"
    )
    found = ties.candidates(text)
    assert found[:3] == ["shop/orders.py", "api/schema.yaml", "gen/"]
    assert "README.md" in found
    assert not any(p.startswith(("/", "~", "..")) or ".." in p.split("/") or "://" in p for p in found)


def test_extraction_is_linear_on_hostile_input() -> None:
    # A megabyte of path-like noise is capped and split once: milliseconds, not a backtracking regex.
    text = ("a/" * 400_000) + ("x." * 100_000)
    started = time.perf_counter()
    ties.candidates(text)
    ties.candidates("`" * 1_000_000)
    assert time.perf_counter() - started < 0.5


def test_a_memory_that_names_files_records_them_with_their_hash(shop: Path) -> None:
    store = MemoryStore(shop)
    entry_id = constraint(store, "Never set the state in shop/orders.py by hand; the schema is api/schema.yaml.")
    entry = store.get(entry_id)
    assert entry is not None
    paths = [t.path for t in entry.ties]
    assert paths == ["shop/orders.py", "api/schema.yaml"]
    import hashlib

    expected = hashlib.blake2b((shop / "shop" / "orders.py").read_bytes(), digest_size=16).hexdigest()
    assert entry.ties[0].hash == expected
    assert entry.ties[0].size == (shop / "shop" / "orders.py").stat().st_size
    # Stored in the memory's front matter, read back by a new process's store.
    path = store.path_of(entry_id)
    assert path is not None
    text = path.read_text()
    assert "[[ties]]" in text or "ties = [" in text
    assert parse_entry(text, str(path)).ties == entry.ties
    again = MemoryStore(shop).get(entry_id)
    assert again is not None and again.ties == entry.ties


def test_no_tie_outside_the_repository_or_through_a_symlink(shop: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text("secret\n")
    (shop / "shop" / "link.py").symlink_to(outside)
    (shop / "escape").symlink_to(tmp_path)
    store = MemoryStore(shop)
    entry_id = constraint(
        store, f"Compare shop/link.py, escape/outside.py, ../outside.py, {outside} and .git/config and shop/none.py"
    )
    entry = store.get(entry_id)
    assert entry is not None and entry.ties == []


def test_digests_are_not_tied(shop: Path) -> None:
    store = MemoryStore(shop)
    entry = store.put(new_entry(kind="summary", title="Session digest", body="Files changed: shop/orders.py")).entry
    assert entry.ties == []


def test_unchanged_files_need_no_review(shop: Path) -> None:
    store = MemoryStore(shop)
    constraint(store, "Only cancel_order in shop/orders.py changes an order's state.")
    assert store.review_ties() == {}


def test_git_mv_marks_the_memory_for_review_and_finds_where_it_went(shop: Path) -> None:
    store = MemoryStore(shop)
    entry_id = constraint(store, "Only cancel_order in shop/orders.py changes an order's state.")
    git(shop, "mv", "shop/orders.py", "shop/order_service.py")
    found = MemoryStore(shop).review_ties()
    assert list(found) == [entry_id]
    (problem,) = found[entry_id]
    assert (problem.state, problem.path, problem.to) == ("moved", "shop/orders.py", "shop/order_service.py")
    assert ties.marker(found[entry_id]) == " (review: shop/orders.py moved to shop/order_service.py?)"


def test_a_committed_rename_with_edits_is_found_in_git_history(shop: Path) -> None:
    store = MemoryStore(shop)
    entry_id = constraint(store, "Only cancel_order in shop/orders.py changes an order's state.")
    git(shop, "mv", "shop/orders.py", "shop/order_service.py")
    with (shop / "shop" / "order_service.py").open("a") as fh:
        fh.write("# moved\n")
    git(shop, "commit", "-qam", "rename")
    (problem,) = MemoryStore(shop).review_ties()[entry_id]
    assert (problem.state, problem.to) == ("moved", "shop/order_service.py")


def test_hook_check_sees_a_deleted_and_an_edited_file(shop: Path) -> None:
    store = MemoryStore(shop)
    a = constraint(store, "Only cancel_order in shop/orders.py changes an order's state.")
    b = store.put(new_entry(kind="decision", title="Refunds go through shop/payments.py")).entry.id
    (shop / "shop" / "orders.py").unlink()
    (shop / "shop" / "payments.py").write_text("def refund(payment):\n    return None\n")  # same size? no matter
    entries = {e.id: e for e in MemoryStore(shop).entries()}
    assert [p.state for p in ties.check(str(shop), entries[a].ties)] == ["gone"]
    assert [p.state for p in ties.check(str(shop), entries[b].ties)] == ["changed"]
    assert ties.factor(ties.check(str(shop), entries[a].ties)) == ties.GONE_FACTOR
    assert ties.factor(ties.check(str(shop), entries[b].ties)) == ties.REVIEW_FACTOR
    # the same size, other bytes: read and hashed
    (shop / "shop" / "payments.py").write_text("def refund(payment):\n    return paymenT\n")
    assert [p.state for p in ties.check(str(shop), entries[b].ties)] == ["changed"]
    # Catalog records hold plain dicts: the hook's check takes them as they are.
    plain = [{"path": t.path, "hash": t.hash, "size": t.size} for t in entries[a].ties]
    assert [p.state for p in ties.check(str(shop), plain)] == ["gone"]


def test_a_tie_rewritten_to_escape_is_never_read(shop: Path, tmp_path: Path) -> None:
    outside = tmp_path / "victim.txt"
    outside.write_text("x")
    hostile = [CodeTie(path="../victim.txt", hash="0" * 32, size=1), {"path": "/etc/passwd", "hash": "x", "size": 1}]
    assert [p.state for p in ties.check(str(shop), hostile)] == ["gone", "gone"]


def test_retie_follows_the_move(shop: Path) -> None:
    store = MemoryStore(shop)
    entry_id = constraint(store, "Only cancel_order in shop/orders.py changes an order's state.")
    git(shop, "mv", "shop/orders.py", "shop/order_service.py")
    tied = MemoryStore(shop).retie(entry_id)
    assert [t.path for t in tied.ties] == ["shop/order_service.py"]
    assert MemoryStore(shop).review_ties() == {}


class FakeCodeMap:
    """A ``CodeTieSource`` over a fixed table (the real one is core's, tested there with a real index)."""

    def __init__(self, table: dict[str, tuple[str, str]]) -> None:
        self.table = table
        self.alive = {v[0] for v in table.values()}

    def symbols_named(self, text: str) -> list[tuple[str, str]]:
        return [v for k, v in self.table.items() if k in text]

    def existing(self, ids: list[str]) -> set[str]:
        return {i for i in ids if i in self.alive}


def test_symbols_from_the_code_source_core_passes_in(shop: Path) -> None:
    source = FakeCodeMap({"cancel_order": ("python shop/orders.py cancel_order().", "shop/orders.py")})
    store = MemoryStore(shop)
    store.code_source = source
    entry = store.put(new_entry(kind="lesson", title="Call cancel_order, never set the state")).entry
    assert [(t.path, t.symbol) for t in entry.ties] == [("shop/orders.py", "python shop/orders.py cancel_order().")]
    (shop / "shop" / "orders.py").write_text("def cancel(order):\n    order.state = 'cancelled'\n")
    source.alive = set()
    again = MemoryStore(shop)
    again.code_source = source
    (problem,) = again.review_ties()[entry.id]
    assert problem.state == "gone" and problem.note() == "cancel_order gone from shop/orders.py?"


def test_the_factory_core_registers_is_used(shop: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = FakeCodeMap({"refund": ("python shop/payments.py refund().", "shop/payments.py")})
    monkeypatch.setattr(ties, "source_factory", lambda root: source)
    entry = MemoryStore(shop).put(new_entry(kind="lesson", title="refund is idempotent")).entry
    assert [t.symbol for t in entry.ties] == ["python shop/payments.py refund()."]


def test_cli_list_show_review_and_tie(shop: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = ["--root", str(shop)]
    assert main(["add", *root, "--kind", "constraint", "--title", "Never edit gen/client.py by hand"]) == 0
    capsys.readouterr()
    git(shop, "mv", "gen/client.py", "gen/api_client.py")
    assert main(["list", *root]) == 0
    assert "(review: gen/client.py moved to gen/api_client.py?)" in capsys.readouterr().out
    assert main(["list", *root, "--json"]) == 0
    (item,) = json.loads(capsys.readouterr().out)
    assert item["review"] == [{"path": "gen/client.py", "state": "moved", "symbol": None, "to": "gen/api_client.py"}]
    assert main(["search", *root, "edit", "hand"]) == 0
    assert "(review: gen/client.py moved to gen/api_client.py?)" in capsys.readouterr().out
    assert main(["show", *root, item["id"]]) == 0
    out = capsys.readouterr().out
    assert "# review: gen/client.py moved to gen/api_client.py?" in out and "ctx mem tie" in out
    assert main(["review", *root, "--no-harvest"]) == 0
    assert "the code they speak of changed or moved (1" in capsys.readouterr().out
    assert main(["tie", *root, item["id"]]) == 0
    assert "gen/api_client.py" in capsys.readouterr().out
    assert main(["list", *root]) == 0
    assert "review:" not in capsys.readouterr().out


def test_a_hand_written_file_with_hostile_ties_is_bounded_and_never_read_outside(shop: Path, tmp_path: Path) -> None:
    """A memory file from git may hold any ties: thousands, FIFOs, paths out of the repository."""
    os.mkfifo(shop / "shop" / "pipe.py")
    entry_id = constraint(MemoryStore(shop), "Only cancel_order in shop/orders.py changes an order's state.")
    path = MemoryStore(shop).path_of(entry_id)
    assert path is not None
    head, _, body = path.read_text().partition("\n+++\n")
    many = ", ".join(f'{{ path = "x/{i}.py", hash = "0", size = 1 }}' for i in range(5000))
    hostile = '{ path = "shop/pipe.py", hash = "0", size = 0 }, { path = "../../etc/passwd", hash = "0", size = 1 }'
    lines = [line for line in head.splitlines() if not line.startswith(("ties", "    {", "]"))]
    path.write_text("\n".join([*lines, f"ties = [{hostile}, {many}]"]) + "\n+++\n" + body)
    entry = MemoryStore(shop).get(entry_id)
    assert entry is not None and len(entry.ties) == 5002
    started = time.perf_counter()
    problems = ties.check(str(shop), entry.ties)  # the FIFO is never opened (this would block)
    assert time.perf_counter() - started < 1.0
    assert len(problems) == ties.MAX_TIES and {p.state for p in problems} == {"gone"}
