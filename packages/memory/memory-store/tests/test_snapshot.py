"""The read snapshot the store's writer keeps for the inject hook (``ctxops_memory_store.snapshot``)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from ctxops_contracts.shared import files as shared_files
from ctxops_memory_store import MemoryStore, new_entry, snapshot
from ctxops_memory_store import store as store_module
from ctxops_memory_store.entry_file import file_name, render_entry


@pytest.fixture
def small_is_tiny(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(snapshot, "SMALL", 0)


def _dirs(repo: Path) -> tuple[str, str]:
    return str(repo / ".meta" / "index"), str(repo / ".meta" / "memory")


def _rows(repo: Path) -> tuple[dict[str, str], set[str], dict[str, str]]:
    con = sqlite3.connect(repo / ".meta" / "index" / snapshot.NAME)
    try:
        docs = {json.loads(e)["id"]: json.loads(e)["status"] for (e,) in con.execute("SELECT entry FROM docs")}
        files = {f for (f,) in con.execute("SELECT file FROM files")}
        meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
    finally:
        con.close()
    return docs, files, meta


def _fill(store: MemoryStore) -> list[str]:
    titles = ["Money is decimal.Decimal", "Logs are structured JSON", "Retry webhooks with backoff"]
    return [store.put(new_entry(kind="lesson", title=t)).entry.id for t in titles]


def test_a_small_store_keeps_no_snapshot(store: MemoryStore, repo: Path) -> None:
    _fill(store)
    assert not (repo / ".meta" / "index" / snapshot.NAME).exists()  # the catalog path is as fast there


def test_the_rows_follow_every_write(store: MemoryStore, repo: Path, small_is_tiny: None) -> None:
    ids = _fill(store)
    docs, files, meta = _rows(repo)
    assert set(docs) == set(ids)
    assert files == {p.name for p in (repo / ".meta" / "memory").glob("*.md")}
    assert (int(meta["n"]), meta["files"]) == (3, "3")

    store.forget(ids[0], "wrong")
    replacement = store.supersede(ids[1], new_entry(kind="lesson", title="Logs are OpenTelemetry records")).entry
    docs, files, meta = _rows(repo)
    assert set(docs) == {ids[2], replacement.id}  # archived and superseded entries are files, not documents
    assert len(files) == 4 and int(meta["n"]) == 2

    opened = snapshot.open_for_read(*_dirs(repo))
    assert opened is not None
    records, freq = opened.records(["opentelemetry", "log"])
    opened.close()
    assert replacement.id in {r["entry"]["id"] for r in records}  # type: ignore[index]
    assert freq == {"opentelemetry": 1, "log": 1}


def test_the_listing_decides_when_the_directory_time_cannot(
    store: MemoryStore, repo: Path, small_is_tiny: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fill(store)
    index_dir, memory_dir = _dirs(repo)
    # Just written: the directory time is inside the racy window, so the listing is compared.
    assert snapshot.open_for_read(index_dir, memory_dir) is not None
    by_hand = new_entry(kind="lesson", title="Vendored wheels live in third_party")
    path = repo / ".meta" / "memory" / file_name(by_hand)
    path.write_text(render_entry(by_hand), encoding="utf-8")
    # one file more: read on top of the rows (``fold=False``: as when a writer holds the store)
    opened = snapshot.open_for_read(index_dir, memory_dir, fold=False)
    assert opened is not None and opened.behind and list(opened.overlay) == [path.name]
    opened.close()
    limit = snapshot.OVERLAY_MAX
    monkeypatch.setattr(snapshot, "OVERLAY_MAX", 0)
    assert snapshot.open_for_read(index_dir, memory_dir) is None
    monkeypatch.setattr(snapshot, "OVERLAY_MAX", limit)
    path.unlink()
    assert path.name not in _rows(repo)[1]  # never folded: the rows are the store's files
    # Same files again, but the directory time moved: the listing matches, and the check is recorded
    # once the directory time is old enough, so the next reader trusts it without listing.
    monkeypatch.setattr(snapshot, "RACY_NS", 0)
    opened = snapshot.open_for_read(index_dir, memory_dir)
    assert opened is not None
    opened.close()
    assert _rows(repo)[2]["dir_mtime_ns"] == str(Path(memory_dir).stat().st_mtime_ns)
    monkeypatch.setattr(snapshot, "_listing", lambda d: None)  # a listing now would fail the check
    assert snapshot.open_for_read(index_dir, memory_dir) is not None


def test_a_write_that_fails_midway_keeps_both_entries_active_and_the_rows_true(
    store: MemoryStore, repo: Path, small_is_tiny: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = _fill(store)
    calls = []
    real = shared_files.atomic_write

    def second_write_fails(path: object, data: object, **kwargs: object) -> None:
        calls.append(path)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real(path, data, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(store_module, "atomic_write", second_write_fails)
    replacement = new_entry(kind="lesson", title="Money is integer cents")
    with pytest.raises(OSError):
        store.supersede(ids[0], replacement)
    monkeypatch.setattr(store_module, "atomic_write", real)
    fresh = MemoryStore(repo)
    # The new entry was written first: the older one is still active, never pointing at a missing file.
    assert fresh.resolve(replacement.id).status == "active"
    assert fresh.resolve(ids[0]).status == "active"
    docs, _, _ = _rows(repo)
    assert replacement.id in docs and ids[0] in docs  # the rows match what reached the disk


def test_a_deleted_snapshot_is_rebuilt_by_the_next_write(store: MemoryStore, repo: Path, small_is_tiny: None) -> None:
    ids = _fill(store)
    for path in (repo / ".meta" / "index").iterdir():
        if path.name.startswith(snapshot.NAME):
            path.unlink()
    later = store.put(new_entry(kind="lesson", title="Feature flags live in flags.toml")).entry
    assert set(_rows(repo)[0]) == {*ids, later.id}


def test_a_snapshot_of_an_older_format_is_rebuilt_in_this_format(
    store: MemoryStore, repo: Path, small_is_tiny: None
) -> None:
    """An older format's tables (postings without the length column) are replaced, not written into."""
    ids = _fill(store)
    path = repo / ".meta" / "index" / snapshot.NAME
    for leftover in (repo / ".meta" / "index").iterdir():
        if leftover.name.startswith(snapshot.NAME):
            leftover.unlink()
    con = sqlite3.connect(path)
    con.executescript(
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES ('format', '2');"
        "CREATE TABLE files (file TEXT PRIMARY KEY, ino INTEGER, mtime_ns INTEGER);"
        "CREATE TABLE docs (doc INTEGER PRIMARY KEY, file TEXT UNIQUE, kind TEXT, pinned INTEGER, born REAL,"
        " length REAL, entry TEXT);"
        "CREATE TABLE postings (term TEXT, doc INTEGER, tf REAL);"
    )
    con.close()
    command = [sys.executable, "-m", "ctxops_memory_store.snapshot", str(repo)]
    done = subprocess.run(command, capture_output=True, check=False)
    assert done.returncode == 0 and b"not synced" not in done.stderr, done.stderr
    docs, _, meta = _rows(repo)
    assert set(docs) == set(ids) and meta["format"] == snapshot.FORMAT
    index_dir, memory_dir = _dirs(repo)
    reader = snapshot.open_for_read(index_dir, memory_dir)
    assert reader is not None
    reader.close()


