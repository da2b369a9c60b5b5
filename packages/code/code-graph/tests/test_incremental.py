"""Updates: edits, new, deleted and renamed files, ignore-rule changes, bounds, and rebuild triggers."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ctxops_code_graph import CodeIndex, rebuild_reason
from ctxops_code_graph.builder import IndexWriter
from ctxops_code_graph.layout import IndexLayout
from ctxops_code_graph.lock import WriterLock
from repo_fixtures import ORDERS_PY, git, make_repo


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "shop", ORDERS_PY)
    IndexWriter(root).build()
    return root


def _names(ix: CodeIndex, path: str) -> list[str]:
    return [s.qualname for s in ix.symbols_in_file(path)]


def test_new_file_resolves_and_is_resolved_against(repo: Path) -> None:
    ix = CodeIndex(repo)
    (repo / "shop" / "audit.py").write_text("from shop.service import ship\n\ndef audit(o):\n    return ship(o)\n")
    hops = ix.callers("python shop/service.py ship().")
    assert {(h.edge.src, h.edge.confidence) for h in hops} >= {("python shop/audit.py audit().", "import-resolved")}
    assert ix.last_update is not None and ix.last_update.changed == ["shop/audit.py"]


def test_deleted_file_drops_its_symbols_and_edges(repo: Path) -> None:
    ix = CodeIndex(repo)
    assert ix.callers("python shop/service.py ship().")
    (repo / "tests" / "test_service.py").unlink()
    assert ix.callers("python shop/service.py ship().") == []
    assert ix.file("tests/test_service.py") is None
    assert ix.last_update is not None and ix.last_update.deleted == ["tests/test_service.py"]


def test_rename_moves_ids(repo: Path) -> None:
    ix = CodeIndex(repo)
    (repo / "shop" / "service.py").rename(repo / "shop" / "shipping.py")
    assert [s.id for s in ix.definitions("ship")] == ["python shop/shipping.py ship()."]
    # The test imported shop.service, which no longer exists: its call is now only a name match.
    assert {h.edge.confidence for h in ix.callers("python shop/shipping.py ship().")} == {"name-only"}


def test_removed_definition_leaves_no_dangling_edge(repo: Path) -> None:
    ix = CodeIndex(repo)
    path = repo / "shop" / "orders.py"
    path.write_text(path.read_text().replace("def can_transition", "def may_transition"))
    assert ix.symbol("python shop/orders.py OrderStateMachine.can_transition().") is None
    callees = {h.edge.dst for h in ix.callees("python shop/orders.py OrderStateMachine.transition().")}
    assert "python shop/orders.py OrderStateMachine.can_transition()." not in callees
    con = sqlite3.connect(IndexLayout(repo.resolve()).current_lookup())  # type: ignore[arg-type]
    dangling = con.execute(
        "SELECT count(*) FROM edges e LEFT JOIN symbols s ON s.sk = e.dst_sk WHERE s.sk IS NULL"
    ).fetchone()[0]
    assert dangling == 0


def test_touch_without_change_reindexes_nothing(repo: Path) -> None:
    ix = CodeIndex(repo)
    target = repo / "shop" / "orders.py"
    st = target.stat()
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    ix.definitions("Order")
    assert ix.last_update is not None and ix.last_update.scanned == 0
    assert ix.file("shop/orders.py").mtime_ns == st.st_mtime_ns + 5_000_000_000  # type: ignore[union-attr]


def test_gitignore_change_drops_files(repo: Path) -> None:
    ix = CodeIndex(repo)
    (repo / ".gitignore").write_text("tests/\n")
    assert ix.definitions("test_ship") == []
    assert ix.status().skipped_by_reason == {"ignored": 1}


def test_bound_reports_the_rest_as_stale(repo: Path) -> None:
    for i in range(5):
        (repo / "shop" / f"extra{i}.py").write_text(f"def extra{i}():\n    return {i}\n")
    ix = CodeIndex(repo, update_bound=2)
    ix.definitions("extra0")
    assert len(ix.stale_files()) == 3
    assert all(p.startswith("shop/extra") for p in ix.stale_files())
    ix.definitions("extra0")  # the next read catches up by another bounded step
    assert len(ix.stale_files()) == 1
    ix.update(bound=None)
    assert ix.stale_files() == [] and len([n for i in range(5) for n in ix.definitions(f"extra{i}")]) == 5


def test_without_auto_update_staleness_is_reported_not_fixed(repo: Path) -> None:
    (repo / "shop" / "orders.py").write_text("X = 1\n")
    ix = CodeIndex(repo, auto_update=False)
    assert ix.definitions("OrderStateMachine")  # the snapshot still answers
    assert ix.stale_files() == ["shop/orders.py"]


def test_commit_changes_the_revision(repo: Path) -> None:
    ix = CodeIndex(repo)
    (repo / "shop" / "new.py").write_text("def n():\n    pass\n")
    first = ix.revision
    assert first is not None and first.endswith("-dirty")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "add n")
    assert ix.revision == git(repo, "rev-parse", "--short=7", "HEAD")


def test_format_change_forces_a_full_rebuild(repo: Path) -> None:
    layout = IndexLayout(repo.resolve())
    con = sqlite3.connect(layout.current_lookup())  # type: ignore[arg-type]
    con.execute("UPDATE meta SET value = 'store0-extractor0' WHERE key = 'format'")
    con.commit()
    con.close()
    assert "format store0-extractor0" in rebuild_reason(repo)  # readers build it in full, like a missing one
    report = IndexWriter(repo).update()
    assert report.mode == "full" and "format" in report.reason
    assert rebuild_reason(repo) == ""
    assert CodeIndex(repo).definitions("ship")


def test_stores_disagreeing_force_a_full_rebuild(repo: Path) -> None:
    layout = IndexLayout(repo.resolve())
    con = sqlite3.connect(layout.current_lookup())  # type: ignore[arg-type]
    con.execute("UPDATE meta SET value = '99' WHERE key = 'generation'")
    con.commit()
    con.close()
    report = IndexWriter(repo).update()
    assert report.mode == "full" and "disagree" in report.reason


def test_corrupt_snapshot_is_rebuilt(repo: Path) -> None:
    layout = IndexLayout(repo.resolve())
    path = layout.current_lookup()
    assert path is not None
    path.write_bytes(b"this is not a database" * 100)
    for extra in path.parent.glob(path.name + "-*"):
        extra.unlink()
    report = IndexWriter(repo).update()
    assert report.mode == "full"
    assert CodeIndex(repo).definitions("ship")


def test_plain_directory_and_repository_without_commits(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "m.py").write_text("def f():\n    pass\n")
    ix = CodeIndex(plain)
    ix.build()
    assert ix.revision is None and ix.definitions("f")
    fresh = make_repo(tmp_path / "fresh", {"m.py": "def g():\n    pass\n"}, commit=False)
    ix2 = CodeIndex(fresh)
    ix2.build()
    assert ix2.revision == "no-commits-dirty" and ix2.definitions("g")


def test_a_long_lived_reader_follows_a_full_rebuild(repo: Path) -> None:
    reader = CodeIndex(repo, auto_update=False)
    assert reader.definitions("ship")
    (repo / "shop" / "late.py").write_text("def late():\n    pass\n")
    IndexWriter(repo).build(full=True)
    IndexWriter(repo).build(full=True)  # two generations on: the reader's first one is gone from disk
    assert reader.definitions("late") and reader.definitions("ship")
    generations = sorted(p.name for p in IndexLayout(repo.resolve()).index_dir.glob("code-lookup.*.sqlite"))
    assert len(generations) == 2  # the current one and the one it replaced


def test_a_failing_refresh_answers_from_the_snapshot(repo: Path) -> None:
    ix = CodeIndex(repo)
    assert ix.definitions("ship")
    (repo / ".meta" / "config.toml").write_text("[code\n")  # unusable config: the update cannot run
    (repo / "shop" / "orders.py").write_text("X = 1\n")
    assert ix.definitions("OrderStateMachine")  # still answered, from the snapshot
    assert ix.last_error is not None and "config.toml" in ix.last_error
    assert "shop/orders.py" in ix.stale_files()


def test_an_update_longer_than_the_wait_answers_from_the_snapshot_and_still_commits(repo: Path) -> None:
    ix = CodeIndex(repo, update_wait=0.0)  # a reader that will not wait at all for its update
    assert ix.definitions("ship")
    with (repo / "shop" / "service.py").open("a") as fh:
        fh.write("\n\ndef refund(order):\n    return order\n")
    # Another writer holds the lock, so the detached update must wait for it: no race with the asserts.
    writer = WriterLock(IndexLayout(repo).lock_path, timeout=5.0)
    writer.acquire()
    try:
        assert ix.definitions("refund") == []  # answered at once, from the snapshot
        assert ix.stale_files() == ["shop/service.py"]
        assert ix.updating()
        assert ix.definitions("ship")  # a read while the update runs neither waits nor starts another
        assert ix.updating()
    finally:
        writer.release()
    assert ix.wait_for_update(60)
    # The update was not thrown away: it committed in its own process, and this reader sees it.
    assert ix.last_error is None
    assert ix.last_update is not None and ix.last_update.changed == ["shop/service.py"]
    assert [s.path for s in ix.definitions("refund")] == ["shop/service.py"]
    assert ix.stale_files() == []
    assert [s.path for s in CodeIndex(repo, auto_update=False).definitions("refund")] == ["shop/service.py"]


def test_a_detached_update_outlives_the_reader_process(repo: Path) -> None:
    """The answering process exits at once; the update it started commits after it is gone."""
    with (repo / "shop" / "service.py").open("a") as fh:
        fh.write("\n\ndef refund(order):\n    return order\n")
    writer = WriterLock(IndexLayout(repo).lock_path, timeout=5.0)
    writer.acquire()
    try:
        code = (
            "import sys; from ctxops_code_graph import CodeIndex;"
            "ix = CodeIndex(sys.argv[1], update_wait=0.0); print(len(ix.definitions('refund')), ix.updating())"
        )
        out = subprocess.run(
            [sys.executable, "-c", code, str(repo)], check=False, capture_output=True, text=True, timeout=60
        )
        assert out.returncode == 0, out.stderr
        assert out.stdout.split() == ["0", "True"]  # answered from the snapshot, update still queued
    finally:
        writer.release()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not CodeIndex(repo, auto_update=False).definitions("refund"):
        time.sleep(0.1)
    assert [s.path for s in CodeIndex(repo, auto_update=False).definitions("refund")] == ["shop/service.py"]


def _sneak_in(repo: Path, rel: str, text: str) -> None:
    """Add a file but give its directory back its old mtime: only a full walk of the tree can see it."""
    directory = (repo / rel).parent
    before = directory.stat()
    (repo / rel).write_text(text)
    os.utime(directory, ns=(before.st_atime_ns, before.st_mtime_ns))


def test_a_save_by_rename_lists_only_the_changed_directory(repo: Path) -> None:
    _sneak_in(repo, "tests/test_hidden.py", "def hidden():\n    pass\n")
    # An editor's save: write a temporary file, rename it over the original (shop/'s entries change).
    tmp = repo / "shop" / ".service.py.swp"
    tmp.write_text((repo / "shop" / "service.py").read_text() + "\n\ndef refund(order):\n    return order\n")
    tmp.replace(repo / "shop" / "service.py")
    ix = CodeIndex(repo)
    assert [s.path for s in ix.definitions("refund")] == ["shop/service.py"]
    assert ix.last_update is not None and ix.last_update.changed == ["shop/service.py"]
    assert ix.definitions("hidden") == []  # tests/ did not change: it was not listed again
    assert ix.stale_files() == [] and len(ix.files()) == 4
    # Ignore rules changing is the one case for a full walk: then everything is listed again.
    (repo / ".gitignore").write_text("*.log\n")
    assert [s.path for s in ix.definitions("hidden")] == ["tests/test_hidden.py"]


def test_listing_changed_directories_finds_new_removed_and_renamed_directories(repo: Path) -> None:
    (repo / "shop" / "pay").mkdir()
    (repo / "shop" / "pay" / "deep").mkdir()
    (repo / "shop" / "pay" / "deep" / "card.py").write_text("def charge():\n    pass\n")
    (repo / "shop" / "pay" / "big.py").write_text("x = 1\n" * 10)
    (repo / "shop" / "pay" / ".gitignore").write_text("big.py\n")  # a new rules file: a full walk
    ix = CodeIndex(repo)
    assert [s.path for s in ix.definitions("charge")] == ["shop/pay/deep/card.py"]
    assert ix.file("shop/pay/big.py") is None
    (repo / "shop" / "pay" / "deep").rename(repo / "shop" / "pay" / "shallow")  # only directories change
    assert [s.path for s in ix.definitions("charge")] == ["shop/pay/shallow/card.py"]
    assert ix.file("shop/pay/big.py") is None  # pay/'s own ignore rules still apply to its listing
    (repo / "shop" / "pay" / "shallow" / "card.py").unlink()
    (repo / "shop" / "pay" / "shallow").rmdir()
    assert ix.definitions("charge") == [] and ix.stale_files() == []
    assert sorted(f.path for f in ix.files()) == [
        "shop/__init__.py",
        "shop/orders.py",
        "shop/service.py",
        "tests/test_service.py",
    ]
    # What the partial listings recorded is what a full walk records.
    con = sqlite3.connect(IndexLayout(repo.resolve()).current_lookup())  # type: ignore[arg-type]
    dirs = sorted(r[0] for r in con.execute("SELECT path FROM dirs"))
    skipped = sorted(con.execute("SELECT path, reason FROM skipped").fetchall())
    con.close()
    IndexWriter(repo).build(full=True)
    con = sqlite3.connect(IndexLayout(repo.resolve()).current_lookup())  # type: ignore[arg-type]
    assert sorted(r[0] for r in con.execute("SELECT path FROM dirs")) == dirs
    assert sorted(con.execute("SELECT path, reason FROM skipped").fetchall()) == skipped
    con.close()
