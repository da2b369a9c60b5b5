"""The first `cq refs` / `cq callers` / `cq brief` of a fresh process after a save answers from the saved
files (real files, real `cq` processes, a real index): new names and uses found, deleted ones never
returned as current, while the index update runs in the background."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from ctxops_code_query.graph_backend import build_index

ORDERS = "def place(order):\n    return order\n\n\nclass Cart:\n    def add(self, x):\n        return x\n"
BILLING = "from shop.orders import place, Cart\n\n\ndef bill(o):\n    return place(o)\n"
# The save: `bill` renamed `invoice`, a new function calling place and Cart.add, and a method of its own.
BILLING_SAVED = (
    "from shop.orders import place, Cart\n\n\ndef invoice(o):\n    return place(o)\n\n\n"
    "def refund(o):\n    cart = Cart()\n    cart.add(o)\n    return place(o)\n\n\n"
    "class Ledger:\n    def post(self, o):\n        return self.check(o)\n\n    def check(self, o):\n        return o\n"
)


def cq(root: Path, *args: str, deadline: float = 30, cache: bool = False) -> subprocess.CompletedProcess[str]:
    """`cq` as users run it, in a fresh process (an ample deadline: no load can expire it)."""
    env = {k: v for k, v in os.environ.items() if k not in ("CQ_ROOT", "CQ_NO_SERVER")}
    env["CQ_NO_SERVER"] = "1"
    flags = [] if cache else ["--no-cache"]
    return subprocess.run(
        [sys.executable, "-m", "ctxops_code_query", *args, "--root", str(root), *flags, f"--deadline={deadline}"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env=env,
    )


def answer(root: Path, *args: str, rc: int = 0) -> dict[str, object]:
    done = cq(root, *args, "--json")
    assert done.returncode == rc, done.stdout + done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def sites(result: dict[str, object]) -> set[tuple[str, int]]:
    return {(h["path"], h["line"]) for h in result["hits"]}  # type: ignore[index, union-attr]


@pytest.fixture
def repo(tmp_path: Path, git_commit: Callable[[Path], None]) -> Path:
    """The shop as a real git repository, committed and indexed."""
    root = tmp_path / "repo"
    (root / "shop").mkdir(parents=True)
    (root / "shop" / "orders.py").write_text(ORDERS)
    (root / "shop" / "billing.py").write_text(BILLING)
    git_commit(root)
    build_index(root)
    return root


@contextmanager
def update_held(root: Path) -> Iterator[None]:
    """Another writer holds the index: no update can commit, so every answer comes from the overlay."""
    from ctxops_code_graph.layout import IndexLayout
    from ctxops_code_graph.lock import WriterLock

    writer = WriterLock(IndexLayout(root).lock_path, timeout=5.0)
    writer.acquire()
    try:
        yield
    finally:
        writer.release()


def _wait_for_update(root: Path) -> None:
    from ctxops_code_graph.layout import IndexLayout
    from ctxops_contracts.shared import locks

    with locks.file_lock(IndexLayout(root).update_lock_path, timeout=120.0):
        pass


def test_refs_callers_and_brief_answer_from_the_saved_file(repo: Path) -> None:
    (repo / "shop" / "billing.py").write_text(BILLING_SAVED)
    with update_held(repo):
        callers = answer(repo, "callers", "place")
        assert sites(callers) == {("shop/billing.py", 5), ("shop/billing.py", 11)}
        texts = " ".join(h["text"] for h in callers["hits"])  # type: ignore[union-attr]
        assert "invoice" in texts and "refund" in texts and "bill " not in texts
        assert callers["stale_files"] == []
        saved_note = "read from the saved files shop/billing.py; the index update runs in the background"
        assert saved_note in callers["notes"]  # type: ignore[operator]  # --json says it too (schema 1.2)
        assert saved_note in cq(repo, "callers", "place").stdout
        refs = answer(repo, "refs", "place")
        assert ("shop/billing.py", 11) in sites(refs)
        # A method call the saved file resolves itself: `self.check()` in a new class.
        assert sites(answer(repo, "callers", "Ledger.check")) == {("shop/billing.py", 16)}
        brief = cq(repo, "brief", "shop/billing.py")
        assert brief.returncode == 0 and "refund" in brief.stdout and "Ledger" in brief.stdout
        assert "function bill" not in brief.stdout
        # The deleted name is gone, never answered as current.
        assert answer(repo, "callers", "bill", rc=1)["hits"] == []
        assert answer(repo, "def", "shop/billing.py:bill", rc=1)["hits"] == []
        assert sites(answer(repo, "def", "shop/billing.py:invoice")) == {("shop/billing.py", 4)}
        # No file added or removed: `cq deps` and `cq map` keep the snapshot's other imports.
        assert deps(repo, "shop/orders.py")[:2] == (set(), {"shop/billing.py"})
        assert deps(repo, "shop/billing.py")[:2] == ({"shop/orders.py"}, set())
        order, symbols, _notes = ranked(repo)
        assert order == ["shop/orders.py", "shop/billing.py"]
        assert symbols["shop/billing.py"].split(", ")[:1] == ["invoice"] and "Ledger" in symbols["shop/billing.py"]
    # Once the update commits, the index answers the same.
    _wait_for_update(repo)
    from ctxops_code_graph import CodeIndex

    CodeIndex(repo).update(bound=None)
    after = answer(repo, "callers", "place")
    assert sites(after) == sites(callers) and after["stale_files"] == []
    assert not any("saved files" in note for note in after["notes"])  # type: ignore[union-attr]
    assert "saved files" not in cq(repo, "callers", "place").stdout


def test_a_new_file_and_a_deleted_file(repo: Path) -> None:
    (repo / "shop" / "returns.py").write_text("from shop.orders import place\n\n\ndef back(o):\n    return place(o)\n")
    (repo / "shop" / "billing.py").unlink()
    with update_held(repo):
        callers = answer(repo, "callers", "place")
        assert sites(callers) == {("shop/returns.py", 5)}  # the new file's call; none from the deleted one
        assert answer(repo, "callers", "bill", rc=1)["hits"] == []
        brief = cq(repo, "brief", "shop/returns.py")
        assert brief.returncode == 0 and "back" in brief.stdout
        assert sites(answer(repo, "impact", "place")) == {("shop/returns.py", 5)}
    _wait_for_update(repo)


def test_a_use_nothing_resolves_stays_possible_by_name_only(repo: Path) -> None:
    (repo / "shop" / "billing.py").write_text(BILLING + "\n\ndef later(thing):\n    return thing.add(1)\n")
    with update_held(repo):
        result = answer(repo, "callers", "Cart.add")
        hits = result["hits"]
        assert [(h["path"], h["line"], h["confidence"]) for h in hits] == [  # type: ignore[union-attr]
            ("shop/billing.py", 9, "name-only")
        ]
        assert result["possible"] == 1 and result["certain"] == 0
    _wait_for_update(repo)


def test_too_many_saved_files_wait_for_the_update_as_before(repo: Path) -> None:
    from ctxops_code_query.overlay import MAX_SAVED

    for i in range(MAX_SAVED + 1):
        (repo / "shop" / f"extra{i}.py").write_text(f"from shop.orders import place\n\n\ndef f{i}():\n    place(1)\n")
    with update_held(repo):
        done = cq(repo, "callers", "place", "--json", deadline=2)
        result = json.loads(done.stdout)
        assert sites(result) == {("shop/billing.py", 5)}  # the snapshot's answer, its staleness said
        assert result["stale_files"]
        assert "saved files" not in cq(repo, "callers", "place", deadline=2).stdout
    _wait_for_update(repo)


def test_callees_impact_and_cached_answers_follow_each_save(repo: Path) -> None:
    (repo / "shop" / "billing.py").write_text(BILLING_SAVED)
    with update_held(repo):
        callees = answer(repo, "callees", "refund")
        texts = [h["text"] for h in callees["hits"]]  # type: ignore[union-attr]
        assert any("place(" in t for t in texts) and any("Cart" in t for t in texts), texts
        impact = answer(repo, "impact", "Ledger.check")  # defined only in the saved file
        assert sites(impact) == {("shop/billing.py", 16)}  # the call in Ledger.post
        assert answer(repo, "def", "Ledger.check")["hits"]
        # Cached answers are keyed by the saved files' state: another save is answered afresh.
        first = json.loads(cq(repo, "callers", "place", "--json", cache=True).stdout)
        again = json.loads(cq(repo, "callers", "place", "--json", cache=True).stdout)
        assert sites(first) == sites(again) == {("shop/billing.py", 5), ("shop/billing.py", 11)}
        no_refund_call = BILLING_SAVED.replace("    return place(o)\n\n\nclass", "    return o\n\n\nclass")
        (repo / "shop" / "billing.py").write_text(no_refund_call)
        after = json.loads(cq(repo, "callers", "place", "--json", cache=True).stdout)
        assert sites(after) == {("shop/billing.py", 5)}
    _wait_for_update(repo)


# -- suggestions, `cq deps` and `cq map` right after a save (names, file_deps, ranked_files) ------------------

SAVED_NOTE = "read from the saved files"


def suggestions(result: dict[str, object]) -> list[str]:
    """The names of a miss's `did you mean: ...` (`--json` carries them in its hint)."""
    hint = str(result["hint"])
    return hint.removeprefix("did you mean: ").split(", ") if hint.startswith("did you mean: ") else []


