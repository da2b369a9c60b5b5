"""Parsing in worker processes gives exactly what parsing in one process gives, in every ingest mode."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from ctxops_token_capture import parallel
from ctxops_token_capture.ingest import Sources, ingest
from ctxops_token_capture.jsonl_store import append_records
from ctxops_token_capture.report import IngestReport
from ctxops_token_capture.totals import totals
from ledger_records import T0, assistant_line, records_in, usage_dict, write_transcript
from ledger_synthetic import write_claude_sessions

TEXT = {"type": "text", "text": "Done."}


@pytest.fixture(autouse=True)
def _only_our_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Threads other tests left in this pytest process (LanceDB keeps an event-loop thread for the process's
    life) must not turn the workers off here; the rule itself is checked with a thread of our own below."""
    before = threading.active_count()
    monkeypatch.setattr(parallel, "other_threads_running", lambda: threading.active_count() > before)


TOOL = {"type": "tool_use", "id": "toolu_7", "name": "Read", "input": {"file_path": "/home/dev/shop/b.py"}}


def _result_line(tool_id: str, content: str, ts: str, session: str) -> str:
    return json.dumps(
        {
            "type": "user",
            "timestamp": ts,
            "sessionId": session,
            "uuid": f"r-{tool_id}-{session}",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": content}],
            },
        }
    )


def _corpus(config: Path) -> None:
    """Generated sessions plus the cases where files depend on each other: a resumed session replays an
    earlier file's calls (with and without requestId) and then answers on, and a message's lines grow."""
    write_claude_sessions(config, sessions=6, turns=8, seed=31, subagent_every=2)
    first = assistant_line("msg_a", "req_a", usage_dict(100, 10), ts="2026-11-29T10:00:00Z", block=TEXT, session="s-1")
    bare = assistant_line("msg_b", None, usage_dict(50, 5), ts="2026-11-29T10:01:00Z", block=TOOL, session="s-1")
    write_transcript(config, "s-1.jsonl", [first, bare])
    # The resumed session: the history again (same message ids), a tool result, a grown replay, new calls.
    replay_a, replay_b = (line.replace('"sessionId": "s-1"', '"sessionId": "s-2"') for line in (first, bare))
    grown_a = replay_a.replace('"output_tokens": 10', '"output_tokens": 40')
    write_transcript(
        config,
        "s-2.jsonl",
        [
            replay_b,
            _result_line("toolu_7", "def b():\n    return 2\n" * 40, "2026-11-29T11:00:00Z", "s-2"),
            replay_a,
            grown_a,
            assistant_line("msg_c", "req_c", usage_dict(7, 3), ts="2026-11-29T11:00:01Z", block=TEXT, session="s-2"),
        ],
    )


def _outcome(root: Path, report: IngestReport) -> tuple[Any, ...]:
    counts = {k: v for k, v in report.as_dict().items() if k != "workers"}
    states = json.loads((root / "state" / "sources.json").read_text())
    by_model = totals(["day", "model"], root=root).rows
    return [r.dedupe_key for r in records_in(root)], records_in(root), counts, states, by_model


