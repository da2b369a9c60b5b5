"""Under Codex, a failing then passing test run yields a test-fixed lesson once its exit codes are known.

Codex 0.171's PostToolUse carries a command's output only; hooks-capture reads the exit code from the rollout
the payload names (recorded from a real Codex in hooks-capture's test payloads). Without the rollout the
exit status is unknown, and an output without test counts teaches nothing: no lesson is made up.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ctxops_memory_store.candidates import harvest
from ctxops_memory_store.store import MemoryStore

RECORDED = Path(__file__).parents[2] / "hooks-capture" / "tests" / "payloads" / "codex-0.171.0-rollout-commands.jsonl"
OK_CALL, FAILED_CALL = "call_0dbbdb8d866240f88245a29e", "call_c3fb33c51cfd47b795bd7b58"


def _codex_hook(repo: Path, payload: dict[str, object]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ctxops_hooks_capture", "codex"],
        input=json.dumps(payload),
        text=True,
        capture_output=True,
        cwd=repo,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr


@pytest.mark.parametrize("with_rollout", [True, False])
def test_failing_then_passing_make_test_under_codex(repo: Path, tmp_path: Path, with_rollout: bool) -> None:
    rollout = tmp_path / "rollout-2026-12-02T00-28-41-01a23427.jsonl"
    shutil.copy(RECORDED, rollout)
    base = {"session_id": "s-codex", "turn_id": "t1", "cwd": str(repo), "hook_event_name": "PostToolUse"}
    base["transcript_path"] = str(rollout) if with_rollout else None
    for call, output in ((FAILED_CALL, "boom\n"), (OK_CALL, "all good\n")):
        _codex_hook(
            repo,
            {
                **base,
                "tool_name": "Bash",
                "tool_use_id": call,
                "tool_input": {"command": "make test"},
                "tool_response": output,
            },
        )
    store = MemoryStore(repo)
    harvest(store)
    lessons = [e for e in store.entries() if "tests" in e.tags]
    if with_rollout:
        (lesson,) = lessons
        assert lesson.title == "Tests fixed: make test" and "boom" in lesson.body
    else:
        assert lessons == []