def test_a_miss_suggests_the_saved_names(repo: Path) -> None:
    # `bill` renamed `bills`: the new name is suggested, the deleted one no longer.
    (repo / "shop" / "billing.py").write_text(BILLING.replace("def bill(", "def bills("))
    with update_held(repo):
        fast = answer(repo, "def", "bil", rc=1)  # the fast path (a plain name, one file modified)
        assert "bills" in suggestions(fast) and "bill" not in suggestions(fast), fast
        assert any(SAVED_NOTE in n for n in fast["notes"])  # type: ignore[union-attr]
        assert SAVED_NOTE in cq(repo, "def", "bil").stdout
        full = answer(repo, "callers", "bil", rc=1)  # the full path (`GraphBackend.names`)
        assert "bills" in suggestions(full) and "bill" not in suggestions(full), full
        assert sites(answer(repo, "def", "bills")) == {("shop/billing.py", 4)}
        # It uses the same files as before: `cq map` keeps the index's ranks, with the key symbols of now.
        order, symbols, _notes = ranked(repo)
        assert order == ["shop/orders.py", "shop/billing.py"] and symbols["shop/billing.py"] == "bills"
    _wait_for_update(repo)


def test_a_miss_after_a_file_is_added_and_one_deleted(repo: Path) -> None:
    (repo / "shop" / "returns.py").write_text("def refund_order(o):\n    return o\n")
    (repo / "shop" / "billing.py").unlink()
    with update_held(repo):
        result = answer(repo, "def", "refund_ordr", rc=1)  # a new file: the full path
        assert suggestions(result) == ["refund_order"]
        assert any(SAVED_NOTE in n for n in result["notes"])  # type: ignore[union-attr]
        assert "bill" not in suggestions(answer(repo, "def", "bil", rc=1))  # only the deleted file had it
        # In-process, every name (`names()` without a query) as the update will hold them.
        from ctxops_code_query.graph_backend import GraphBackend

        backend = GraphBackend(repo)
        try:
            backend.freshen(30.0)
            assert backend.saved_files() == ["shop/billing.py", "shop/returns.py"]
            every = set(backend.names())
            assert {"refund_order", "place", "Cart.add"} <= every and "bill" not in every
        finally:
            backend.close()
    _wait_for_update(repo)


