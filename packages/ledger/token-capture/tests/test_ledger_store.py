"""The JSONL truth and the DuckDB ledger: idempotent loads, merges, rebuilds, one writer at a time."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest
from ctxops_contracts import UsageRecord
from ctxops_contracts.shared.locks import file_lock
from ctxops_token_capture.ingest import Sources, ingest
from ctxops_token_capture.jsonl_store import append_records
from ctxops_token_capture.ledger import LEDGER_FILE, LOCK_FILE, Ledger
from ctxops_token_capture.report import IngestReport
from ctxops_token_capture.totals import totals
from ledger_synthetic import write_claude_sessions


def _record(key: str, origin: str = "transcript", **fields: object) -> UsageRecord:
    base: dict[str, object] = {
        "id": "01J0000000000000000000000" + key[-1],
        "ts": datetime(2026, 11, 29, 12, tzinfo=UTC),
        "provider": "anthropic",
        "model": "claude-opus-5-5",
        "input_tokens": 10,
        "output_tokens": 1,
        "origin": origin,
        "dedupe_key": key,
    }
    base.update(fields)
    return UsageRecord(**base)  # type: ignore[arg-type]


def test_loading_the_same_data_twice_changes_nothing(tmp_path: Path) -> None:
    config, root = tmp_path / "claude", tmp_path / "ledger"
    truth = write_claude_sessions(config, sessions=2, turns=4)
    ingest(Sources(claude_dirs=[config]), root)
    before = totals(["session", "model"], root=root).rows
    # Forget what was read: the transcripts are read and appended again, the ledger stays the same.
    shutil.rmtree(root / "state")
    report = ingest(Sources(claude_dirs=[config]), root)
    assert report.records == truth.calls and report.loaded == 0
    assert totals(["session", "model"], root=root).rows == before


def test_ledger_is_rebuilt_from_jsonl_when_deleted_or_corrupt(tmp_path: Path) -> None:
    config, root = tmp_path / "claude", tmp_path / "ledger"
    write_claude_sessions(config, sessions=2, turns=4)
    ingest(Sources(claude_dirs=[config]), root)
    expected = totals(["model"], root=root).rows
    (root / LEDGER_FILE).unlink()
    assert totals(["model"], root=root).rows == expected
    (root / LEDGER_FILE).write_bytes(b"this is not a duckdb file" * 100)
    assert totals(["model"], root=root).rows == expected
    assert list(root.glob(LEDGER_FILE + ".corrupt-*"))


def test_proxy_and_transcript_copies_of_one_call_merge(tmp_path: Path) -> None:
    root = tmp_path / "ledger"
    key = "anthropic:msg_1:req_1"
    append_records(
        [_record(key, "transcript", session_id="s-1", output_tokens=1, cwd="/home/dev/shop")], "transcript", root
    )
    append_records([_record(key, "proxy", output_tokens=42, latency_ms=812.5, status=200)], "proxy", root)
    append_records([_record("anthropic:msg_2:req_2", "proxy", output_tokens=5)], "proxy", root)
    with Ledger(root).writer() as con:
        Ledger(root).load_into(con, IngestReport())
        rows = con.execute(
            "SELECT dedupe_key, output_tokens, latency_ms, session_id, cwd, origin FROM usage ORDER BY 1"
        ).fetchall()
    assert rows == [
        (key, 42, 812.5, "s-1", "/home/dev/shop", "proxy"),  # the wire's count wins, details are merged
        ("anthropic:msg_2:req_2", 5, None, None, None, "proxy"),
    ]


def test_totals_answer_from_jsonl_while_another_process_holds_the_ledger(tmp_path: Path) -> None:
    root = tmp_path / "ledger"
    append_records([_record("k:1"), _record("k:2", input_tokens=5)], "transcript", root)
    with file_lock(root / LOCK_FILE):
        result = totals(["model"], root=root, lock_timeout=0.2)
    assert "busy" in result.note and result.total["input_tokens"] == 15
    assert not (root / LEDGER_FILE).exists()  # the busy path never touched the file
    after = totals(["model"], root=root)  # the lock is free again: the ledger file answers
    assert after.note == "" and after.total["input_tokens"] == 15
    assert (root / LEDGER_FILE).exists()


def test_concurrent_appenders_and_loaders_lose_nothing(tmp_path: Path) -> None:
    root = tmp_path / "ledger"
    script = (
        "import sys\nfrom datetime import UTC, datetime\nfrom ctxops_contracts import UsageRecord\n"
        "from ctxops_token_capture.jsonl_store import append_records\n"
        "w = sys.argv[2]\n"
        "for i in range(200):\n"
        "    r = UsageRecord(id='01J00000000000000000000000', ts=datetime.now(UTC), provider='p', model='m',"
        " input_tokens=1, origin='proxy', dedupe_key=f'{w}:{i}')\n"
        "    append_records([r], 'proxy', __import__('pathlib').Path(sys.argv[1]))\n"
    )
    writers = [subprocess.Popen([sys.executable, "-c", script, str(root), f"w{n}"]) for n in range(3)]
    errors: list[BaseException] = []

    def load_repeatedly() -> None:
        try:
            for _ in range(5):
                totals(["model"], root=root)
        except BaseException as exc:  # pragma: no cover - surfaced below
            errors.append(exc)

    loader = threading.Thread(target=load_repeatedly)
    loader.start()
    for writer in writers:
        assert writer.wait(60) == 0
    loader.join(60)
    assert not errors
    assert totals(["model"], root=root).total["calls"] == 600


def test_a_record_that_leaves_out_zero_counts_sums_as_zero(tmp_path: Path) -> None:
    root = tmp_path / "ledger"
    (root / "usage").mkdir(parents=True)
    (root / "usage" / "proxy-2026-11.jsonl").write_text(
        '{"schema_version":"1.1","id":"01J00000000000000000000000","ts":"2026-11-29T12:00:00Z","provider":"p",'
        '"model":"m","origin":"proxy","dedupe_key":"x:1","input_tokens":5}\n'
    )
    result = totals(["model"], root=root)
    assert result.total["input_tokens"] == 5 and result.total["cache_read_tokens"] == 0
    assert result.total["output_tokens"] == 0 and result.total["total_tokens"] == 5


def test_a_slow_query_draws_no_progress_bar_on_stdout(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """DuckDB draws one on stdout (even into a pipe) for queries over `progress_bar_time`: `--json` breaks."""
    ledger = Ledger(tmp_path / "ledger")
    with ledger.writer() as con:
        con.execute("SET progress_bar_time = 1")  # 1 ms instead of 2 s: every query here is "slow"
        con.execute("SELECT count(*) FROM range(30000000) t(i) WHERE hash(i) % 7 = 3").fetchall()
    assert capfd.readouterr().out == ""


def test_of_two_copies_of_a_call_in_one_load_the_first_read_wins(tmp_path: Path) -> None:
    """Ties at one rank go to the copy read first, across row groups and across record files (the order is
    the files' and their lines', which DuckDB keeps as it reads them in parallel)."""
    from ctxops_contracts import encode_line

    root = tmp_path / "ledger"
    usage = root / "usage"
    usage.mkdir(parents=True)
    filler = [_record(f"fill-{n}", input_tokens=n % 7) for n in range(150_000)]
    older = [_record("k-a", model="claude-first-a", output_tokens=5), *filler[:75_000]]
    newer = [
        *filler[75_000:],
        _record("k-a", model="claude-second-a", output_tokens=9),  # same rank, read later: not its model
        _record("k-b", model="claude-first-b", output_tokens=3),
        _record("k-b", model="claude-second-b", output_tokens=2),
    ]
    (usage / "transcript-2026-10.jsonl").write_bytes(b"".join(encode_line(r) for r in older))
    (usage / "transcript-2026-11.jsonl").write_bytes(b"".join(encode_line(r) for r in newer))
    assert Ledger(root).load(IngestReport()) == 150_002
    with Ledger(root).writer() as con:
        rows = con.execute(
            "SELECT dedupe_key, model, output_tokens FROM usage WHERE dedupe_key IN ('k-a', 'k-b') ORDER BY 1"
        ).fetchall()
    # The first copy's details; the output count is the largest (a message's last line), as always.
    assert rows == [("k-a", "claude-first-a", 9), ("k-b", "claude-first-b", 3)]


def test_an_ingest_loads_its_own_lines_from_its_copy_unless_another_writer_came_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ctxops_token_capture import ledger as ledger_module

    checked: list[bytes] = []
    real_check = ledger_module._valid_line
    monkeypatch.setattr(ledger_module, "_valid_line", lambda line: checked.append(line) or real_check(line))
    config, root = tmp_path / "claude", tmp_path / "ledger"
    truth = write_claude_sessions(config, sessions=3, turns=4)
    report = ingest(Sources(claude_dirs=[config]), root)
    assert report.loaded == truth.calls and checked == []  # taken from the copy, not checked line by line
    assert not list((root / "tmp").iterdir())  # the copy is removed
    # Another writer appends to the same record file between this run's append and its load.
    more = write_claude_sessions(config, sessions=1, turns=3, seed=5, start=datetime(2026, 11, 30, tzinfo=UTC))
    real_load = Ledger.load

    def load_after_a_stranger(self: Ledger, report: IngestReport, **kwargs: object) -> int:
        append_records([_record("stranger", input_tokens=4)], "transcript", root)
        return real_load(self, report, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Ledger, "load", load_after_a_stranger)
    again = ingest(Sources(claude_dirs=[config]), root)
    assert again.loaded == more.calls + 1 and len(checked) == more.calls + 1  # every pending line checked
    assert totals(["day"], root=root).total["calls"] == truth.calls + more.calls + 1


def test_resume_matching_accepts_only_exactly_the_appended_bytes(tmp_path: Path) -> None:
    from ctxops_token_capture.incremental import iter_new_lines, resume_matching

    path, copy = tmp_path / "records.jsonl", tmp_path / "copy.jsonl"
    path.write_bytes(b'{"a":1}\n{"a":2}\n')
    lines, _, first = iter_new_lines(path, None)
    list(lines)
    ours = b'{"b":1}\n{"b":22}\n'
    copy.write_bytes(ours)
    with path.open("ab") as handle:
        handle.write(ours)
    resumed = resume_matching(path, first, copy)
    lines, _, read = iter_new_lines(path, first)
    assert [line for _, line in lines] == [b'{"b":1}', b'{"b":22}']
    assert resumed == read  # the same state as reading the lines one by one
    copy.write_bytes(b'{"b":1}\n{"b":23}\n')  # same length, other bytes
    assert resume_matching(path, first, copy) is None
    copy.write_bytes(ours[:-1])  # shorter
    assert resume_matching(path, first, copy) is None
    path.write_bytes(b'{"a":1}\n{"a":3}\n' + ours)  # the last line read has changed: a rewrite
    copy.write_bytes(ours)
    assert resume_matching(path, first, copy) is None