def test_the_sync_command(repo: Path) -> None:
    command = [sys.executable, "-m", "ctxops_memory_store.snapshot"]
    usage = subprocess.run(command, capture_output=True, text=True, check=False)
    assert usage.returncode == 2 and "usage" in usage.stderr
    store = MemoryStore(repo)
    store.put(new_entry(kind="lesson", title="Money is decimal.Decimal"))
    done = subprocess.run([*command, str(repo)], capture_output=True, check=False)
    assert done.returncode == 0
    assert (repo / ".meta" / "index" / "memory-catalog.msgpack").exists()  # the catalog is saved by the sync


def test_the_sync_sees_an_edit_made_in_place(store: MemoryStore, repo: Path, small_is_tiny: None) -> None:
    ids = _fill(store)
    path = store.path_of(ids[2])
    assert path is not None
    inode = path.stat().st_ino
    with path.open("r+", encoding="utf-8") as fh:  # an editor writing the file in place: same inode
        text = fh.read().replace("Retry webhooks with backoff", "Retry webhooks with jittered backoff")
        fh.seek(0)
        fh.write(text)
        fh.truncate()
    assert path.stat().st_ino == inode
    MemoryStore(repo).sync_snapshot()
    con = sqlite3.connect(repo / ".meta" / "index" / snapshot.NAME)
    titles = {json.loads(e)["title"] for (e,) in con.execute("SELECT entry FROM docs")}
    con.close()
    assert "Retry webhooks with jittered backoff" in titles
    assert "Retry webhooks with backoff" not in titles


