"""The capture path writes AgentEvent records without msgspec; the contract still decides what is valid.

``event_record.agent_event`` must carry exactly ``AgentEvent``'s fields, and every line the adapters write
must pass the strict ``ctxops_contracts.decode(AgentEvent, line)`` and re-encode to the very same bytes.
"""

from __future__ import annotations

import inspect
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from ctxops_contracts import AgentEvent, convert, decode, encode_line
from ctxops_hooks_capture.capture import PayloadError, capture, parse_payload
from ctxops_hooks_capture.event_record import agent_event, rfc3339
from ctxops_hooks_capture.jsontext import line

PAYLOADS = Path(__file__).parent / "payloads"
RECORDED_ROOT = "/home/dev/proj"
SESSIONS = Path(__file__).resolve().parents[4] / "examples" / "sessions"
SESSION_ROOT = "/tmp/ctxops-record/project"

_AGENT_OF_FILE = {
    "claude-code-2.1.197-hook-payloads.jsonl": "claude-code",
    "codex-hooks.jsonl": "codex",
    "codex-0.171.0-hook-payloads.jsonl": "codex",
    "codex-notify.json": "codex-notify",
    "cursor-hooks.jsonl": "cursor",
    "gemini-hooks.jsonl": "gemini",
    "gemini-cli-0.61.0-hook-payloads.jsonl": "gemini",
}


def _recorded_sets() -> list[Any]:
    sets = [pytest.param(PAYLOADS / name, agent, RECORDED_ROOT, id=name) for name, agent in _AGENT_OF_FILE.items()]
    for path in sorted(SESSIONS.glob("*/hook-payloads.jsonl")):
        sets.append(pytest.param(path, "claude-code", SESSION_ROOT, id=f"examples/sessions/{path.parent.name}"))
    return sets


def strict_lines(root: Path) -> list[AgentEvent]:
    """Every stored line decoded strictly; each must re-encode (msgspec) to exactly the bytes written."""
    events = []
    for path in sorted((root / ".meta" / "events").glob("*.jsonl")):
        for number, raw in enumerate(path.read_bytes().splitlines(keepends=True), 1):
            event = decode(AgentEvent, raw, where=f"{path.name}:{number}")
            assert encode_line(event) == raw, f"{path.name}:{number} differs from the contract's own encoding"
            events.append(event)
    return events


def test_agent_event_has_exactly_the_contract_fields() -> None:
    record = agent_event(id="01M8KQV68P7N974EY1E692FMT4", ts=datetime.now(UTC), agent="generic", kind="unknown")
    assert list(record) == list(AgentEvent.__struct_fields__)
    parameters = list(inspect.signature(agent_event).parameters)
    assert parameters == [f for f in AgentEvent.__struct_fields__ if f != "schema_version"]


def test_defaults_and_encoding_match_the_struct() -> None:
    ts = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
    record = agent_event(id="01M8KQV68P7N974EY1E692FMT4", ts=ts, agent="generic", kind="unknown")
    struct = AgentEvent(id="01M8KQV68P7N974EY1E692FMT4", ts=ts, agent="generic", kind="unknown")
    assert convert(AgentEvent, record) == struct
    assert line(record) == encode_line(struct)


def test_a_field_the_contract_lacks_is_refused() -> None:
    with pytest.raises(TypeError):
        agent_event(id="x", ts=datetime.now(UTC), agent="generic", kind="unknown", colour="red")  # type: ignore[call-arg]


@pytest.mark.parametrize("micro", [0, 1, 120000, 999999])
def test_timestamps_are_written_as_msgspec_writes_them(micro: int) -> None:
    ts = datetime(2026, 1, 2, 3, 4, 5, micro, tzinfo=UTC)
    assert json.dumps(rfc3339(ts)).encode() == encode_line(ts).rstrip(b"\n")  # type: ignore[arg-type]


