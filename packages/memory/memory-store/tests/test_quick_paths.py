"""Constant-time CLI (issue 23, item 4): search/show from the snapshot without argparse or msgspec, and
``add`` that compares with the entries of its kind and scope read from the snapshot, not the whole store."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from contextlib import redirect_stdout
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import msgspec
import pytest
from ctxops_contracts import SCHEMA_VERSION, CodeTie, MemoryEntry, convert, to_builtins
from ctxops_contracts.shared.locks import file_lock
from ctxops_memory_store import MemoryStore, cli, fastcli, new_entry, snapshot, write_turn
from ctxops_memory_store import store as store_module
from ctxops_memory_store.catalog import parse_file
from ctxops_memory_store.entry_file import file_name, render_entry
from ctxops_memory_store.store import AddResult

NOW = datetime(2026, 3, 4, 5, 6, 7, 891234, tzinfo=UTC)


@pytest.fixture
def small_is_tiny(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(snapshot, "SMALL", 0)


def _entry(kind: str, title: str, body: str = "", **more: object) -> MemoryEntry:
    entry = new_entry(kind=kind, title=title, body=body, now=NOW)
    return msgspec.structs.replace(entry, **more) if more else entry


BASE = [
    _entry("lesson", "Money is decimal.Decimal", "Never use float for money amounts in the billing module."),
    _entry("fact", "Service A must answer within 100 ms", "The SLO of service A is 100 ms at p99."),
    _entry("constraint", "Never edit gen/ by hand", "The files under gen/ are generated: change api/schema.yaml."),
    _entry("convention", "Use ruff for lint", "Run ruff check before each commit.", pinned=True),
    _entry("decision", "We deploy on Fridays", "Deploys happen on Friday afternoons after the review."),
    _entry("fact", "Queues are durable", "Every queue is declared durable.", scope=["svc/**"]),
]


def test_schema_version_is_the_contracts_one() -> None:
    assert fastcli.SCHEMA_VERSION == SCHEMA_VERSION


def test_plain_entry_is_what_msgspec_gives(tmp_path: Path) -> None:
    tie = CodeTie(path="src/app.py", hash="0" * 32, size=12, symbol="py src/app.py main")
    entries = [
        *BASE,
        _entry("fact", "Ünïcode 名前 title", "body with \u00e9 and 中文", tags=["speaker:ann"], hits=3),
        _entry(
            "lesson",
            "Archived one",
            status="archived",
            archive_reason="wrong",
            valid_until=NOW + timedelta(days=1),
            last_used_at=datetime(2026, 3, 4, 5, 6, 7, tzinfo=timezone(timedelta(hours=2))),
            ties=[tie, CodeTie(path="gen", hash="dir", size=0)],
            history=["01ABC"],
            files=["src/app.py"],
            source=["session-1"],
        ),
    ]
    for entry in entries:
        path = tmp_path / file_name(entry)
        path.write_text(render_entry(entry), encoding="utf-8")
        data = parse_file(str(path), path.name)["entry"]
        plain = fastcli.plain_entry(data)
        assert plain == to_builtins(convert(MemoryEntry, data))
        assert plain is not None and fastcli.render_plain(plain) == render_entry(entry)
    good = parse_file(str(path), path.name)["entry"]
    assert isinstance(good, dict)
    for bad in (
        {**good, "created_at": "2026-03-04T05:06:07"},  # no zone: msgspec refuses it, the full CLI says so
        {**good, "schema_version": "9.0"},
        {**good, "kind": "rumour"},
        {**good, "hits": True},
        {**good, "scope": "src/**"},
        {**good, "ties": [{"path": "a.py", "hash": "x", "size": -1}]},
    ):
        assert fastcli.plain_entry(bad) is None


def _answer(main: object, argv: list[str]) -> tuple[object, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(argv)  # type: ignore[operator]
    return code, out.getvalue()


def _filled(repo: Path) -> MemoryStore:
    store = MemoryStore(repo)
    for entry in BASE:
        store.put(entry, now=NOW)
    store.save_catalog()
    return store


def test_fast_search_and_show_answer_as_the_cli(repo: Path, small_is_tiny: None) -> None:
    _filled(repo)
    root = ["--root", str(repo)]
    for argv in (
        ["search", "money", "decimal", *root],
        ["search", "money", "decimal", "--json", *root],
        ["--json", *root, "search", "deploy", "--limit", "1"],
        ["search", "nothing-like-this", "--json", *root],
        ["show", BASE[0].id[-8:], *root],
        ["show", BASE[3].id, "--json", *root],
    ):
        fast = _answer(fastcli.main, argv)
        assert fast[0] is not None, argv
        assert fast == _answer(cli.main, argv), argv
    for argv in (["search", "money", "--kind", "lesson"], ["show", "--help"], ["list"], ["show", "abc"]):
        assert fastcli.main([*argv, *root]) is None  # argparse's and the store's: nothing printed


def test_fast_search_leaves_a_store_with_vectors_to_the_full_cli(repo: Path, small_is_tiny: None) -> None:
    """Search may fuse vectors with BM25 there (``MemoryStore.hybrid_on``): a BM25-only answer from the fast path
    would differ from ``find``'s. Defaults written commented out (as ``ctx init`` writes them) do not count."""
    _filled(repo)
    argv = ["search", "money", "decimal", "--json", "--root", str(repo)]
    config = repo / ".meta" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("# [memory.vector]\n# enabled = true   # vectors\n", encoding="utf-8")
    if MemoryStore(repo).hybrid_on():
        pytest.skip("an embedder is installed here: vectors are on by default, the fast path always hands over")
    assert _answer(fastcli.main, argv)[0] == 0
    config.write_text("[memory.vector]\nenabled = true\nembedder = 'hashing'\n", encoding="utf-8")
    assert fastcli.main(argv) is None


