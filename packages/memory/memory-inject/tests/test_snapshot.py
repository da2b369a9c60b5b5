"""The hook's SQLite read snapshot: the store's writer keeps it in step, so the hook never rebuilds it.

It answers exactly as the catalog does; a write (put, supersede, fold, archive) is in it when the write
returns; files changed outside the store make the hook read the catalog and start a detached sync.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ctxops_contracts.shared.locks import file_lock
from ctxops_memory_inject import build
from ctxops_memory_inject.build import build_injection
from ctxops_memory_store import MemoryStore, new_entry, snapshot, trust
from ctxops_memory_store.entry_file import file_name, render_entry

CATALOG = "memory-catalog.msgpack"


@pytest.fixture
def small_is_tiny(monkeypatch: pytest.MonkeyPatch) -> None:
    # The snapshot serves stores of more than SMALL files; shrink it (and the racy window) for the test.
    monkeypatch.setattr(build, "SMALL", 2)
    monkeypatch.setattr(snapshot, "SMALL", 2)
    monkeypatch.setattr(snapshot, "RACY_NS", 0)


def _fill(repo: Path) -> MemoryStore:
    store = MemoryStore(repo)
    store.put(new_entry(kind="decision", title="Money is decimal.Decimal", pinned=True))
    store.put(new_entry(kind="convention", title="Logs are structured JSON", body="one object per line"))
    store.put(new_entry(kind="lesson", title="Run migrations before API tests", body="no such table otherwise"))
    store.put(new_entry(kind="lesson", title="Retry webhooks with backoff", scope=["worker/**"]))
    store.put(new_entry(kind="summary", title="Session abc: fix tests", body="Goal: fix tests", tags=["digest"]))
    return store


def _no_catalog(*args: object, **kwargs: object) -> object:
    raise AssertionError("the snapshot should have answered")


def _dirs(repo: Path) -> tuple[str, str]:
    return str(repo / ".meta" / "index"), str(repo / ".meta" / "memory")


def test_the_snapshot_answers_like_the_catalog(
    repo: Path, small_is_tiny: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fill(repo)
    assert (repo / ".meta" / "index" / snapshot.NAME).exists()  # written by the store, not by a reader
    queries = ["API tests fail with no such table", "webhook retries in worker/queue.go", "log format", ""]
    with monkeypatch.context() as patch:
        patch.setattr(build.snapshot, "open_for_read", lambda *a, **k: None)
        from_catalog = [build_injection(repo, q, budget=400) for q in queries]
    with monkeypatch.context() as patch:
        patch.setattr(build, "load_catalog", _no_catalog)
        from_snapshot = [build_injection(repo, q, budget=400) for q in queries]
    assert [i.text for i in from_snapshot] == [i.text for i in from_catalog]
    assert [i.memory_ids for i in from_snapshot] == [i.memory_ids for i in from_catalog]


def test_every_write_is_in_the_snapshot_when_it_returns(
    repo: Path, small_is_tiny: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _fill(repo)
    monkeypatch.setattr(build, "load_catalog", _no_catalog)  # every answer below comes from the snapshot
    added = MemoryStore(repo).put(new_entry(kind="lesson", title="Migrations need a fresh schema")).entry
    assert added.id in build_injection(repo, "migrations fresh schema", budget=400).memory_ids

    replacement = new_entry(kind="lesson", title="Migrations run in a transaction", body="fresh schema per test")
    store.supersede(added.id, replacement)
    ids = build_injection(repo, "migrations fresh schema transaction", budget=400).memory_ids
    assert replacement.id in ids and added.id not in ids

    store.forget(replacement.id, "wrong")
    assert replacement.id not in build_injection(repo, "migrations transaction", budget=400).memory_ids

    # A near-duplicate folds the older entry into the newer one: only the newer one is a document.
    first = store.put(new_entry(kind="lesson", title="Webhook signatures use HMAC SHA256 of the raw body")).entry
    second = store.put(new_entry(kind="lesson", title="Webhook signatures use HMAC SHA256 of the raw body bytes"))
    assert second.folded == [first.id]
    ids = build_injection(repo, "webhook signatures HMAC raw body", budget=400).memory_ids
    assert second.entry.id in ids and first.id not in ids

    con = sqlite3.connect(repo / ".meta" / "index" / snapshot.NAME)
    statuses = {json.loads(e)["status"] for (e,) in con.execute("SELECT entry FROM docs")}
    files = {f for (f,) in con.execute("SELECT file FROM files")}
    con.close()
    assert statuses == {"active"}
    assert files == {p.name for p in (repo / ".meta" / "memory").glob("*.md")}


def test_a_file_changed_outside_the_store_is_read_on_top_of_the_snapshot(
    repo: Path, small_is_tiny: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _fill(repo)
    ids = [e.id for e in store.entries() if e.title == "Retry webhooks with backoff"]
    index_dir, memory_dir = _dirs(repo)
    assert snapshot.open_for_read(index_dir, memory_dir) is not None
    by_hand = new_entry(kind="lesson", title="Vendored wheels live in third_party")
    (repo / ".meta" / "memory" / file_name(by_hand)).write_text(render_entry(by_hand), encoding="utf-8")
    gone = MemoryStore(repo).path_of(ids[0])
    assert gone is not None
    gone.unlink()  # a `git pull` that brought one memory and removed another
    trust.trust_repository(repo)  # a file written outside the store is held back otherwise (test_trust_memories)
    # the listing differs by two files: an overlay (``fold=False``: as when a writer holds the store)
    opened = snapshot.open_for_read(index_dir, memory_dir, fold=False)
    assert opened is not None and opened.behind and list(opened.overlay) == [file_name(by_hand)]
    assert opened.stale == {gone.name}
    opened.close()
    limit = snapshot.OVERLAY_MAX
    monkeypatch.setattr(snapshot, "OVERLAY_MAX", 1)  # more files changed than a reader parses itself
    assert snapshot.open_for_read(index_dir, memory_dir) is None
    monkeypatch.setattr(snapshot, "OVERLAY_MAX", limit)
    started: list[str] = []
    monkeypatch.setattr(build.snapshot, "request_sync", lambda root, index: started.append(root))
    monkeypatch.setattr(build, "load_catalog", _no_catalog)  # the catalog is never read for it
    query = "vendored wheels third_party retry webhooks"
    with file_lock(repo / ".meta" / "index" / snapshot.WRITE_LOCK, timeout=5):  # a writer at work: no fold
        answer = build_injection(repo, query, budget=2000).memory_ids
    assert by_hand.id in answer and ids[0] not in answer
    assert started == [str(repo)]
    # No writer: the reader folds the two files into the rows itself (no detached sync for them), and the
    # next reader finds the snapshot in step.
    answer = build_injection(repo, query, budget=2000).memory_ids
    assert by_hand.id in answer and ids[0] not in answer
    assert started == [str(repo)]
    con = sqlite3.connect(repo / ".meta" / "index" / snapshot.NAME)
    files = {f for (f,) in con.execute("SELECT file FROM files")}
    con.close()
    assert file_name(by_hand) in files and gone.name not in files
    opened = snapshot.open_for_read(index_dir, memory_dir, fold=False)
    assert opened is not None and not opened.behind
    opened.close()

    MemoryStore(repo).sync_snapshot()  # what the detached sync runs
    opened = snapshot.open_for_read(index_dir, memory_dir)
    assert opened is not None
    opened.close()


def test_an_old_full_check_still_answers_from_the_snapshot_and_starts_a_sync(
    repo: Path, small_is_tiny: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fill(repo)
    monkeypatch.setattr(snapshot, "FULL_CHECK_AFTER_NS", 0)  # edits in place not looked for since: due
    monkeypatch.setattr(build, "load_catalog", _no_catalog)
    started: list[str] = []
    monkeypatch.setattr(build.snapshot, "request_sync", lambda root, index: started.append(root))
    assert build_injection(repo, "API tests no such table", budget=400).memory_ids
    assert started == [str(repo)]


def test_the_detached_sync_brings_the_snapshot_in_step(repo: Path, small_is_tiny: None) -> None:
    _fill(repo)
    index_dir = _dirs(repo)[0]
    by_hand = new_entry(kind="lesson", title="Vendored wheels live in third_party")
    (repo / ".meta" / "memory" / file_name(by_hand)).write_text(render_entry(by_hand), encoding="utf-8")
    trust.trust_repository(repo)  # a file written outside the store is held back otherwise (test_trust_memories)
    assert snapshot.request_sync(str(repo), index_dir)
    assert not snapshot.request_sync(str(repo), index_dir)  # one at a time
    con = sqlite3.connect(Path(index_dir) / snapshot.NAME)
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            if con.execute("SELECT 1 FROM files WHERE file = ?", (file_name(by_hand),)).fetchone():
                break
            time.sleep(0.1)
        docs = [json.loads(e)["id"] for (e,) in con.execute("SELECT entry FROM docs")]
    finally:
        con.close()
    assert by_hand.id in docs


def _large_store(repo: Path, count: int) -> None:
    memory = repo / ".meta" / "memory"
    memory.mkdir(parents=True)
    for i in range(count):
        entry = new_entry(kind="fact", title=f"Module m{i} exports f{i}", body=f"f{i} returns the {i}th value")
        (memory / file_name(entry)).write_text(render_entry(entry), encoding="utf-8")


def test_a_fresh_hook_reads_a_new_write_from_the_snapshot_without_a_rebuild(repo: Path, data_dir: Path) -> None:
    """At the real size threshold, in fresh processes: the write updates the snapshot, the hook only reads it."""
    from ctxops_memory_store.catalog import SMALL

    _large_store(repo, SMALL + 1)
    MemoryStore(repo).sync_snapshot()  # the first build: what the detached sync does for a large store
    store = MemoryStore(repo)
    old = store.put(new_entry(kind="lesson", title="Money amounts use float", body="round at the end")).entry
    lesson = new_entry(kind="lesson", title="Money amounts use Decimal, never float", body="floats lose cents")
    store.supersede(old.id, lesson)
    index_dir = repo / ".meta" / "index"
    (index_dir / CATALOG).unlink(missing_ok=True)  # a hook taking the catalog path would write it again
    con = sqlite3.connect(index_dir / snapshot.NAME)
    before = con.execute("SELECT count(*), max(doc) FROM docs").fetchone()
    con.close()

    payload = {"hook_event_name": "UserPromptSubmit", "session_id": "s2", "cwd": str(repo), "prompt": "money float"}
    done = subprocess.run(
        [sys.executable, "-m", "ctxops_memory_inject", "hook", "claude-code"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env={**os.environ, "CTXOPS_DATA_DIR": str(data_dir)},
        check=True,
        timeout=120,
    )
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert lesson.id[-8:] in context
    assert old.id[-8:] not in context  # superseded: never injected
    assert not (index_dir / CATALOG).exists()  # the catalog was neither read nor rebuilt
    assert not (index_dir / snapshot.SYNC_STARTED).exists()  # no sync was needed
    con = sqlite3.connect(index_dir / snapshot.NAME)
    assert con.execute("SELECT count(*), max(doc) FROM docs").fetchone() == before  # no rows rebuilt
    con.close()


def test_a_small_store_with_a_snapshot_is_read_from_it_while_every_file_is_its_rows(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Up to SMALL files the hook read the catalog (~0.2 s at 1,000 memories: every entry decoded and ranked);
    # past MIN_FILES the store keeps a snapshot, and a stat of every file says whether its rows are current.
    monkeypatch.setattr(snapshot, "MIN_FILES", 3)
    store = _fill(repo)
    assert (repo / ".meta" / "index" / snapshot.NAME).exists() and snapshot.SMALL > 5
    queries = ["API tests fail with no such table", "webhook retries in worker/queue.go", "log format", ""]
    with monkeypatch.context() as patch:
        patch.setattr(build.snapshot, "open_for_read", lambda *a, **k: None)
        from_catalog = [build_injection(repo, q, budget=400) for q in queries]
    with monkeypatch.context() as patch:
        patch.setattr(build, "load_catalog", _no_catalog)
        from_snapshot = [build_injection(repo, q, budget=400) for q in queries]
    assert [i.text for i in from_snapshot] == [i.text for i in from_catalog]
    # An edit in place (same inode, a new time) and a pulled file: parsed on top of the rows, then folded.
    edited = store.path_of(next(e.id for e in store.entries() if e.title == "Logs are structured JSON"))
    assert edited is not None
    text = edited.read_text(encoding="utf-8").replace("one object per line", "one OTLP record per line")
    with open(edited, "r+", encoding="utf-8") as fh:
        fh.write(text)
    stat = edited.stat()
    os.utime(edited, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    pulled = new_entry(kind="lesson", title="Vendored wheels live in third_party")
    (repo / ".meta" / "memory" / file_name(pulled)).write_text(render_entry(pulled), encoding="utf-8")
    trust.trust_repository(repo)  # a file written outside the store is held back otherwise (test_trust_memories)
    query = "vendored wheels third_party log format"
    with monkeypatch.context() as patch:
        patch.setattr(build.snapshot, "open_for_read", lambda *a, **k: None)
        expected = build_injection(repo, query, budget=2000)
    with monkeypatch.context() as patch:
        patch.setattr(build, "load_catalog", _no_catalog)
        answer = build_injection(repo, query, budget=2000)
        assert answer.text == expected.text and "OTLP record" in answer.text and pulled.id in answer.memory_ids
        index_dir, memory_dir = _dirs(repo)
        opened = snapshot.open_for_read(index_dir, memory_dir, fold=False, small_ok=True)
        assert opened is not None and not opened.behind  # folded by the reader before
        opened.close()


def test_the_hook_after_a_git_pull_answers_like_the_catalog_without_listing(
    repo: Path, small_is_tiny: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main"]

    def run(where: Path, *args: str) -> None:
        subprocess.run([*git, "-C", str(where), *args], check=True, capture_output=True)

    shutil.rmtree(repo / ".git")  # the fixture's stand-in: a real repository here
    run(repo, "init", "-q")
    monkeypatch.setattr(snapshot, "RACY_FINE_NS", 0)
    _fill(repo)
    run(repo, "add", ".meta/memory")
    run(repo, "commit", "-q", "-m", "memories")
    upstream = repo.parent / "upstream"
    run(repo.parent, "clone", "-q", str(repo), str(upstream))
    index_dir, memory_dir = _dirs(repo)
    opened = snapshot.open_for_read(index_dir, memory_dir)  # records the commit the rows match
    assert opened is not None
    opened.close()
    theirs = new_entry(kind="lesson", title="Vendored wheels live in third_party", body="never pip install them")
    (upstream / ".meta" / "memory" / file_name(theirs)).write_text(render_entry(theirs), encoding="utf-8")
    run(upstream, "add", ".meta/memory")
    run(upstream, "commit", "-q", "-m", "theirs")
    run(repo, "pull", "-q", "--ff-only", str(upstream), "main")
    trust.trust_repository(repo)  # a pulled memory is held back otherwise (issue 21 item 6)
    query = "vendored wheels third_party log format"
    with monkeypatch.context() as patch:
        patch.setattr(build.snapshot, "open_for_read", lambda *a, **k: None)
        expected = build_injection(repo, query, budget=2000)
    with monkeypatch.context() as patch:
        patch.setattr(build, "load_catalog", _no_catalog)
        patch.setattr(snapshot, "_listing", _no_catalog)  # nor a listing of the directory
        answer = build_injection(repo, query, budget=2000)
    assert answer.text == expected.text and theirs.id in answer.memory_ids


@pytest.mark.parametrize("trusted", [True, False])
def test_the_hook_after_a_reconciled_pull_starts_no_git_and_keeps_its_budget(
    repo: Path, small_is_tiny: None, monkeypatch: pytest.MonkeyPatch, trusted: bool
) -> None:
    """`ctx mem reconcile` (the git hooks, issue 23 item 4) folded the pull: the hook's answer is the catalog's,
    without git, a listing or a parse; its block stays within the budget, counted exactly."""
    import shutil

    from ctxops_memory_inject.tokens import count
    from ctxops_memory_store import after_git, git_changes

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main"]

    def run(where: Path, *args: str) -> None:
        subprocess.run([*git, "-C", str(where), *args], check=True, capture_output=True)

    shutil.rmtree(repo / ".git")
    run(repo, "init", "-q")
    monkeypatch.setattr(snapshot, "RACY_FINE_NS", 0)
    _fill(repo)
    run(repo, "add", ".meta/memory")
    run(repo, "commit", "-q", "-m", "memories")
    upstream = repo.parent / "upstream"
    run(repo.parent, "clone", "-q", str(repo), str(upstream))
    assert after_git.reconcile(str(repo)) == "current"  # records the commit the rows match
    theirs = new_entry(kind="lesson", title="Vendored wheels live in third_party", body="never pip install them " * 9)
    (upstream / ".meta" / "memory" / file_name(theirs)).write_text(render_entry(theirs), encoding="utf-8")
    run(upstream, "add", ".meta/memory")
    run(upstream, "commit", "-q", "-m", "theirs")
    run(repo, "pull", "-q", "--ff-only", str(upstream), "main")  # this repository runs no git hooks: by hand
    assert after_git.reconcile(str(repo)) == "current"
    if trusted:
        trust.trust_repository(repo)
    query = "vendored wheels third_party log format migrations"
    for budget in (2000, 120):
        with monkeypatch.context() as patch:
            patch.setattr(snapshot, "open_for_read", lambda *a, **k: None)
            expected = build_injection(repo, query, budget=budget)
        with monkeypatch.context() as patch:
            for owner, name in ((build, "load_catalog"), (snapshot, "_listing"), (snapshot, "_parsed")):
                patch.setattr(owner, name, _no_catalog)
            patch.setattr(git_changes, "changed", _no_catalog)
            answer = build_injection(repo, query, budget=budget)
        assert answer.text == expected.text
        assert answer.tokens == count(answer.text) <= budget
        assert (theirs.id in answer.memory_ids) == (trusted and budget == 2000)
        assert answer.held_back == (0 if trusted else 1)
