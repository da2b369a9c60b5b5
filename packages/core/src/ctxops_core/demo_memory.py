"""The memory line's `ctx demo` step: hook payloads through the real capture command, then the store."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from ctxops_contracts.shared.cli import plural
from ctxops_hooks_capture.events_reader import read_events
from ctxops_memory_store.candidates import harvest
from ctxops_memory_store.store import MemoryStore

FAKE_KEY = "sk-proj-DEMO0123456789abcdef"


def _payloads(repo: Path) -> list[dict[str, Any]]:
    base = {"session_id": "demo-session", "cwd": str(repo), "transcript_path": "/tmp/demo.jsonl"}
    refunds = str(repo / "api" / "payments" / "callbacks.py")
    test = "python -m pytest -q api/tests/test_callbacks.py"
    return [
        {**base, "hook_event_name": "SessionStart", "source": "startup"},
        {**base, "hook_event_name": "UserPromptSubmit", "prompt": "make partial refunds exact"},
        {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_name": "Read",
            "tool_use_id": "t1",
            "tool_input": {"file_path": refunds},
            "tool_response": {"file": {"filePath": refunds}},
        },
        {
            **base,
            "hook_event_name": "PostToolUseFailure",
            "tool_name": "Bash",
            "tool_use_id": "t2",
            "tool_input": {"command": f"export OPENAI_API_KEY={FAKE_KEY} && {test}"},
            "error": "Exit code 1\nF.\n1 failed, 1 passed in 0.04s",
            "is_interrupt": False,
        },
        {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_name": "Edit",
            "tool_use_id": "t3",
            "tool_input": {"file_path": refunds, "old_string": "round(x, 2)", "new_string": "float(x)"},
            "tool_response": {"filePath": refunds},
        },
        {
            **base,
            "hook_event_name": "UserPromptSubmit",
            "prompt": "No, never use float for money: quantize the Decimal instead",
        },
        {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_use_id": "t4",
            "tool_input": {"command": test},
            "tool_response": {"stdout": "..\n2 passed in 0.03s", "stderr": ""},
        },
        {**base, "hook_event_name": "Stop", "last_assistant_message": "Refunds now quantize to cents."},
    ]


def step_memory(ctx: Any) -> list[str]:
    repo: Path = ctx.repo
    timings = []
    for payload in _payloads(repo):
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "ctxops_core", "hook", "claude-code"],  # what `ctx init` wires
            input=json.dumps(payload),
            text=True,
            cwd=repo,
            capture_output=True,
            check=True,
            timeout=60,
        )
        timings.append((time.perf_counter() - started) * 1000)
    events = list(read_events(repo))
    kinds = Counter(e.kind for e in events)
    redacted = next(e.command for e in events if e.command and "OPENAI_API_KEY" in e.command)
    leaked = any(FAKE_KEY.encode() in p.read_bytes() for p in (repo / ".meta").rglob("*") if p.is_file())
    store = MemoryStore(repo)
    harvest(store)  # the session digest at Stop may have harvested already: then this finds nothing new
    candidates = [e for e in store.entries() if e.status == "pending"]
    lesson = next(e for e in candidates if "correction" in e.tags)
    digest = next((e for e in store.entries() if e.kind == "summary"), None)
    store.accept(lesson.id)
    found = store.find("float money refunds")
    rank = next((i for i, (entry, _) in enumerate(found.hits, 1) if entry.id == lesson.id), None)
    return [
        f"{len(timings)} agent events through `ctx hook claude-code`, each a fresh process as Claude Code runs it "
        f"(median {statistics.median(timings):.0f} ms) -> {plural(len(events), 'stored event')}: "
        + ", ".join(f"{k} x{n}" if n > 1 else k for k, n in kinds.items()),
        f"redacted before disk: {redacted[:52]}..." + ("" if not leaked else "  (LEAKED!)"),
        f"correction -> lesson candidate ({lesson.status}): {lesson.title[:60]!r}",
        "session digest written at Stop: "
        + (repr(digest.title[:60]) if digest else "none (memory-inject not installed)"),
        f"harvest: {plural(len(candidates), 'candidate')} for review, the lesson accepted; a search for "
        f"'float money refunds' (BM25 in {found.engine}) finds {plural(len(found.hits), 'memory', 'memories')}, "
        f"the lesson at rank {rank}",
    ]
