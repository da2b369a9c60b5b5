"""Freshness under the deadline: an automatic update that cannot finish in time never costs the answer,
and is never thrown away (a real `cq` process on a real index)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from ctxops_code_query.graph_backend import build_index


def cq(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CQ_ROOT"}
    return subprocess.run(
        [sys.executable, "-m", "ctxops_code_query", *args, "--root", str(root)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env=env,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "shop").mkdir()
    (root / "shop" / "orders.py").write_text("def place(order):\n    return order\n")
    (root / "shop" / "billing.py").write_text("from shop.orders import place\n\ndef bill(o):\n    return place(o)\n")
    build_index(root)
    return root


def test_an_update_slower_than_the_deadline_answers_now_and_commits_for_the_next_query(repo: Path) -> None:
    with (repo / "shop" / "orders.py").open("a") as fh:
        fh.write("\n\ndef cancel(order):\n    return None\n")
    # A fresh process must import DuckDB and tree-sitter to reindex: far more than 0.1 s of freshness wait.
    first = cq(repo, "def", "cancel", "--deadline", "0.2", "--no-cache", "--json")
    assert first.returncode in (0, 1), first.stdout + first.stderr  # never 3: the snapshot answered in time
    result = json.loads(first.stdout)
    assert not result["partial"]
    if first.returncode == 1:  # answered from the snapshot: the edited file is reported stale
        assert result["stale_files"] == ["shop/orders.py"]
    # The update went on and committed before that process exited: the next query sees it.
    second = cq(repo, "def", "cancel", "--deadline", "0.2", "--no-cache", "--json")
    assert second.returncode == 0, second.stdout + second.stderr
    assert [h["path"] for h in json.loads(second.stdout)["hits"]] == ["shop/orders.py"]
    assert json.loads(second.stdout)["stale_files"] == []


def _set_format(root: Path, fmt: str) -> None:
    import sqlite3

    from ctxops_code_graph.layout import IndexLayout

    con = sqlite3.connect(IndexLayout(root.resolve()).current_lookup())  # type: ignore[arg-type]
    con.execute("UPDATE meta SET value = ? WHERE key = 'format'", (fmt,))
    con.commit()
    con.close()


def test_an_index_of_another_format_is_rebuilt_like_a_missing_one_outside_the_deadline(repo: Path) -> None:
    from ctxops_code_graph import rebuild_reason

    _set_format(repo, "store0-extractor0")
    assert "format store0-extractor0" in rebuild_reason(repo)
    # A full build in a fresh process takes far longer than 0.2 s: it must not count against the deadline.
    done = cq(repo, "def", "place", "--deadline", "0.2", "--no-cache")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("shop/orders.py:1")
    # Not a terminal: exactly one notice line, naming the reason.
    assert done.stderr.count("\n") == 1 and "format store0-extractor0" in done.stderr
    assert "rebuilding it now" in done.stderr
    assert rebuild_reason(repo) == ""
    again = cq(repo, "def", "place", "--deadline", "0.2", "--no-cache")
    assert again.returncode == 0 and again.stderr == ""
