"""ULIDs, protocols and the generated JSON Schemas."""

from __future__ import annotations

import json
from pathlib import Path

import ctxops_contracts as c
from ctxops_contracts import schemas


def test_ulids_are_unique_sorted_and_well_formed() -> None:
    ids = [c.new_ulid() for _ in range(2000)]
    assert len(set(ids)) == len(ids)
    assert ids == sorted(ids)
    assert all(c.is_ulid(i) for i in ids)


def test_ulid_carries_its_timestamp() -> None:
    assert c.ulid_timestamp_ms(c.new_ulid(now_ms=1_700_000_000_123)) == 1_700_000_000_123


def test_is_ulid_rejects_garbage() -> None:
    assert not c.is_ulid("not-a-ulid")
    assert not c.is_ulid("8" + "0" * 25)  # would overflow 128 bits
    assert not c.is_ulid("0" * 25 + "U")  # U is not in Crockford's alphabet


def test_checked_in_schemas_are_current() -> None:
    assert schemas.stale_files(schemas.DEFAULT_DIR) == [], "run: uv run python -m ctxops_contracts.schemas --write"


def test_schema_check_detects_drift(tmp_path: Path) -> None:
    schemas.write(tmp_path)
    assert schemas.stale_files(tmp_path) == []
    (tmp_path / "Symbol.json").write_text("{}", encoding="utf-8")
    (tmp_path / "Old.json").write_text("{}", encoding="utf-8")
    assert schemas.stale_files(tmp_path) == ["Symbol.json", "Old.json"]
    assert schemas.main(["--check", str(tmp_path)]) == 1


def test_schema_describes_required_fields() -> None:
    symbol = json.loads((schemas.DEFAULT_DIR / "Symbol.json").read_text(encoding="utf-8"))
    definition = symbol["$defs"]["Symbol"]
    assert {"id", "name", "kind", "path", "line"} <= set(definition["required"])


class _ListSink:
    def __init__(self) -> None:
        self.events: list[c.AgentEvent] = []

    def append(self, event: c.AgentEvent) -> None:
        self.events.append(event)


class _CharCounter:
    name = "chars/4"
    exact = False

    def count(self, text: str) -> int:
        return len(text) // 4


def test_protocols_are_structural() -> None:
    assert isinstance(_ListSink(), c.EventSink)
    assert isinstance(_CharCounter(), c.TokenCounter)
    assert not isinstance(object(), c.EventSink)
