"""Records: round trips, strict decoding, field-naming errors, version refusal."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import ctxops_contracts as c
import msgspec
import pytest
from ctxops_contracts.records import ALL_RECORDS

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def sample_records() -> list[msgspec.Struct]:
    return [
        c.AgentEvent(id=c.new_ulid(), ts=NOW, agent="claude-code", kind="file_read", files=["api/app.py"]),
        c.MemoryEntry(id=c.new_ulid(), kind="lesson", title="Use Decimal for money", created_at=NOW, tags=["money"]),
        c.Symbol(
            id="python api/orders.py OrderStateMachine#transition().",
            name="transition",
            qualname="OrderStateMachine.transition",
            kind="method",
            lang="python",
            path="api/orders.py",
            line=10,
            end_line=20,
            signature="(self, event: str) -> OrderState",
        ),
        c.Reference(symbol_name="transition", path="api/payments.py", line=5, role="call"),
        c.Edge(src="a", dst="b", kind="call", confidence="import-resolved"),
        c.FileRecord(path="api/orders.py", lang="python", size=100, mtime_ns=1, content_hash="ab"),
        c.QueryResult(command="def", query="transition", hits=[c.QueryHit(path="api/orders.py", line=10)], total=1),
        c.UsageRecord(
            id=c.new_ulid(),
            ts=NOW,
            provider="anthropic",
            model="claude-sonnet-4-5",
            origin="transcript",
            dedupe_key="msg_1:req_1",
            input_tokens=10,
            attribution=[c.Attribution(tool="Read", files=["a.py"], bytes=100, tokens=25)],
        ),
        c.ContextRecord(
            id=c.new_ulid(),
            ts=NOW,
            action="guard",
            agent="claude-code",
            hook="PostToolUse",
            tool_name="Bash",
            command="pytest -q",
            tokens=120,
            tokens_before=4800,
            output_id="out-1",
        ),
    ]


@pytest.mark.parametrize("record", sample_records(), ids=lambda r: type(r).__name__)
def test_round_trip(record: msgspec.Struct) -> None:
    assert c.decode(type(record), c.encode(record)) == record
    assert c.convert(type(record), c.to_builtins(record)) == record


def test_every_record_type_has_a_sample() -> None:
    covered = {type(r) for r in sample_records()} | {c.QueryHit, c.Attribution}
    assert covered == set(ALL_RECORDS)


def test_records_are_frozen() -> None:
    ref = c.Reference(symbol_name="f", path="a.py", line=1, role="call")
    with pytest.raises(AttributeError):
        ref.line = 2  # type: ignore[misc]


def test_wrong_type_names_the_field() -> None:
    with pytest.raises(c.ContractError) as info:
        c.decode(c.Reference, b'{"symbol_name":"f","path":"a.py","line":"7","role":"call"}')
    assert "$.line" in str(info.value)
    assert "Reference" in str(info.value)


def test_no_silent_coercion_of_numbers_from_strings() -> None:
    with pytest.raises(c.ContractError, match=r"\$\.input_tokens"):
        c.convert(
            c.UsageRecord,
            {
                "id": "x",
                "ts": "2026-01-01T00:00:00Z",
                "provider": "p",
                "model": "m",
                "origin": "proxy",
                "dedupe_key": "k",
                "input_tokens": "12",
            },
        )


def test_negative_token_count_rejected() -> None:
    with pytest.raises(c.ContractError, match=r"\$\.output_tokens"):
        c.convert(
            c.UsageRecord,
            {
                "id": "x",
                "ts": "2026-01-01T00:00:00Z",
                "provider": "p",
                "model": "m",
                "origin": "proxy",
                "dedupe_key": "k",
                "output_tokens": -1,
            },
        )


def test_missing_required_field_named() -> None:
    with pytest.raises(c.ContractError, match="role"):
        c.decode(c.Reference, b'{"symbol_name":"f","path":"a.py","line":3}')


def test_unknown_enum_value_named() -> None:
    with pytest.raises(c.ContractError, match=r"\$\.kind"):
        c.convert(c.Edge, {"src": "a", "dst": "b", "kind": "teleport", "confidence": "exact"})


def test_naive_timestamp_refused() -> None:
    raw = c.to_builtins(sample_records()[0])
    raw["ts"] = "2026-11-29T12:00:00"
    with pytest.raises(c.ContractError, match=r"\$\.ts"):
        c.convert(c.AgentEvent, raw)


def test_other_time_zones_kept() -> None:
    ts = datetime(2026, 11, 29, 20, 0, tzinfo=timezone(timedelta(hours=8)))
    event = c.AgentEvent(id="e", ts=ts, agent="generic", kind="session_start")
    assert c.decode(c.AgentEvent, c.encode(event)).ts == NOW.replace(hour=12)


def test_not_json_is_a_contract_error() -> None:
    with pytest.raises(c.ContractError, match="not valid JSON"):
        c.decode(c.AgentEvent, b"{not json")


def test_newer_minor_version_accepted_with_unknown_fields() -> None:
    raw = c.to_builtins(sample_records()[0])
    raw["schema_version"] = "1.7"
    raw["field_from_the_future"] = {"x": 1}
    event = c.convert(c.AgentEvent, raw)
    assert event.files == ["api/app.py"]


@pytest.mark.parametrize("found", ["2.0", "0.9"])
def test_unknown_major_version_refused(found: str) -> None:
    raw = c.to_builtins(sample_records()[0])
    raw["schema_version"] = found
    with pytest.raises(c.UnsupportedSchemaVersion, match=f"schema_version {found}"):
        c.convert(c.AgentEvent, raw, where="events.jsonl:3")


def test_malformed_version_refused() -> None:
    with pytest.raises(c.UnsupportedSchemaVersion, match="malformed"):
        c.check_schema_version("one")


def test_decode_lines_reports_bad_lines_and_keeps_going() -> None:
    good = c.encode_line(sample_records()[0])
    lines = [
        good,
        b"{broken\n",
        b"\n",
        good,
        b'{"id":"x"',  # truncated last line
    ]
    out = list(c.decode_lines(c.AgentEvent, lines, where="e.jsonl"))
    assert [type(o).__name__ for o in out] == ["AgentEvent", "ContractError", "AgentEvent", "ContractError"]
    assert "e.jsonl:2" in str(out[1])
    assert "e.jsonl:5" in str(out[3])


def test_encode_line_is_one_line() -> None:
    line = c.encode_line(c.AgentEvent(id="e", ts=NOW, agent="generic", kind="user_message", text="a\nb"))
    assert line.endswith(b"\n") and line.count(b"\n") == 1


def test_persisted_records_carry_the_schema_version() -> None:
    for record in sample_records():
        if type(record) in c.PERSISTED_RECORDS:
            assert c.to_builtins(record)["schema_version"] == c.SCHEMA_VERSION