def deps(root: Path, path: str) -> tuple[set[str], set[str], str]:
    """(imports, importers, notes and text) of `cq deps FILE` in a fresh process."""
    result = answer(root, "deps", path)
    hits = result["hits"]
    imports = {h["path"] for h in hits if h["role"] == "import"}  # type: ignore[union-attr, index]
    importers = {h["path"] for h in hits if h["role"] == "imported-by"}  # type: ignore[union-attr, index]
    return imports, importers, " | ".join(result["notes"])  # type: ignore[arg-type]


def test_deps_follow_added_removed_imports_and_files(tmp_path: Path, git_commit: Callable[[Path], None]) -> None:
    root = tmp_path / "repo"
    (root / "shop").mkdir(parents=True)
    (root / "shop" / "orders.py").write_text(ORDERS)
    (root / "shop" / "billing.py").write_text(BILLING)
    (root / "shop" / "audit.py").write_text("from shop.orders import Cart\n\n\ndef check(c):\n    return c\n")
    git_commit(root)
    build_index(root)
    # billing now imports a new file (and the standard library) instead of orders; audit is deleted.
    (root / "shop" / "returns.py").write_text("from shop.orders import place\n\n\ndef back(o):\n    return place(o)\n")
    billing = "import json\nfrom shop.returns import back\n\n\ndef bill(o):\n    return back(o)\n"
    (root / "shop" / "billing.py").write_text(billing)
    (root / "shop" / "audit.py").unlink()
    with update_held(root):
        imports, importers, notes = deps(root, "shop/billing.py")
        assert imports == {"shop/returns.py"} and importers == set()
        assert "external: json" in notes and SAVED_NOTE in notes
        assert deps(root, "shop/returns.py")[:2] == ({"shop/orders.py"}, {"shop/billing.py"})
        assert deps(root, "shop/orders.py")[:2] == (set(), {"shop/returns.py"})  # neither billing nor audit
        overlay = [deps(root, p)[:2] for p in ("shop/billing.py", "shop/returns.py", "shop/orders.py")]
    # Once the update commits, the index answers the same.
    _wait_for_update(root)
    from ctxops_code_graph import CodeIndex

    CodeIndex(root).update(bound=None)
    after = [deps(root, p) for p in ("shop/billing.py", "shop/returns.py", "shop/orders.py")]
    assert [a[:2] for a in after] == overlay
    assert not any(SAVED_NOTE in a[2] for a in after)


