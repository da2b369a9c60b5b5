"""A DuckDB build store held open by another process is busy, not corrupt: reported, waited on, never
rebuilt over (a real connection held by a real second process)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from ctxops_code_graph import CodeIndex, IndexBusy
from ctxops_code_graph.builder import IndexWriter
from ctxops_code_graph.duck_store import StoreBusy
from ctxops_code_graph.layout import IndexLayout
from repo_fixtures import ORDERS_PY, make_repo

HOLDER = """
import sys, time, duckdb
con = duckdb.connect(sys.argv[1])
print("held", flush=True)
time.sleep(float(sys.argv[2]))
con.close()
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "shop", ORDERS_PY)
    IndexWriter(root).build()
    return root


def _hold(path: Path, seconds: float) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(path), str(seconds)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def _generation_file(repo: Path) -> Path | None:
    return IndexLayout(repo).current_lookup()


def test_an_update_while_another_process_holds_the_store_reports_it_and_does_not_rebuild(repo: Path) -> None:
    layout = IndexLayout(repo)
    before = _generation_file(repo)
    (repo / "shop" / "orders.py").write_text((repo / "shop" / "orders.py").read_text() + "\n\ndef added():\n    pass\n")
    holder = _hold(layout.duckdb_path, 30)
    try:
        with pytest.raises(StoreBusy) as caught:
            IndexWriter(repo, lock_timeout=0.3).update()
        assert f"process {holder.pid}" in str(caught.value)
        assert isinstance(caught.value, IndexBusy)
        # A reader answers from the snapshot and says why the file is stale.
        ix = CodeIndex(repo, lock_wait=0.3)
        assert ix.definitions("OrderStateMachine")
        assert "shop/orders.py" in ix.stale_files()
        assert ix.last_error is not None and "held open by process" in ix.last_error
    finally:
        holder.kill()
        holder.wait()
    assert _generation_file(repo) == before  # no full rebuild happened behind the holder's back
    report = IndexWriter(repo).update()
    assert report.mode == "incremental" and report.changed == ["shop/orders.py"]
    assert _generation_file(repo) == before
    assert CodeIndex(repo, auto_update=False).definitions("added")


def test_an_update_waits_for_a_short_holder(repo: Path) -> None:
    layout = IndexLayout(repo)
    (repo / "shop" / "orders.py").write_text((repo / "shop" / "orders.py").read_text() + "\n\ndef added():\n    pass\n")
    holder = _hold(layout.duckdb_path, 1.0)
    try:
        started = time.monotonic()
        report = IndexWriter(repo, lock_timeout=30.0).update()
        assert time.monotonic() - started >= 0.2  # it waited for the holder instead of failing or rebuilding
    finally:
        holder.wait(30)
    assert report.mode == "incremental" and report.changed == ["shop/orders.py"]
