"""Build a real index of a small Python repository and query it through CodeIndex."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from ctxops_code_graph import CodeIndex, IndexNotBuilt
from repo_fixtures import ORDERS_PY, git, make_repo

# CI's coverage leg traces subprocesses, which loads coverage's own modules (pathlib, argparse, ...) into
# every process: import hygiene is checked by the untraced run (`make test`), not there.
_UNTRACED = pytest.mark.skipif(
    bool(os.environ.get("COVERAGE_PROCESS_CONFIG")), reason="coverage tracing loads modules of its own"
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "shop", ORDERS_PY)
    CodeIndex(root).build()
    return root


def test_definitions_by_plain_qualified_and_path_names(repo: Path) -> None:
    ix = CodeIndex(repo)
    (plain,) = ix.definitions("transition")
    assert plain.id == "python shop/orders.py OrderStateMachine.transition()."
    assert plain.kind == "method" and plain.line == 27 and plain.end_line == 32
    assert plain.signature == "(self, target: str) -> Order"
    assert plain.doc == "Move to `target` or raise."
    assert plain.parent == "python shop/orders.py OrderStateMachine#"
    assert ix.definitions("OrderStateMachine.transition") == [plain]
    assert ix.definitions("shop/orders.py:transition") == [plain]
    assert ix.definitions("shop/orders.py:OrderStateMachine.transition") == [plain]
    assert ix.definitions(plain.id) == [plain]
    assert ix.definitions("Machine.transition") == []  # a qualified name matches whole segments only
    (const,) = ix.definitions("MAX_ITEMS")
    assert const.kind == "constant"
    assert ix.definitions("no_such_name") == []


def test_symbols_in_file_is_an_outline(repo: Path) -> None:
    names = [(s.qualname, s.kind) for s in CodeIndex(repo).symbols_in_file("shop/orders.py")]
    assert names == [
        ("MAX_ITEMS", "constant"),
        ("OrderError", "class"),
        ("Order", "class"),
        ("Order.id", "field"),
        ("Order.state", "field"),
        ("OrderStateMachine", "class"),
        ("OrderStateMachine.__init__", "method"),
        ("OrderStateMachine.can_transition", "method"),
        ("OrderStateMachine.transition", "method"),
    ]


def test_callers_carry_confidence(repo: Path) -> None:
    ix = CodeIndex(repo)
    hops = ix.callers("python shop/orders.py OrderStateMachine.can_transition().")
    assert [(h.symbol.qualname if h.symbol else None, h.edge.confidence) for h in hops] == [
        ("OrderStateMachine.transition", "exact")
    ]
    init_callers = {
        (h.symbol.qualname if h.symbol else h.edge.src, h.edge.confidence)
        for h in ix.callers("python shop/orders.py OrderStateMachine#")
    }
    assert init_callers == {("ship", "import-resolved"), ("cancel", "import-resolved")}
    deep = ix.callers("python shop/orders.py OrderStateMachine.can_transition().", depth=3)
    assert {h.symbol.qualname for h in deep if h.symbol} >= {"transition", "ship", "test_ship"} - {"transition"} | {
        "OrderStateMachine.transition"
    }


def test_impact_reaches_the_test(repo: Path) -> None:
    impact = CodeIndex(repo).impact("python shop/orders.py OrderStateMachine.transition().")
    assert "tests/test_service.py" in impact.tests
    assert [s.qualname for s in impact.test_symbols] == ["test_ship"]
    assert set(impact.files) == {"shop/orders.py", "shop/service.py", "tests/test_service.py"}


def test_edit_is_seen_by_the_next_read(repo: Path) -> None:
    ix = CodeIndex(repo)
    head = git(repo, "rev-parse", "--short=7", "HEAD")
    assert ix.revision == head
    with (repo / "shop/service.py").open("a") as fh:
        fh.write("\n\ndef refund(order_id: str) -> Order:\n    return ship(order_id)\n")
    (found,) = ix.definitions("refund")
    assert found.line == 18 and found.path == "shop/service.py"
    assert ix.revision == f"{head}-dirty"
    assert ix.last_update is not None and ix.last_update.mode == "incremental"
    callers = {h.symbol.qualname for h in ix.callers("python shop/service.py ship().") if h.symbol}
    assert callers == {"refund", "test_ship"}


def test_unbuilt_repository_says_how_to_build(tmp_path: Path) -> None:
    with pytest.raises(IndexNotBuilt, match="index"):
        CodeIndex(tmp_path).definitions("x")


def test_read_path_imports_no_heavy_module(repo: Path) -> None:
    code = (
        "import sys\nfrom ctxops_code_graph import CodeIndex\n"
        f"ix = CodeIndex({str(repo)!r})\nassert ix.definitions('ship')\n"
        "heavy = [m for m in ('duckdb', 'tree_sitter', 'pygit2', 'watchdog', 'pathspec') if m in sys.modules]\n"
        "print(heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[]"


def test_names_and_all_symbols(repo: Path) -> None:
    ix = CodeIndex(repo)
    names = ix.names()
    assert {"transition", "OrderStateMachine.transition", "ship", "MAX_ITEMS"} <= set(names)
    assert names == sorted(names)
    everything = list(ix.all_symbols())
    assert len(everything) == 13 and everything[0].path == "shop/orders.py"


def test_self_and_super_calls_find_inherited_methods(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "inh",
        {
            "base.py": "class Base:\n    def save(self):\n        pass\n\n    def close(self):\n        pass\n",
            "mid.py": "from base import Base\n\nclass Mid(Base):\n    def close(self):\n        super().close()\n",
            "leaf.py": (
                "from mid import Mid\n\nclass Leaf(Mid):\n    def run(self):\n        self.save()\n"
                "        self.close()\n"
            ),
            "other.py": "class A:\n    def save(self): ...\nclass B:\n    def save(self): ...\n"
            "class C:\n    def save(self): ...\nclass D:\n    def save(self): ...\n",
        },
    )
    ix = CodeIndex(root)
    ix.build()
    callees = {(h.edge.dst, h.edge.confidence) for h in ix.callees("python leaf.py Leaf.run().")}
    # save() is two levels up (through Mid), close() one level up: the nearest definition wins.
    assert callees == {
        ("python base.py Base.save().", "import-resolved"),
        ("python mid.py Mid.close().", "import-resolved"),
    }
    assert {h.edge.dst for h in ix.callees("python mid.py Mid.close().")} == {"python base.py Base.close()."}


def test_files_under_meta_do_not_make_the_revision_dirty(repo: Path) -> None:
    (repo / ".meta" / "config.toml").write_text("[memory]\n")  # a tracked file: git lists .meta/'s entries
    git(repo, "add", ".meta/config.toml")
    git(repo, "commit", "-q", "-m", "config")
    head = git(repo, "rev-parse", "--short=7", "HEAD")
    (repo / ".meta" / "memory").mkdir(parents=True)
    (repo / ".meta" / "memory" / "notes.jsonl").write_text("{}\n")
    (repo / ".meta" / "ledger.db").write_bytes(b"x")
    ix = CodeIndex(repo)
    ix.build(full=True)
    assert ix.revision == head  # the index, memory and ledger are ctxops's files, not edits
    (repo / "untracked.py").write_text("X = 1\n")
    ix.build(full=True)
    assert ix.revision == f"{head}-dirty"


@_UNTRACED
def test_lean_reader_answers_without_the_contracts(repo: Path) -> None:
    code = (
        "import sys\nfrom ctxops_code_graph import reader\n"
        f"root = {str(repo)!r}\ncon = reader.connect(reader.current_snapshot(root))\n"
        "assert reader.staleness(root, con, reader.meta(con)).fresh\n"
        "rows = reader.definition_rows(con, 'OrderStateMachine.transition')\n"
        "assert [r[0] for r in rows] == ['python shop/orders.py OrderStateMachine.transition().'], rows\n"
        "lean = ('msgspec', 'ctxops_contracts', 'pathlib', 'dataclasses', 'typing')\n"
        "loaded = [m for m in lean if m in sys.modules]\n"
        "print(loaded)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[]"


def test_staleness_sees_edits_and_new_files_through_directory_mtimes(repo: Path) -> None:
    from ctxops_code_graph import reader

    con = reader.connect(reader.current_snapshot(str(repo)) or "")
    meta = reader.meta(con)
    assert reader.staleness(str(repo), con, meta).fresh
    (repo / "shop" / "new_module.py").write_text("def added():\n    pass\n")
    stale = reader.staleness(str(repo), con, meta)
    assert stale.dirs_changed == ["shop"] and stale.modified == []
    with (repo / "shop" / "orders.py").open("a") as fh:
        fh.write("\n# edited\n")
    stale = reader.staleness(str(repo), con, meta)
    assert stale.modified == ["shop/orders.py"] and not stale.fresh
    con.close()