def test_a_small_store_is_read_from_the_snapshot_while_every_file_is_its_rows(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(snapshot, "MIN_FILES", 0)  # the writer keeps one for a store this small
    _filled(repo)
    argv = ["search", "money", "decimal", "--json", "--root", str(repo)]
    fast = _answer(fastcli.main, argv)
    assert fast[0] == 0 and '"engine":"snapshot"' in fast[1]
    assert snapshot.open_for_read(str(repo / ".meta" / "index"), str(repo / ".meta" / "memory")) is None
    path = MemoryStore(repo).path_of(BASE[0].id)
    assert path is not None
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))  # as an edit in place
    # The stat of every file finds the edit: that file is parsed on top of the rows (the same answer) and its
    # rows written, so the next reader and a quick write take the rows again.
    assert _answer(fastcli.main, argv) == fast
    opened = snapshot.open_for_read(str(repo / ".meta" / "index"), str(repo / ".meta" / "memory"), small_ok=True)
    assert opened is not None and not opened.behind
    opened.close()
    assert MemoryStore(repo).quick_put(_entry("fact", "Caches are warmed at boot")) is not None
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    with file_lock(repo / ".meta" / "index" / snapshot.WRITE_LOCK, timeout=5):  # a writer at work: no fold
        on_top = _answer(fastcli.main, argv)  # read on top of the rows (its old row set aside, still counted)
    assert on_top[0] == 0
    assert [h["id"] for h in json.loads(on_top[1])["hits"]] == [h["id"] for h in json.loads(fast[1])["hits"]]
    later = _entry("fact", "Caches expire hourly")
    assert MemoryStore(repo).quick_put(later) is None  # a quick write does not take rows that are not current
    MemoryStore(repo).put(later)  # the full write brings them in step again
    assert MemoryStore(repo).quick_put(_entry("fact", "Caches are cold after a deploy")) is not None