def ranked(root: Path, *words: str) -> tuple[list[str], dict[str, str], str]:
    """(files in order, each file's key symbols, notes) of `cq map` in a fresh process."""
    result = answer(root, "map", *words)
    hits = result["hits"]
    order = [h["path"] for h in hits]  # type: ignore[union-attr, index]
    return order, {h["path"]: h["text"] for h in hits}, " | ".join(result["notes"])  # type: ignore[union-attr, index, arg-type]


def test_map_ranks_the_saved_files(repo: Path) -> None:
    # A new file that billing now imports (a hub of two files), a new name in billing, orders unchanged.
    (repo / "shop" / "money.py").write_text("def cents(x):\n    return x\n")
    (repo / "shop" / "billing.py").write_text(
        "from shop.orders import place\nfrom shop.money import cents\n\n\ndef invoice(o):\n    return cents(place(o))\n"
    )
    (repo / "shop" / "ledger.py").write_text("from shop.money import cents\n\n\ndef post(x):\n    return cents(x)\n")
    with update_held(repo):
        order, symbols, notes = ranked(repo)
        assert set(order) == {"shop/orders.py", "shop/billing.py", "shop/money.py", "shop/ledger.py"}
        assert order.index("shop/money.py") < order.index("shop/billing.py")  # imported by two files
        assert "invoice" in symbols["shop/billing.py"] and "bill" not in symbols["shop/billing.py"].split(", ")
        assert SAVED_NOTE in notes and "count in this ranking once the update commits" in notes
        focused = ranked(repo, "cents")[0]
        assert focused[0] == "shop/money.py", focused
        # The new imports resolve calls for certain, as the update will (and so count in the ranking).
        callers = answer(repo, "callers", "cents")
        assert sites(callers) == {("shop/billing.py", 6), ("shop/ledger.py", 5)} and callers["certain"] == 2
        before = (order, ranked(repo, "invoice")[0])
    _wait_for_update(repo)
    from ctxops_code_graph import CodeIndex

    CodeIndex(repo).update(bound=None)
    assert (ranked(repo)[0], ranked(repo, "invoice")[0]) == before  # the index ranks them the same


def test_map_leaves_a_deleted_file_out(repo: Path) -> None:
    (repo / "shop" / "billing.py").unlink()
    with update_held(repo):
        order, _symbols, notes = ranked(repo)
        assert order == ["shop/orders.py"] and SAVED_NOTE in notes
        assert "shop/billing.py" not in ranked(repo, "bill")[0]
    _wait_for_update(repo)


def test_map_drops_the_uses_of_a_deleted_definition(tmp_path: Path, git_commit: Callable[[Path], None]) -> None:
    root = tmp_path / "repo"
    (root / "shop").mkdir(parents=True)
    (root / "shop" / "orders.py").write_text(ORDERS)
    (root / "shop" / "money.py").write_text("def cents(x):\n    return x\n")
    (root / "shop" / "billing.py").write_text(
        "from shop.orders import place\nfrom shop.money import cents\n\n\ndef bill(o):\n    return cents(place(o))\n"
    )
    git_commit(root)
    build_index(root)

    def scores() -> list[tuple[str, float]]:
        return [(h["path"], h["score"]) for h in answer(root, "map")["hits"]]  # type: ignore[union-attr, index]

    before = scores()
    # `place` renamed (and Cart deleted): billing's call to it is gone from the file graph, its import stays.
    (root / "shop" / "orders.py").write_text("def placed(order):\n    return order\n")
    with update_held(root):
        overlay = scores()
        assert overlay != before, (overlay, before)
    _wait_for_update(root)
    from ctxops_code_graph import CodeIndex

    CodeIndex(root).update(bound=None)
    assert scores() == overlay, (overlay, before)  # the index ranks them the same once the update commits
