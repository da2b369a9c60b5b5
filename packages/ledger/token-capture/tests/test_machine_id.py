"""Every call record carries the id of the machine that recorded it: transcripts (in-process and in worker
processes), the proxy and the SDK wrapper; the ledger keeps it, and gives records written without one the id
of the machine whose ledger loads them."""

from __future__ import annotations

import asyncio
import logging
import threading
from pathlib import Path
from typing import Any

import anthropic
import duckdb
import httpx
import pytest
from ctxops_contracts import UsageRecord, decode
from ctxops_token_capture.ingest import Sources, ingest
from ctxops_token_capture.machine import MACHINE_ENV, this_machine
from ctxops_token_capture.proxy import ProxyConfig, serve
from ctxops_token_capture.sdk import instrument
from ctxops_token_capture.totals import totals
from ledger_records import T0, record, write
from ledger_synthetic import write_claude_sessions, write_codex_sessions


def _records(root: Path) -> list[UsageRecord]:
    return [
        decode(UsageRecord, line)
        for path in sorted((root / "usage").glob("*.jsonl"))
        for line in path.read_bytes().splitlines()
        if line.strip()
    ]


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(MACHINE_ENV, "laptop-a")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("CTXOPS_CONFIG", str(tmp_path / "user-config.toml"))
    return "laptop-a"


@pytest.mark.parametrize("workers", [1, 2])
def test_ingested_transcripts_carry_the_machine_id(tmp_path: Path, machine: str, workers: int) -> None:
    claude = tmp_path / "claude"
    write_claude_sessions(claude, sessions=4, turns=5)
    codex = tmp_path / "codex"
    write_codex_sessions(codex)
    root = tmp_path / "ledger"
    report = ingest(Sources(claude_dirs=[claude], codex_homes=[codex]), root, workers=workers)
    records = _records(root)
    assert report.records == len(records) > 10
    assert {r.machine_id for r in records} == {machine}
    assert {r.provider for r in records} >= {"anthropic", "openai"}
    con = duckdb.connect(str(root / "ledger.duckdb"), read_only=True)
    assert con.execute("SELECT count(*), count(DISTINCT machine_id), any_value(machine_id) FROM usage").fetchone() == (
        len(records),
        1,
        machine,
    )
    con.close()


def test_the_stored_id_is_used_when_nothing_overrides_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(MACHINE_ENV, raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("CTXOPS_CONFIG", str(tmp_path / "user-config.toml"))
    claude = tmp_path / "claude"
    write_claude_sessions(claude, sessions=1, turns=2)
    ingest(Sources(claude_dirs=[claude]), tmp_path / "ledger")
    stored = (tmp_path / "state" / "ctxops" / "machine-id").read_text().strip()
    assert {r.machine_id for r in _records(tmp_path / "ledger")} == {stored}
    # The user config names the machine for what is recorded after it.
    (tmp_path / "user-config.toml").write_text('[ledger]\nmachine_id = "named-in-config"\n')
    assert this_machine() == "named-in-config"


def test_proxy_records_carry_the_machine_id(upstream: Any, data_root: Path, machine: str) -> None:
    config = ProxyConfig.create(upstream.url, port=0, root=data_root)
    loop = asyncio.new_event_loop()
    stop = asyncio.Event()
    ports: list[int] = []
    ready = threading.Event()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(serve(config, lambda port: (ports.append(port), ready.set()), stop))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        assert ready.wait(10)
        body = {"model": "claude-test", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}
        headers = {"x-api-key": "sk-ant-test", "anthropic-version": "2023-06-01"}
        response = httpx.post(f"http://127.0.0.1:{ports[0]}/v1/messages", json=body, headers=headers)
        assert response.status_code == 200
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(10)
    (recorded,) = _records(data_root)
    assert recorded.machine_id == machine and recorded.origin == "proxy"


def test_sdk_records_carry_the_machine_id(upstream: Any, machine: str) -> None:
    sink: list[UsageRecord] = []
    client = instrument(
        anthropic.Anthropic(api_key="sk-ant-test", base_url=upstream.url, max_retries=0), sink=sink.append
    )
    client.messages.create(model="claude-test", max_tokens=10, messages=[{"role": "user", "content": "hi"}])
    (recorded,) = sink
    assert recorded.machine_id == machine and recorded.origin == "sdk"


def test_an_invalid_override_never_loses_a_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv(MACHINE_ENV, "../../etc")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    claude = tmp_path / "claude"
    write_claude_sessions(claude, sessions=1, turns=3)
    with caplog.at_level(logging.WARNING):
        report = ingest(Sources(claude_dirs=[claude]), tmp_path / "ledger")
    records = _records(tmp_path / "ledger")
    assert report.records == len(records) > 0 and {r.machine_id for r in records} == {None}
    assert any("without a machine id" in m and "machine id" in m for m in caplog.messages)
    # Fixed later: the ledger gives the records without an id this machine's on its next load.
    monkeypatch.setenv(MACHINE_ENV, "fixed")
    write(tmp_path / "ledger", [record(records[0].ts, dedupe_key="late")])
    result = totals(["machine"], root=tmp_path / "ledger")
    assert [(r["machine"], r["calls"]) for r in result.rows] == [("fixed", len(records) + 1)]


def test_a_record_with_a_machine_id_that_cannot_name_a_directory_is_refused_on_load(
    tmp_path: Path, machine: str
) -> None:
    root = tmp_path / "ledger"
    write(root, [record(T0, dedupe_key="good"), record(T0, dedupe_key="bad")])
    path = next((root / "usage").glob("*.jsonl"))
    good, bad = path.read_bytes().splitlines()
    path.write_bytes(good + b"\n" + bad[:-1] + b',"machine_id":"../escape"}\n')
    result = totals(["machine"], root=root)
    assert [(r["machine"], r["calls"]) for r in result.rows] == [(machine, 1)]