@pytest.mark.parametrize(("path", "agent", "recorded_root"), _recorded_sets())
def test_every_recorded_payload_gives_strictly_valid_events(
    repo: Path, path: Path, agent: str, recorded_root: str
) -> None:
    text = path.read_text(encoding="utf-8").replace(recorded_root, str(repo))
    payloads = [json.loads(text)] if path.suffix == ".json" else [json.loads(x) for x in text.splitlines() if x.strip()]
    for payload in payloads:
        capture(agent, json.dumps(payload).encode(), cwd_fallback=str(repo))
    events = strict_lines(repo)
    assert events, f"{path.name} produced no events"
    assert {e.agent for e in events} == {"codex" if agent == "codex-notify" else agent}


def test_awkward_payloads_give_strictly_valid_events(repo: Path) -> None:
    base = {"session_id": "s\ud800-1", "cwd": str(repo), "hook_event_name": "PostToolUse", "tool_name": "Bash"}
    payloads: list[tuple[str, bytes]] = [
        # A lone surrogate escape, control characters, emoji, a byte-order mark.
        (
            "claude-code",
            json.dumps(
                {
                    **base,
                    "hook_event_name": "UserPromptSubmit",
                    "prompt": "Keep money in Decimal \ud800 \x01 😀\ufeff please",
                }
            ).encode(),
        ),
        # Invalid UTF-8 inside a string, huge exit codes, a float and a deeply nested response.
        (
            "claude-code",
            json.dumps({**base, "tool_use_id": "t1", "tool_input": {"command": "pytest -q"}}).encode()[:-1]
            + b', "tool_response": {"stdout": "\xff\xfe\\n1 failed, 3 passed in 0.12s",'
            b' "exit_code": 18446744073709551616, "x": 1.5e300, "deep": [[[[[[[[[[{"k": "v"}]]]]]]]]]]}}',
        ),
        (
            "generic",
            json.dumps({"kind": "test_result", "cwd": str(repo), "exit_status": -(2**70), "files": ["a.py"]}).encode(),
        ),
        ("claude-code", json.dumps({**base, "hook_event_name": "PreToolUse", "tool_use_id": "t2"}).encode()),
        ("claude-code", json.dumps({**base, "hook_event_name": "UserPromptSubmit", "prompt": "no, stop"}).encode()),
    ]
    for agent, data in payloads:
        capture(agent, data)
    events = strict_lines(repo)
    assert [e.kind for e in events] == ["user_message", "test_result", "test_result", "tool_call", "user_correction"]
    assert events[0].text is not None and "Decimal ? " in events[0].text and "😀" in events[0].text
    assert events[0].session_id == "s?-1"
    assert events[1].exit_status == 2**64 and (events[1].tests_passed, events[1].tests_failed) == (3, 1)
    raw = (repo / ".meta" / "events" / "raw").glob("*.jsonl")
    for path in raw:
        for raw_line in path.read_bytes().splitlines():
            json.loads(raw_line.decode("utf-8"))  # valid UTF-8 and standard JSON


@pytest.mark.parametrize("data", [b'{"a": NaN}', b'{"a": Infinity}', b'{"a": -Infinity}', b'{"a": 1e400}', b"[1, 2]"])
def test_payloads_the_contract_reader_could_not_read_back_are_refused(data: bytes) -> None:
    with pytest.raises(PayloadError):
        parse_payload(data)


def test_utc_now_writes_what_rfc3339_writes_for_the_same_instant() -> None:
    """The capture path stamps events without datetime: the text must equal the datetime-based form."""
    from datetime import UTC, datetime

    from ctxops_hooks_capture.event_record import rfc3339, utc_now

    for seconds, micro in [
        (0, 0),
        (1_764_547_200, 0),
        (1_764_547_200, 1),
        (1_798_761_599, 999_999),
        (951_782_400, 500),
    ]:
        expected = rfc3339(datetime.fromtimestamp(seconds, UTC).replace(microsecond=micro))
        assert utc_now(seconds * 1_000_000_000 + micro * 1000 + 999) == expected  # nanoseconds are dropped
    assert rfc3339("2026-12-01T00:00:00Z") == "2026-12-01T00:00:00Z"  # already written: kept as it is
