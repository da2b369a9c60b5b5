"""Core composes memories with the code map: `ctx mem add` ties a memory to the symbols it names (issue 23).

Real git repository, real code index, real `ctx` processes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from ctxops_code_graph import CodeIndex
from ctxops_core.codeties import CodeMapTies, source_for

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e"}


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env={**os.environ, **GIT_ENV})


def ctx(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctxops_core", *args, "--root", str(root)],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=120,
        check=False,
    )


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    root = tmp_path / "shop-repo"
    (root / "shop").mkdir(parents=True)
    (root / "shop" / "orders.py").write_text(
        "class OrderService:\n    def cancel_order(self, order):\n        order.state = 'cancelled'\n"
    )
    (root / "shop" / "cart.py").write_text("def total(cart):\n    return sum(cart)\n\ndef cancel_order():\n    pass\n")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "shop")
    with CodeIndex(root) as index:
        index.update()
    return root


def test_no_code_index_no_symbol_source(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    assert source_for(str(tmp_path)) is None


def test_symbols_named_unambiguously(shop: Path) -> None:
    source = source_for(str(shop))
    assert isinstance(source, CodeMapTies)
    found = source.symbols_named("Call OrderService.cancel_order and total, not `cancel_order` blindly")
    paths = {path for _, path in found}
    ids = [i for i, _ in found]
    assert paths == {"shop/orders.py", "shop/cart.py"}
    assert any("OrderService.cancel_order" in i for i in ids)
    assert source.existing(ids) == set(ids)
    assert source.existing(["python shop/orders.py Nope#"]) == set()


def test_ctx_mem_add_ties_symbols_and_list_says_when_one_is_gone(shop: Path) -> None:
    title = "Always go through OrderService.cancel_order"
    added = ctx(shop, "mem", "add", "--kind", "lesson", "--title", title, "--json")
    assert added.returncode == 0, added.stderr
    ties = json.loads(added.stdout)["entry"]["ties"]
    assert [t["path"] for t in ties] == ["shop/orders.py"]
    assert "OrderService.cancel_order" in ties[0]["symbol"]
    # The method is renamed in place: the file changed and the symbol is gone.
    (shop / "shop" / "orders.py").write_text(
        "class OrderService:\n    def cancel(self, order):\n        order.state = 'cancelled'\n"
    )
    listed = ctx(shop, "mem", "list")
    assert listed.returncode == 0, listed.stderr
    assert "(review: OrderService.cancel_order gone from shop/orders.py?)" in listed.stdout


def test_the_fast_add_ties_symbols_as_the_full_add(shop: Path, tmp_path: Path) -> None:
    """A fresh ``ctx mem add`` in a repository with a code map stays on the fast path (issue 23, item 4: it
    handed the write to the full CLI before, ~100 ms more) and ties what the full write ties."""
    import io
    import shutil
    from contextlib import redirect_stdout

    from ctxops_core.codeties import install
    from ctxops_memory_store import MemoryStore, cli, fastcli, new_entry, snapshot

    install()
    MemoryStore(shop).put(new_entry(kind="fact", title="Carts are summed", body="Totals are plain sums."))
    snapshot.SnapshotWriter(str(shop / ".meta" / "index"), str(shop / ".meta" / "memory")).close()
    MemoryStore(shop).sync_snapshot()
    full = tmp_path / "full"
    shutil.copytree(shop, full, symlinks=True)
    ties = []
    for main, root in ((fastcli.main, shop), (cli.main, full)):
        out = io.StringIO()
        title = "Always go through OrderService.cancel_order"
        argv = [
            "--root",
            str(root),
            "add",
            "--kind",
            "lesson",
            "--title",
            title,
            "--body",
            "and total() in shop/cart.py",
        ]
        with redirect_stdout(out):
            assert main([*argv, "--json"]) == 0
        ties.append(json.loads(out.getvalue())["entry"]["ties"])
    assert ties[0] == ties[1]
    assert [t["path"] for t in ties[0]] == ["shop/cart.py", "shop/orders.py"]
    assert "OrderService.cancel_order" in str(ties[0][1]["symbol"])