def test_the_fast_path_imports_neither_argparse_nor_msgspec(repo: Path, small_is_tiny: None) -> None:
    _filled(repo)
    heavy = ("msgspec", "argparse", "pathlib", "duckdb")
    if os.environ.get("COVERAGE_PROCESS_CONFIG"):  # coverage's tracer in the child imports pathlib of its own
        heavy = ("msgspec", "argparse", "duckdb")
    code = (
        "import sys\n"
        "from ctxops_memory_store import snapshot\n"
        "snapshot.SMALL = 0\n"
        "from ctxops_memory_store.fastcli import main\n"
        f"status = main(['search', 'money', '--json', '--root', {str(repo)!r}])\n"
        f"heavy = sorted(m for m in {heavy!r} if m in sys.modules)\n"
        "print(status, heavy, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert '"engine":"snapshot"' in done.stdout
    assert done.stderr.strip() == "0 []"


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    """Two identical stores with a snapshot: one for quick writes, one for full ones."""
    quick = tmp_path / "quick"
    (quick / ".git").mkdir(parents=True)
    _filled(quick)
    MemoryStore(quick).sync_snapshot()
    full = tmp_path / "full"
    shutil.copytree(quick, full)
    MemoryStore(full).sync_snapshot()  # the copy's snapshot names its own directory
    return quick, full


def _same(a: AddResult, b: AddResult) -> None:
    assert (a.action, a.entry, a.folded, a.superseded, a.pinned_near_duplicates, a.review, a.conflicts) == (
        b.action,
        b.entry,
        b.folded,
        b.superseded,
        b.pinned_near_duplicates,
        b.review,
        b.conflicts,
    )


def _files(root: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted((root / ".meta" / "memory").glob("*.md"))}


def test_quick_put_does_what_put_does(tmp_path: Path, small_is_tiny: None, monkeypatch: pytest.MonkeyPatch) -> None:
    quick, full = _pair(tmp_path)
    later = NOW + timedelta(hours=1)
    pulled = _entry("lesson", "Pulled: tokens expire after one hour", "Refresh the token before it expires.")
    news = [
        BASE[0],  # the same entry again: a duplicate
        _entry("lesson", "Money is decimal.Decimal", "Never use float for money amounts in the billing module!"),
        _entry("fact", "Service A must answer within 100 ms", "It is a hard limit now."),  # same subject
        _entry("fact", "Service B must answer within 200 ms", "The SLO of service B is 200 ms at p99."),
        _entry("decision", "We never deploy on Fridays", "Deploys happen on Fridays no more."),
        _entry("convention", "Use ruff for lint", "Run ruff check before every commit."),  # the pinned one
        _entry("fact", "Queues are durable", "Every queue is declared durable.", scope=["api/**"]),
        _entry("lesson", "A candidate", "for review", status="pending"),
        _entry("lesson", "Pulled: tokens expire after one hour", "Refresh the token before it expires!"),
    ]
    for step, entry in enumerate(news):
        if step == len(news) - 1:  # a `git pull` brought a memory: the quick write folds it in first
            for root in (quick, full):
                (root / ".meta" / "memory" / file_name(pulled)).write_text(render_entry(pulled), encoding="utf-8")

        def no_load(*args: object, **kwargs: object) -> object:
            raise AssertionError("the quick write loaded the store")

        fresh = MemoryStore(quick)
        monkeypatch.setattr(fresh.catalog, "refresh", no_load)
        done = fresh.quick_put(entry, now=later)
        assert done is not None, entry.title
        fresh.save_catalog()
        _same(done, MemoryStore(full).put(entry, now=later))
        assert _files(quick) == _files(full), entry.title
    # The rows are those a full sync writes.
    rows = _rows(quick)
    MemoryStore(quick).sync_snapshot()
    after = _rows(quick)
    for a, b in zip(after, rows, strict=True):
        assert sorted(set(a) ^ set(b)) == []


def _rows(root: Path) -> tuple[object, ...]:
    import sqlite3

    con = sqlite3.connect(root / ".meta" / "index" / snapshot.NAME)
    try:
        return tuple(
            sorted(con.execute(sql).fetchall())
            for sql in (
                "SELECT file, ino, mtime_ns FROM files",
                "SELECT file, kind, pinned, born, length, entry, bucket, title_norm FROM docs",
                "SELECT d.file, p.term, p.tf FROM postings p JOIN docs d ON d.doc = p.doc",
                "SELECT hash, file FROM hashes",
                "SELECT path, d.file FROM tied t JOIN docs d ON d.doc = t.doc",
                "SELECT key, value FROM meta WHERE key IN ('n', 'files', 'format')",
            )
        )
    finally:
        con.close()


def test_a_large_bucket_is_narrowed_to_its_best_matches(
    tmp_path: Path, small_is_tiny: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    quick, full = _pair(tmp_path)
    monkeypatch.setattr(store_module, "QUICK_BUCKET", 1)  # BASE holds two facts without a scope
    monkeypatch.setattr(store_module, "QUICK_TOP", 1)
    for entry in (
        _entry("fact", "Service A must answer within 100 ms", "The SLO of service A is 100 ms at p99!"),
        _entry("fact", "Service A must answer within 100 ms", "Measured at the load balancer."),
    ):
        done = MemoryStore(quick).quick_put(entry, now=NOW)
        assert done is not None
        _same(done, MemoryStore(full).put(entry, now=NOW))
    assert _files(quick) == _files(full)


def test_quick_put_hands_over_when_the_snapshot_cannot_vouch(repo: Path, small_is_tiny: None) -> None:
    entry = _entry("fact", "Caches expire hourly")
    assert MemoryStore(repo).quick_put(entry) is None  # no snapshot yet
    _filled(repo)
    MemoryStore(repo).sync_snapshot()
    (repo / ".meta" / "index" / write_turn.GENERATION).write_text("another-writer", encoding="utf-8")
    assert MemoryStore(repo).quick_put(entry) is None  # a writer the rows do not know of
    MemoryStore(repo).sync_snapshot()
    # An entry the new one supersedes was edited in place (same inode, the directory's time unchanged):
    # the quick write does not write over the edit; the full write reads it first.
    old = MemoryStore(repo).path_of(BASE[1].id)
    assert old is not None
    text = old.read_text(encoding="utf-8").replace("100 ms at p99", "120 ms at p99")
    with open(old, "r+", encoding="utf-8") as fh:
        fh.write(text)
    stat = old.stat()
    os.utime(old, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    same_subject = _entry("fact", "Service A must answer within 100 ms", "It is a hard limit now.")
    assert MemoryStore(repo).quick_put(same_subject) is None
    assert not (repo / ".meta" / "memory" / file_name(same_subject)).exists()
    result = MemoryStore(repo).put(same_subject)
    assert result.superseded == [BASE[1].id]
    assert "120 ms at p99" in old.read_text(encoding="utf-8")
