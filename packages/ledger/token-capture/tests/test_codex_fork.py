"""Codex forks, from rollouts the real Codex CLI 0.171 wrote (tests/data/codex-0.171.0-fork/README.md):
a forked child's own turns are the child's, copied parent turns count once, under the parent."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from ctxops_token_capture.ingest import Sources, ingest
from ctxops_token_capture.totals import totals
from ledger_records import records_in

DATA = Path(__file__).parent / "data" / "codex-0.171.0-fork"
PARENT = "01a22fd8-beb1-7611-9199-9b68f863a31e"
CHILD = "01a22fd8-c12e-75d1-a178-12b768e91c01"


def _home(tmp_path: Path, prefix: str) -> Path:
    home = tmp_path / "codex"
    day = home / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    for path in sorted(DATA.glob(f"{prefix}-rollout-*.jsonl")):
        shutil.copy(path, day / path.name.removeprefix(f"{prefix}-"))
    return home


def _sessions(root: Path) -> dict[str, dict[str, int]]:
    return {r["session"]: r for r in totals(["session"], root=root).rows}


def _child_file(home: Path) -> Path:
    (path,) = home.glob(f"sessions/**/rollout-*{CHILD}.jsonl")
    return path


def test_a_spawned_childs_own_turn_is_the_childs(tmp_path: Path) -> None:
    home, root = _home(tmp_path, "spawn"), tmp_path / "ledger"
    ingest(Sources(codex_homes=[home]), root)
    rows = _sessions(root)
    # What the server sent: the parent 1000, 2000, 3000, 5000 input tokens; the child 4000 (its one turn).
    assert rows[PARENT]["calls"] == 4 and rows[PARENT]["input_tokens"] == 11_000
    assert rows[PARENT]["output_tokens"] == 110
    assert rows[CHILD]["calls"] == 1 and rows[CHILD]["input_tokens"] == 4_000
    assert rows[CHILD]["output_tokens"] == 40
    by_session = {r.session_id: r for r in records_in(root)}
    assert by_session[CHILD].parent_session_id == PARENT
    assert by_session[PARENT].parent_session_id is None


@pytest.mark.parametrize("ordinals", [True, False], ids=["by-ordinal", "no-ordinals-by-timestamp"])
def test_copied_parent_turns_count_once_under_the_parent(tmp_path: Path, ordinals: bool) -> None:
    home, root = _home(tmp_path, "spawn"), tmp_path / "ledger"
    # A copy that carries the parent's first token_count among its history (ordinal below the child's own
    # start, 16), as a fork that copies the whole history writes it; without ordinals (older rollouts) the
    # copied line is known by its timestamp, older than the fork's session_meta.
    child = _child_file(home)
    (parent,) = home.glob(f"sessions/**/rollout-*{PARENT}.jsonl")
    first_count = next(line for line in parent.read_text().splitlines() if '"token_count"' in line)
    lines = [json.loads(line) for line in child.read_text().splitlines()]
    at = next(i for i, entry in enumerate(lines) if entry["ordinal"] == 12)
    lines.insert(at, json.loads(first_count) | {"ordinal": 12})
    if not ordinals:
        for entry in lines:
            del entry["ordinal"]
    child.write_text("".join(json.dumps(entry) + "\n" for entry in lines))
    ingest(Sources(codex_homes=[home]), root)
    rows = _sessions(root)
    assert rows[PARENT]["calls"] == 4 and rows[PARENT]["input_tokens"] == 11_000  # not 5 calls, 12,000
    assert rows[CHILD]["calls"] == 1 and rows[CHILD]["input_tokens"] == 4_000


def test_the_child_alone_keeps_its_name_across_incremental_reads(tmp_path: Path) -> None:
    home, root = _home(tmp_path, "spawn"), tmp_path / "ledger"
    (next(home.glob(f"sessions/**/rollout-*{PARENT}.jsonl"))).unlink()
    child = _child_file(home)
    lines = child.read_text().splitlines()
    # First read: the child's session_meta and the copied parent's; the rest is appended afterwards.
    child.write_text("\n".join(lines[:4]) + "\n")
    ingest(Sources(codex_homes=[home]), root)
    with child.open("a") as handle:
        handle.write("\n".join(lines[4:]) + "\n")
    ingest(Sources(codex_homes=[home]), root)
    rows = _sessions(root)
    assert set(rows) == {CHILD} and rows[CHILD]["input_tokens"] == 4_000


def test_an_exec_fork_counts_only_the_childs_own_turns(tmp_path: Path) -> None:
    home, root = _home(tmp_path, "fork"), tmp_path / "ledger"
    ingest(Sources(codex_homes=[home]), root)
    rows = _sessions(root)
    parent, child = "01a22fd7-158c-7601-8765-dee400ebb15b", "01a22fd7-1cc7-7010-a149-5102d61a253e"
    # Each side answered two requests of 15,934 and 23,589 input tokens; the child's running totals go on
    # from the parent's (55,457 after its first turn), which must not be read as its usage.
    for session in (parent, child):
        assert rows[session]["calls"] == 2
        assert rows[session]["input_tokens"] + rows[session]["cache_read_tokens"] == 15_934 + 23_589
        assert rows[session]["output_tokens"] == 488 + 284
    assert {r.parent_session_id for r in records_in(root) if r.session_id == child} == {parent}
