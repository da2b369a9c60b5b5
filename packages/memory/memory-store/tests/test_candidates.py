"""Candidates from real captured events: corrections, "remember:", failing-then-passing tests."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ctxops_memory_store.candidates import harvest, infer_kind
from ctxops_memory_store.store import MemoryStore


def _hook(repo: Path, payload: dict) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ctxops_hooks_capture", "claude-code"],
        input=json.dumps(payload),
        text=True,
        capture_output=True,
        cwd=repo,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr


def _session(repo: Path) -> None:
    base = {"session_id": "s-harvest", "cwd": str(repo), "transcript_path": "/t.jsonl"}
    steps = [
        {"hook_event_name": "UserPromptSubmit", "prompt": "fix the refund rounding"},
        {
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_use_id": "t1",
            "tool_input": {"command": "pytest -q tests/test_refunds.py"},
            "tool_response": {"stdout": "F\n1 failed, 2 passed in 0.05s", "stderr": ""},
        },
        {
            "hook_event_name": "PostToolUse",
            "tool_name": "Edit",
            "tool_use_id": "e1",
            "tool_input": {"file_path": f"{repo}/api/refunds.py", "old_string": "round(x)", "new_string": "q(x)"},
            "tool_response": {"filePath": f"{repo}/api/refunds.py"},
        },
        {"hook_event_name": "UserPromptSubmit", "prompt": "No, don't use round(); quantize the Decimal instead"},
        {
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_use_id": "t2",
            "tool_input": {"command": "pytest -q tests/test_refunds.py"},
            "tool_response": {"stdout": "...\n3 passed in 0.04s", "stderr": ""},
        },
        {
            "hook_event_name": "UserPromptSubmit",
            "prompt": "remember: refunds must be quantized to two places with ROUND_HALF_EVEN",
        },
    ]
    for step in steps:
        _hook(repo, {**base, **step})


def test_harvest_turns_events_into_entries(repo: Path) -> None:
    _session(repo)
    store = MemoryStore(repo)
    report = harvest(store)
    assert report.events_read == 6 and report.bad_lines == []
    by_tag = {e.tags[0]: e for e in store.entries()}
    correction = by_tag["correction"]
    assert correction.kind == "lesson" and correction.status == "pending"
    assert "quantize the Decimal" in correction.body and "file_modification" in correction.body
    assert correction.files == ["api/refunds.py"] and len(correction.source) == 2
    tests = by_tag["tests"]
    assert tests.status == "pending" and tests.files == ["api/refunds.py"]
    assert "1 failed, 2 passed" in tests.body and len(tests.source) == 2
    remembered = by_tag["remember"]
    assert remembered.status == "active" and remembered.kind == "constraint"
    assert remembered.title.startswith("refunds must be quantized")
    # Harvesting again reads nothing new and proposes nothing twice.
    again = harvest(store)
    assert again.events_read == 0 and again.new_entries == []


def test_a_lost_checkpoint_does_not_duplicate(repo: Path) -> None:
    _session(repo)
    store = MemoryStore(repo)
    first = harvest(store)
    (store.index_dir / "memory-harvest.json").unlink()
    second = harvest(MemoryStore(repo))
    assert len(first.new_entries) == 3
    assert second.events_read == 6 and second.new_entries == []


def test_infer_kind() -> None:
    assert infer_kind("we decided to use DuckDB for the ledger") == "decision"
    assert infer_kind("never push to main") == "constraint"
    assert infer_kind("I prefer short commit messages") == "preference"
    assert infer_kind("the worker lives in worker/") == "fact"
