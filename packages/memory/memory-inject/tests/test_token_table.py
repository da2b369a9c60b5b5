"""The token table: a new prompt's lines are counted before the hook needs them (issue 23, item 4).

The hook loaded the tokenizer (20-25 ms of CPU) for every line it had never counted, so each new prompt that
brought up memories never shown paid it. ``precount`` fills the table with every memory's rendered forms; the
block must still be counted exactly and stay within its hard budget whatever the table holds or lacks.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from ctxops_memory_inject import build, precount, tokens
from ctxops_memory_inject.build import REVIEW_REFERENCE, build_injection, notice_tokens, review_notice
from ctxops_memory_inject.tokens import LineCounter, TokenTable, count
from ctxops_memory_store import MemoryStore, new_entry, snapshot
from ctxops_memory_store.entry_file import file_name, render_entry

QUERIES = [
    "API tests fail with no such table",
    "webhook retries in worker/queue.go",
    "vendored wheels under third_party",
    "how are logs and money formatted",
    "gen files edited by hand",
]
BUDGETS = (60, 120, 400, 800, 2000)


@pytest.fixture
def small_is_tiny(monkeypatch: pytest.MonkeyPatch) -> None:
    # The snapshot serves stores of more than SMALL files; shrink it (and the racy window) for the test.
    monkeypatch.setattr(build, "SMALL", 2)
    monkeypatch.setattr(snapshot, "SMALL", 2)
    monkeypatch.setattr(snapshot, "RACY_NS", 0)


def _no_tokenizer(text: str) -> int:
    raise AssertionError(f"the tokenizer was loaded for {text!r}")


def _fill(repo: Path) -> MemoryStore:
    store = MemoryStore(repo)
    store.put(new_entry(kind="decision", title="Money is decimal.Decimal", pinned=True))
    store.put(new_entry(kind="convention", title="Logs are structured JSON", body="one object per line"))
    store.put(new_entry(kind="lesson", title="Run migrations before API tests", body="no such table otherwise"))
    store.put(new_entry(kind="lesson", title="Retry webhooks with backoff", scope=["worker/**"]))
    long_body = "Generated files are rewritten by make gen. " * 12  # long: whole and summarized forms
    store.put(new_entry(kind="constraint", title="Never edit gen/ by hand", body=long_body, tags=["correction"]))
    store.put(new_entry(kind="fact", title="The parser is hand-written", body="Parsing notes. " * 40))
    digest = new_entry(kind="summary", title="Session abc: fix tests", body="Goal: fix tests\n- done", tags=["digest"])
    store.put(digest)
    return store


def _recording(started: list[str]) -> Callable[[str, str], bool]:
    def request(root: str, index_dir: str) -> bool:
        started.append(root)
        return True

    return request


def _exact(text: str) -> int:
    return count(text)


def test_after_precount_a_new_prompt_loads_no_tokenizer_and_keeps_its_budget(
    repo: Path, small_is_tiny: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fill(repo)
    waiting, counted = precount.precount(str(repo))
    assert waiting >= 6 and counted >= waiting  # every memory, the long ones in two forms
    table = repo / ".meta" / "index" / tokens.TABLE_NAME
    assert table.stat().st_mode & 0o777 == 0o600  # private (SQLite gives its WAL the same mode)
    # The frame's lines are the hook's own (the footer names the budget): counted once by the first hook.
    for budget in BUDGETS:
        build_injection(repo, "", budget=budget)
    with monkeypatch.context() as patch:
        patch.setattr(tokens, "count", _no_tokenizer)
        answers = [(q, b, build_injection(repo, q, budget=b)) for q in QUERIES for b in BUDGETS]
    for query, budget, answer in answers:
        assert answer.tokens == _exact(answer.text) <= budget, (query, budget)
    assert any(len(a.memory_ids) >= 4 for _, _, a in answers)
    # The same answers as without any table.
    (repo / ".meta" / "index" / tokens.TABLE_NAME).unlink()
    assert [build_injection(repo, q, budget=b).text for q, b, _ in answers] == [a.text for _, _, a in answers]


def test_without_precount_the_hook_counts_and_starts_it(
    repo: Path, small_is_tiny: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fill(repo)
    started: list[str] = []
    monkeypatch.setattr(precount, "request_precount", _recording(started))
    first = build_injection(repo, QUERIES[0], budget=800)
    assert first.tokens == _exact(first.text) <= 800
    assert started == [str(repo)]
    # What it counted is kept: the same prompt again loads nothing.
    with monkeypatch.context() as patch:
        patch.setattr(tokens, "count", _no_tokenizer)
        assert build_injection(repo, QUERIES[0], budget=800).text == first.text


def test_a_pulled_memory_is_counted_by_the_reconcile_not_the_hook(
    repo: Path, small_is_tiny: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files git brought, folded into the snapshot (``ctx mem reconcile``), then ``after_reconcile``: the next
    hook shows the pulled memory without loading the tokenizer."""
    from ctxops_memory_store import trust

    _fill(repo)
    precount.precount(str(repo))
    build_injection(repo, "", budget=800)
    theirs = new_entry(kind="lesson", title="Vendored wheels live in third_party", body="never pip install them " * 9)
    (repo / ".meta" / "memory" / file_name(theirs)).write_text(render_entry(theirs), encoding="utf-8")
    trust.trust_repository(repo)
    index_dir, memory_dir = str(repo / ".meta" / "index"), str(repo / ".meta" / "memory")
    folded = snapshot.open_for_read(index_dir, memory_dir, small_ok=True)  # the reconcile's fold
    assert folded is not None and not folded.behind
    folded.close()
    started: list[str] = []
    monkeypatch.setattr(precount, "request_precount", _recording(started))
    precount.after_reconcile(str(repo))
    assert started == []  # one file: counted in the foreground
    with monkeypatch.context() as patch:
        patch.setattr(tokens, "count", _no_tokenizer)
        answer = build_injection(repo, "vendored wheels third_party", budget=800)
    assert theirs.id in answer.memory_ids
    assert answer.tokens == _exact(answer.text) <= 800