@pytest.mark.parametrize("compat", ["exact", "ccusage"])
def test_workers_give_the_sequential_result(tmp_path: Path, compat: str, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "claude"
    _corpus(config)
    alone = ingest(Sources(claude_dirs=[config]), tmp_path / "one", compat=compat, workers=1)
    again: list[str] = []  # files the parent parsed itself (the workers' calls happen in their own processes)
    read_source = parallel.read_source
    monkeypatch.setattr(
        parallel, "read_source", lambda source, *a, **k: again.append(source.path.name) or read_source(source, *a, **k)
    )
    spread = ingest(Sources(claude_dirs=[config]), tmp_path / "two", compat=compat, workers=2)
    assert alone.workers == 0 and spread.workers == 2
    assert again == ["s-2.jsonl"]  # only the file that replays an earlier file's calls
    assert spread.duplicates > 0 and (spread.grown_outputs > 0) == (compat == "exact")
    assert _outcome(tmp_path / "two", spread) == _outcome(tmp_path / "one", alone)
    # The resumed session's tool result feeds the next call recorded after it (the grown replay when the last
    # count wins, else the new call), once: replays that are dropped take nothing.
    fed = [(r.message_id, a.tool) for r in records_in(tmp_path / "two") if r.session_id == "s-2" for a in r.attribution]
    assert fed == [("msg_a" if compat == "exact" else "msg_c", "Read")]


def test_workers_resume_where_the_last_run_stopped(tmp_path: Path) -> None:
    config = tmp_path / "claude"
    _corpus(config)
    for root, workers in ((tmp_path / "one", 1), (tmp_path / "two", 2)):
        ingest(Sources(claude_dirs=[config]), root, workers=workers)
    more = assistant_line("msg_d", "req_d", usage_dict(9, 9), ts="2026-11-29T12:00:00Z", block=TEXT, session="s-2")
    with (config / "projects" / "-home-dev-shop" / "s-2.jsonl").open("a") as handle:
        handle.write(more + "\n")
    write_claude_sessions(config, sessions=2, turns=3, seed=77)
    alone = ingest(Sources(claude_dirs=[config]), tmp_path / "one", workers=1)
    spread = ingest(Sources(claude_dirs=[config]), tmp_path / "two", workers=2)
    assert spread.workers == 2 and spread.records == alone.records > 1
    assert _outcome(tmp_path / "two", spread) == _outcome(tmp_path / "one", alone)


def test_worker_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(parallel.WORKERS_ENV, raising=False)
    monkeypatch.setattr(parallel, "_cores", lambda: 2)
    big = parallel.PARALLEL_MIN_BYTES
    assert parallel.worker_count(big, files=100) == 2
    assert parallel.worker_count(big - 1, files=100) == 1  # a few new lines: not worth a process
    assert parallel.worker_count(big, files=1) == 1
    assert parallel.worker_count(0, files=100, requested=3) == 3
    monkeypatch.setenv(parallel.WORKERS_ENV, "1")
    assert parallel.worker_count(big, files=100) == 1
    monkeypatch.setenv(parallel.WORKERS_ENV, "many")
    assert parallel.worker_count(big, files=100) == 2  # not a number: logged, the automatic choice stands
    ready, stop = threading.Event(), threading.Event()
    other = threading.Thread(target=lambda: (ready.set(), stop.wait()))
    other.start()
    try:
        ready.wait()
        assert parallel.worker_count(big, files=100, requested=2) == 1  # never fork a threaded process
    finally:
        stop.set()
        other.join()


def _die_on_the_resumed_session(job: Any) -> Any:
    if job[0].path.name == "s-1.jsonl":
        import os

        os._exit(3)  # a worker killed mid-run (out of memory, a signal)
    return _parse_alone(job)


_parse_alone = parallel._parse_alone


def test_a_worker_that_dies_costs_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "claude"
    _corpus(config)
    alone = ingest(Sources(claude_dirs=[config]), tmp_path / "one", workers=1)
    monkeypatch.setattr(parallel, "_parse_alone", _die_on_the_resumed_session)
    spread = ingest(Sources(claude_dirs=[config]), tmp_path / "two", workers=2)
    assert spread.workers == 2
    assert _outcome(tmp_path / "two", spread) == _outcome(tmp_path / "one", alone)


def test_parsing_leaves_the_cyclic_collector_as_it_found_it(tmp_path: Path) -> None:
    import gc

    config = tmp_path / "claude"
    write_claude_sessions(config, sessions=1, turns=2)
    assert gc.isenabled()
    ingest(Sources(claude_dirs=[config]), tmp_path / "one", workers=1, load=False)
    assert gc.isenabled()
    gc.disable()
    try:
        ingest(Sources(claude_dirs=[config]), tmp_path / "two", workers=1, load=False)
        assert not gc.isenabled()
    finally:
        gc.enable()


def _table(root: Path) -> list[tuple[Any, ...]]:
    import duckdb

    con = duckdb.connect(str(root / "ledger.duckdb"), read_only=True)
    try:
        usage = con.execute("SELECT * EXCLUDE (rank) FROM usage ORDER BY dedupe_key").fetchall()
        hourly = con.execute("SELECT * FROM usage_hourly ORDER BY ALL").fetchall()
        files = con.execute("SELECT path, state FROM jsonl_files ORDER BY path").fetchall()
    finally:
        con.close()
    read = ("offset", "size", "last_line_start", "last_line_hash", "parser")  # what was read, not which inode
    states = [(Path(path).name, {k: v for k, v in json.loads(state).items() if k in read}) for path, state in files]
    return [*usage, *hourly, *states]


def _counting_loads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    from ctxops_token_capture.ledger import Ledger

    loads: list[int] = []
    real = Ledger.load_into

    def counted(self: Ledger, con: Any, report: IngestReport, **kwargs: Any) -> int:
        loads.append(1)
        return real(self, con, report, **kwargs)

    monkeypatch.setattr(Ledger, "load_into", counted)
    return loads


def test_a_first_parallel_ingest_loads_while_parsing_and_equals_the_sequential_ledger(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ctxops_token_capture import ledger

    config = tmp_path / "claude"
    write_claude_sessions(config, sessions=8, turns=6, seed=3, subagent_every=2)
    alone = ingest(Sources(claude_dirs=[config]), tmp_path / "one", workers=1)
    monkeypatch.setattr(ledger.Preload, "CHUNK", 4096)  # many inserts while the workers parse
    loads = _counting_loads(monkeypatch)
    spread = ingest(Sources(claude_dirs=[config]), tmp_path / "two", workers=2)
    assert spread.workers == 2 and spread.grown_outputs == 0
    assert loads == []  # loaded while parsing: the usual load never ran
    assert spread.loaded == alone.loaded == alone.records
    assert _table(tmp_path / "two") == _table(tmp_path / "one")
    assert _outcome(tmp_path / "two", spread) == _outcome(tmp_path / "one", alone)


def test_loading_while_parsing_gives_way_to_the_usual_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A grown message (its key inserted twice), another origin's pending records, a ledger with rows: each
    takes the usual load, with the same result as one process."""
    from ctxops_token_capture import ledger
    from ledger_records import record

    monkeypatch.setattr(ledger.Preload, "CHUNK", 4096)
    loads = _counting_loads(monkeypatch)
    config = tmp_path / "claude"
    _corpus(config)  # has a message whose replayed line grew
    alone = ingest(Sources(claude_dirs=[config]), tmp_path / "one", workers=1)
    spread = ingest(Sources(claude_dirs=[config]), tmp_path / "two", workers=2)
    assert spread.grown_outputs > 0 and loads == [1, 1]
    assert _table(tmp_path / "two") == _table(tmp_path / "one")
    # Another origin's records are pending when a first ingest loads.
    proxied = record(T0, origin="proxy", dedupe_key="proxy-1")
    for name in ("three", "four"):
        append_records([proxied], "proxy", tmp_path / name)
    other = tmp_path / "other"
    write_claude_sessions(other, sessions=6, turns=5, seed=9)
    alone = ingest(Sources(claude_dirs=[other]), tmp_path / "three", workers=1)
    spread = ingest(Sources(claude_dirs=[other]), tmp_path / "four", workers=2)
    assert spread.loaded == alone.loaded == alone.records + 1 and len(loads) == 4
    assert _table(tmp_path / "four") == _table(tmp_path / "three")
    # Another origin's record arrives while the workers parse (after chunks were committed): the usual load.
    late = record(T0, origin="proxy", dedupe_key="proxy-late")
    real_finish = ledger.Preload.finish

    def finish_after_a_proxy_call(self: ledger.Preload, report: IngestReport, own: Any) -> int:
        assert self.committed > 0  # chunks went in while the workers parsed
        append_records([late], "proxy", self.ledger.root)
        return real_finish(self, report, own)

    monkeypatch.setattr(ledger.Preload, "finish", finish_after_a_proxy_call)
    append_records([late], "proxy", tmp_path / "five")
    alone = ingest(Sources(claude_dirs=[other]), tmp_path / "five", workers=1)
    spread = ingest(Sources(claude_dirs=[other]), tmp_path / "six", workers=2)
    assert spread.loaded == alone.loaded == alone.records + 1 and len(loads) == 6
    assert _table(tmp_path / "six") == _table(tmp_path / "five")
    monkeypatch.setattr(ledger.Preload, "finish", real_finish)
    # A ledger that has rows already: the usual load through the connection opened while parsing.
    write_claude_sessions(other, sessions=3, turns=5, seed=10, start=datetime(2026, 11, 30, tzinfo=UTC))
    alone = ingest(Sources(claude_dirs=[other]), tmp_path / "three", workers=1)
    spread = ingest(Sources(claude_dirs=[other]), tmp_path / "four", workers=2)
    assert spread.workers == 2 and spread.loaded == alone.loaded > 0 and len(loads) == 8
    assert _table(tmp_path / "four") == _table(tmp_path / "three")


def test_a_busy_ledger_is_loaded_after_the_parse_not_waited_for_during_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import subprocess
    import sys

    from ctxops_token_capture.ledger import LOCK_FILE

    config, root = tmp_path / "claude", tmp_path / "ledger"
    write_claude_sessions(config, sessions=6, turns=5, seed=4)
    alone = ingest(Sources(claude_dirs=[config]), tmp_path / "one", workers=1)
    root.mkdir()
    holder = subprocess.Popen(  # another process holds the ledger for a second (a thread here would stop the forks)
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from ctxops_contracts.shared.locks import file_lock\n"
            f"with file_lock({str(root / LOCK_FILE)!r}, timeout=5):\n"
            "    print('held', flush=True)\n"
            "    time.sleep(1.5)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    loads = _counting_loads(monkeypatch)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        spread = ingest(Sources(claude_dirs=[config]), root, workers=2)
    finally:
        holder.wait(10)
    assert spread.workers == 2 and spread.loaded == alone.loaded == alone.records
    assert loads == [1]  # not loaded while parsing (the lock was not waited for), loaded after
    assert _table(root) == _table(tmp_path / "one")
