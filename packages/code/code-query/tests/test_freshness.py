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
    from ctxops_code_graph import CodeIndex
    from ctxops_code_graph.layout import IndexLayout
    from ctxops_code_graph.lock import WriterLock

    with (repo / "shop" / "orders.py").open("a") as fh:
        fh.write("\n\ndef cancel(order):\n    return None\n")
    # Another writer holds the index: the automatic update cannot finish within this query's deadline.
    writer = WriterLock(IndexLayout(repo).lock_path, timeout=5.0)
    writer.acquire()
    try:
        # A plain name is read from the saved file itself (the fast path's overlay): found at once.
        found = cq(repo, "def", "cancel", "--json")
        assert found.returncode == 0, found.stdout + found.stderr
        assert [h["path"] for h in json.loads(found.stdout)["hits"]] == ["shop/orders.py"]
        # A scoped name goes through the index, with the saved file laid over the snapshot: found too.
        first = cq(repo, "def", "shop/orders.py:cancel", "--deadline", "4", "--no-cache", "--json")
        # The process answered and exited while the update still waits: it never kept `cq` alive.
        assert first.returncode == 0, first.stdout + first.stderr
        result = json.loads(first.stdout)
        assert not result["partial"]
        assert [h["line"] for h in result["hits"]] == [5] and result["stale_files"] == []
        # More saved files than an overlay stands for: answered from the snapshot, the files reported stale.
        for i in range(9):
            (repo / "shop" / f"more{i}.py").write_text(f"def more{i}():\n    return {i}\n")
        many = cq(repo, "def", "shop/orders.py:cancel", "--deadline", "4", "--no-cache", "--json")
        assert many.returncode == 1, many.stdout + many.stderr  # answered from the snapshot, not expired
        result = json.loads(many.stdout)
        assert not result["partial"]
        assert result["stale_files"] == ["shop/orders.py", "shop/"]
    finally:
        writer.release()
    # The detached update goes on after that process exited and commits: the next query sees it.
    index = CodeIndex(repo, update_wait=60.0)
    assert index.definitions("cancel")
    second = cq(repo, "def", "cancel", "--no-cache", "--json")
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


def _wait_for_index(repo: Path, seconds: float = 300) -> None:
    import time

    from ctxops_code_graph import rebuild_reason
    from ctxops_code_graph.layout import IndexLayout
    from ctxops_code_graph.lock import WriterLock

    deadline = time.monotonic() + seconds
    lock = WriterLock(IndexLayout(repo.resolve()).lock_path)
    while time.monotonic() < deadline and (rebuild_reason(repo) or lock.held_elsewhere()):
        time.sleep(0.1)
    assert rebuild_reason(repo) == ""


def test_an_index_of_another_format_is_rebuilt_like_a_missing_one_outside_the_deadline(repo: Path) -> None:
    from ctxops_code_graph import rebuild_reason

    _set_format(repo, "store0-extractor0")
    assert "format store0-extractor0" in rebuild_reason(repo)
    # The rebuild runs in a detached process: this query answers provisionally, from a scan.
    done = cq(repo, "def", "place", "--deadline", "30", "--no-cache")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("shop/orders.py:1")
    assert done.stdout.rstrip().endswith("-- index provisional")
    # Not a terminal: exactly one notice line, naming the reason.
    assert done.stderr.count("\n") == 1 and "format store0-extractor0" in done.stderr
    assert "in the background" in done.stderr
    _wait_for_index(repo)
    again = cq(repo, "def", "place", "--no-cache")
    assert again.returncode == 0 and again.stderr == ""
    assert "provisional" not in again.stdout


def test_the_first_query_never_waits_for_the_build_and_the_build_commits(tmp_path: Path) -> None:
    root = tmp_path / "fresh"
    (root / ".git").mkdir(parents=True)
    (root / "pkg").mkdir()
    (root / "pkg" / "a.py").write_text("class Widget:\n    def spin(self):\n        return 1\n")
    (root / "pkg" / "b.go").write_text("package pkg\n\nfunc Spin() int {\n\treturn 1\n}\n")
    done = cq(root, "def", "Widget.spin", "--json", "--deadline", "30")
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout)
    assert result["index_revision"] == "provisional"
    assert [(h["path"], h["line"]) for h in result["hits"]] == [("pkg/a.py", 2)]
    brief = cq(root, "brief", "pkg/b.go", "--deadline", "30")
    assert brief.returncode == 0 and "Spin" in brief.stdout
    refs = cq(root, "callers", "Spin", "--json")
    if refs.returncode == 2:  # the build has not committed yet: a clear error, never a wrong answer
        assert "being built in the background" in json.loads(refs.stdout)["error"]["message"]
    _wait_for_index(root)
    final = cq(root, "def", "Spin", "--json")
    assert final.returncode == 0 and json.loads(final.stdout)["index_revision"] != "provisional"


def test_a_deleted_name_is_gone_on_the_first_query_after_the_save(repo: Path) -> None:
    first = cq(repo, "def", "bill", "--json")
    assert first.returncode == 0 and [h["path"] for h in json.loads(first.stdout)["hits"]] == ["shop/billing.py"]
    (repo / "shop" / "billing.py").write_text("from shop.orders import place\n\ndef invoice(o):\n    return place(o)\n")
    gone = cq(repo, "def", "bill", "--deadline", "60", "--json")
    assert gone.returncode == 1, gone.stdout + gone.stderr
    result = json.loads(gone.stdout)
    assert result["hits"] == [] and result["stale_files"] == []
    new = cq(repo, "def", "invoice", "--json")
    assert new.returncode == 0 and [h["path"] for h in json.loads(new.stdout)["hits"]] == ["shop/billing.py"]