def test_the_reconcile_leaves_a_whole_store_to_the_detached_job(
    repo: Path, small_is_tiny: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fill(repo)
    started: list[str] = []
    monkeypatch.setattr(precount, "request_precount", _recording(started))
    monkeypatch.setattr(tokens, "count", _no_tokenizer)  # never counted here: nothing counted in the git hook
    precount.after_reconcile(str(repo))
    assert started == [str(repo)]


@pytest.mark.parametrize("held", [*range(1, 25), 99, 100, 101, 999, 1000, 1001, 12_345, 999_999, 1_234_567])
def test_the_review_notice_is_counted_exactly_without_the_tokenizer(held: int) -> None:
    counter = LineCounter()
    counter.line(REVIEW_REFERENCE)
    counter.line(review_notice(1))
    counter.counted = 0
    assert notice_tokens(counter, held) == count(review_notice(held) + "\n")
    assert counter.counted == 0


def test_an_unreadable_or_planted_table_is_ignored(
    repo: Path, small_is_tiny: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file that is not the table, or a symlink to one elsewhere, is never read or written through: the
    tokenizer counts, the block is exact; the detached job starts an unreadable table again."""
    _fill(repo)
    monkeypatch.setattr(precount, "request_precount", lambda root, index_dir: True)
    path = repo / ".meta" / "index" / tokens.TABLE_NAME
    path.write_bytes(b"not a database" * 100)
    answer = build_injection(repo, QUERIES[0], budget=400)
    assert answer.tokens == _exact(answer.text) <= 400
    assert precount.precount(str(repo))[1] > 0 and TokenTable(str(path.parent)).lookup([tokens.line_key(build.HEADER)])
    path.unlink()
    elsewhere = repo.parent / "elsewhere.sqlite"
    con = sqlite3.connect(elsewhere)
    con.executescript(tokens._SCHEMA)
    con.execute("INSERT INTO meta VALUES ('format', ?)", (tokens.FORMAT,))
    con.commit()
    con.close()
    path.symlink_to(elsewhere)
    assert TokenTable(str(path.parent)).connect() is None and TokenTable(str(path.parent)).connect(write=True) is None
    answer = build_injection(repo, QUERIES[0], budget=400)
    assert answer.tokens == _exact(answer.text) <= 400
    con = sqlite3.connect(elsewhere)
    assert con.execute("SELECT count(*) FROM lines").fetchone()[0] == 0  # nothing written through the link
    con.close()


def test_a_later_precount_looks_only_at_documents_written_since(repo: Path, small_is_tiny: None) -> None:
    """The detached job reads the documents past the last one it counted, not the whole store; a snapshot
    rebuilt since (numbered again from 1) is looked at whole."""
    store = _fill(repo)
    assert precount.precount(str(repo))[0] >= 7
    assert precount.precount(str(repo)) == (0, 0)
    added = store.put(new_entry(kind="lesson", title="Pin the protobuf runtime", body="the generated code needs 4.x"))
    waiting, counted = precount.precount(str(repo))
    assert waiting == 1 and counted >= 1
    assert precount.precount(str(repo)) == (0, 0)
    index = repo / ".meta" / "index"
    (index / snapshot.NAME).unlink()
    late = new_entry(kind="fact", title="The CI runner has 4 cores", body="builds use -j4")
    (repo / ".meta" / "memory" / file_name(late)).write_text(render_entry(late), encoding="utf-8")
    MemoryStore(repo).sync_snapshot()  # made again: every document numbered anew, the new one anywhere
    assert precount.precount(str(repo)) == (1, 1)  # the one file not counted, found among all
    assert precount.precount(str(repo)) == (0, 0)
    assert added.entry.id


def test_the_detached_precount_yields_to_the_next_hook(repo: Path, small_is_tiny: None) -> None:
    """The job a hook starts runs niced (issue 23: it competed with the agent's next hook for the CPU), and
    still counts every line."""
    import subprocess
    import sys

    store = _fill(repo)
    store.sync_snapshot()
    code = (
        "import os, sys; from ctxops_memory_inject.precount import main; before = os.nice(0); "
        "status = main([sys.argv[1]]); print(status, os.nice(0) - before, before)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(repo)], capture_output=True, text=True, timeout=120, check=True
    )
    status, raised, before = (int(word) for word in done.stdout.split())
    assert (status, raised) == (0, min(10, 19 - before)), done.stderr  # 19: the lowest priority there is
    table = TokenTable(str(repo / ".meta" / "index")).connect()
    assert table is not None
    try:
        assert table.execute("SELECT count(*) FROM lines").fetchone()[0] > 0
    finally:
        table.close()
