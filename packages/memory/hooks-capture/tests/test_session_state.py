"""The per-session state file: round trip, files written by earlier versions, damaged files start afresh."""

from __future__ import annotations

from pathlib import Path

import pytest
from ctxops_hooks_capture.session_state import PendingTool, SessionState, SessionStore


def test_round_trip(tmp_path: Path) -> None:
    store = SessionStore(str(tmp_path), "sess/1")
    state = store.load()
    state.remember("t1")
    state.pending["t2"] = PendingTool("Bash", 1700000000.5)
    state.last_step_id, state.interrupted_step_id = "01A", None
    store.save(state)
    again = store.load()
    assert again.seen_tool_use_ids == ["t1"] and again.last_step_id == "01A" and again.interrupted_step_id is None
    assert [(k, v.tool_name, v.started, v.summary) for k, v in again.pending.items()] == [
        ("t2", "Bash", 1700000000.5, "")
    ]
    assert Path(store.path).name == "sess_1.json"


def test_reads_a_state_written_by_the_msgspec_version(tmp_path: Path) -> None:
    store = SessionStore(str(tmp_path), "s")
    Path(store.path).write_bytes(
        b'{"seen_tool_use_ids":["a","b"],"pending":{"c":{"tool_name":null,"started":1700000000,"summary":""}},'
        b'"last_step_id":"01B","interrupted_step_id":"01C"}'
    )
    state = store.load()
    assert state.seen_tool_use_ids == ["a", "b"] and state.pending["c"].started == 1700000000.0
    assert (state.last_step_id, state.interrupted_step_id) == ("01B", "01C")


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"{not json",
        b"[]",
        b'{"seen_tool_use_ids": "a"}',
        b'{"pending": {"c": {"tool_name": "x", "started": "yesterday"}}}',
        b'{"pending": {"c": {"tool_name": "x", "started": true}}}',
        b'{"pending": []}',
        b'{"last_step_id": 7}',
        b"\xff\xfe\x00",
    ],
)
def test_a_damaged_state_starts_afresh(tmp_path: Path, content: bytes) -> None:
    store = SessionStore(str(tmp_path), "s")
    Path(store.path).write_bytes(content)
    state = store.load()
    assert (state.seen_tool_use_ids, state.pending, state.last_step_id) == ([], {}, None)
    assert isinstance(state, SessionState)


def test_a_shorter_state_replaces_a_longer_one_whole(tmp_path: Path) -> None:
    store = SessionStore(str(tmp_path), "s")
    state = store.load()
    for n in range(50):
        state.remember(f"tool-use-{n}")
    state.pending["p"] = PendingTool("Bash", 1.0, "x" * 500)
    store.save(state)
    longer = Path(store.path).stat().st_size
    short = SessionState()
    short.remember("only")
    store.save(short)
    assert Path(store.path).stat().st_size < longer
    again = store.load()
    assert (again.seen_tool_use_ids, again.pending) == (["only"], {})
    assert [p.name for p in tmp_path.joinpath(".state").iterdir()] == ["s.json"]  # no temporary file left