def test_a_writer_far_behind_hands_the_catch_up_to_the_sync_which_works_in_steps(
    repo: Path, small_is_tiny: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = repo / ".meta" / "memory"
    memory.mkdir(parents=True)
    for i in range(7):  # a pull brought files the snapshot has never seen
        entry = new_entry(kind="fact", title=f"Module m{i} exports f{i}")
        (memory / file_name(entry)).write_text(render_entry(entry), encoding="utf-8")
    monkeypatch.setattr(store_module, "SNAPSHOT_BULK", 3)
    requested: list[str] = []
    monkeypatch.setattr(store_module, "request_sync", lambda root, index: requested.append(root))
    store = MemoryStore(repo)
    store.put(new_entry(kind="lesson", title="Money is decimal.Decimal"))
    assert requested == [str(repo)]  # the write did not build it under its lock
    assert snapshot.open_for_read(*_dirs(repo)) is None

    steps: list[bool] = []
    real_sync = snapshot.SnapshotWriter.sync

    def counted(self: snapshot.SnapshotWriter, *args: object, **kwargs: object) -> bool:
        done = real_sync(self, *args, **kwargs)  # type: ignore[arg-type]
        steps.append(done)
        return done

    monkeypatch.setattr(snapshot.SnapshotWriter, "sync", counted)
    MemoryStore(repo).sync_snapshot()
    assert steps == [False, False, True]  # 8 files, 3 a step, the write lock released between steps
    docs, files, _ = _rows(repo)
    assert len(docs) == 8 and len(files) == 8
    opened = snapshot.open_for_read(*_dirs(repo))
    assert opened is not None
    opened.close()
    store.put(new_entry(kind="lesson", title="Retry webhooks with backoff"))  # in step: kept so by the write
    assert len(_rows(repo)[0]) == 9 and len(requested) == 1


def test_a_snapshot_of_the_previous_stemmer_is_not_read(store: MemoryStore, repo: Path, small_is_tiny: None) -> None:
    """Format 3 held the previous stemmer's postings: the hook must not read them (the catalog answers and
    the detached sync rebuilds the rows)."""
    _fill(store)
    index_dir, memory_dir = _dirs(repo)
    reader = snapshot.open_for_read(index_dir, memory_dir)
    assert reader is not None and snapshot.FORMAT == "6"
    reader.close()
    con = sqlite3.connect(repo / ".meta" / "index" / snapshot.NAME)
    con.execute("UPDATE meta SET value = '5' WHERE key = 'format'")
    con.commit()
    con.close()
    assert snapshot.open_for_read(index_dir, memory_dir) is None
    # The next write starts again from this format's schema (format 5's docs had no ``bucket``).
    MemoryStore(repo).put(new_entry(kind="fact", title="Queues are durable"))
    reader = snapshot.open_for_read(index_dir, memory_dir)
    assert reader is not None
    reader.close()


def test_search_and_show_read_the_snapshot_not_the_store(
    store: MemoryStore, repo: Path, small_is_tiny: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = _fill(store)
    store.put(new_entry(kind="fact", title="Webhooks retry five times", body="then they go to the dead letter queue"))
    by_hand = new_entry(kind="lesson", title="Webhook payloads are signed with HMAC")
    (repo / ".meta" / "memory" / file_name(by_hand)).write_text(render_entry(by_hand), encoding="utf-8")
    fresh = MemoryStore(repo)

    def no_load(*args: object, **kwargs: object) -> object:
        raise AssertionError("the store was loaded")

    monkeypatch.setattr(fresh, "load", no_load)
    found = fresh.quick_find("webhook retry", limit=5)
    assert found is not None and found.engine == "snapshot"
    hit_ids = [e.id for e, _ in found.hits]
    assert hit_ids[0] == ids[2] and by_hand.id in hit_ids  # the file written outside the store is found too
    assert [s for _, s in found.hits] == sorted((s for _, s in found.hits), reverse=True)
    quick = fresh.quick_resolve(ids[2][-8:])
    assert quick is not None and quick[0].id == ids[2] and quick[1].name.endswith(ids[2][-6:].lower() + ".md")
    assert fresh.quick_resolve("XY") is None  # too short to name a file: the full path decides
    monkeypatch.undo()
    assert next(e.id for e, _ in MemoryStore(repo).find("webhook retry", limit=5).hits) == ids[2]
    # The CLI in a fresh process (the store's own size threshold: the catalog path) gives the same first hit.
    done = subprocess.run(
        [sys.executable, "-m", "ctxops_memory_store", "--root", str(repo), "search", "webhook", "retry", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hits"][0]["id"] == ids[2]


def test_records_give_the_top_documents_and_their_frequencies_as_one_aggregate_did(
    store: MemoryStore, repo: Path, small_is_tiny: None
) -> None:
    """``records`` gathers term frequencies for its ``top`` documents only (issue 23, item 4: for every
    matching document it was ~40% of a common query's CPU at 50,000 memories): the same documents, scores'
    order and frequencies as the single aggregate over every match, ties at the cut included."""
    from ctxops_memory_store.bm25 import K1, B, idf
    from ctxops_memory_store.terms import tokens

    words = ["cache", "queue", "retry", "log", "money"]
    for i in range(60):  # many equal scores: the cut at ``top`` falls inside a tie
        picked = " ".join(words[j] for j in range(len(words)) if (i >> j) & 1) or "plain"
        store.put(new_entry(kind="fact", title=f"Note {i}: {picked}", body=f"{picked} {picked} item {i}"))
    opened = snapshot.open_for_read(*_dirs(repo))
    assert opened is not None
    try:
        for query, top in (("cache queue", 7), ("retry log money nothing", 12), ("log", 200)):
            terms = tokens(query)
            records, freq = opened.records(terms, top=top)
            unique = sorted(set(terms))
            weights = [(t, idf(opened.n, freq[t])) for t in unique if t in freq]
            values = ",".join("(?, ?)" for _ in weights)
            reference = (  # the statement records ran before
                f"WITH q(term, w) AS (VALUES {values}) "
                "SELECT p.doc, sum(q.w * p.tf * ? / (p.tf + ? * (1 - ? + ? * p.length / ?))) AS score, "
                "json_group_object(p.term, p.tf) FROM q JOIN postings p ON p.term = q.term "
                "GROUP BY p.doc ORDER BY score DESC LIMIT ?"
            )
            params = [x for pair in weights for x in pair] + [K1 + 1, K1, B, B, opened.corpus()[1], top]
            expected = {
                json.loads(entry)["id"]: {t: float(f) for t, f in json.loads(tfs).items()}
                for doc, _, tfs in opened.con.execute(reference, params)
                for (entry,) in opened.con.execute("SELECT entry FROM docs WHERE doc = ?", (doc,))
            }
            got = {r["entry"]["id"]: r["terms"] for r in records if r["terms"]}  # type: ignore[index]
            assert got == expected
            assert 0 < len(got) <= top
    finally:
        opened.close()
