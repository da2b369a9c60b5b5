"""The JSONL store under concurrency and after a killed writer: no line lost, none interleaved."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ctxops_contracts.shared.files import append_lines
from ctxops_hooks_capture.events_reader import ReadReport, read_events, read_new


def test_parallel_agents_lose_no_line(repo: Path, kit) -> None:
    """Eight processes at once (two agents, several sessions), each event a separate capture call."""
    per_process = 6
    big = "y" * 20_000  # large lines make interleaving visible if whole-line writes ever broke

    def agent(worker: int) -> int:
        failures = 0
        for n in range(per_process):
            payload = {
                "session_id": f"sess-{worker % 3}",
                "cwd": str(repo),
                "hook_event_name": "UserPromptSubmit",
                "prompt": f"worker {worker} prompt {n} {big}",
            }
            agent_name = "claude-code" if worker % 2 else "codex"
            done = kit.run_hook(agent_name, payload, cwd=repo)
            failures += done.returncode != 0 or done.stderr != b""
        return failures

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert sum(pool.map(agent, range(8))) == 0
    report = ReadReport()
    events = list(read_events(repo, report=report))
    assert report.bad_lines == []
    seen = sorted((e.text or "")[:25] for e in events)
    expected = sorted(f"worker {w} prompt {n} {big}"[:25] for w in range(8) for n in range(per_process))
    assert seen == expected
    for path in (repo / ".meta" / "events").glob("*.jsonl"):
        for line in path.read_bytes().splitlines():
            json.loads(line)  # every line is one whole JSON object


def test_a_truncated_last_line_is_skipped_and_reported(repo: Path, kit) -> None:
    kit.run_hook(
        "claude-code",
        {"session_id": "s", "cwd": str(repo), "hook_event_name": "SessionStart", "source": "startup"},
        cwd=repo,
    )
    day = next((repo / ".meta" / "events").glob("*.jsonl"))
    with day.open("ab") as fh:
        fh.write(b'{"schema_version":"1.0","id":"01M8K')  # what a writer killed mid-line leaves
    report = ReadReport()
    assert [e.kind for e in read_events(repo, report=report)] == ["session_start"]
    assert len(report.bad_lines) == 1 and day.name in report.bad_lines[0]
    # The next append starts on a fresh line, so only the damaged line is lost.
    kit.run_hook(
        "claude-code",
        {"session_id": "s", "cwd": str(repo), "hook_event_name": "SessionEnd", "reason": "other"},
        cwd=repo,
    )
    report = ReadReport()
    assert [e.kind for e in read_events(repo, report=report)] == ["session_start", "session_end"]
    assert len(report.bad_lines) == 1


def test_a_writer_killed_while_holding_the_lock_does_not_block_others(tmp_path: Path) -> None:
    target = tmp_path / "events.jsonl"
    script = (
        "import fcntl, os, sys, time\n"
        f"fd = os.open({str(target)!r}, os.O_WRONLY | os.O_APPEND | os.O_CREAT)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\n"
        "os.write(fd, b'{\"partial\": ')\n"
        "print('locked', flush=True)\n"
        "time.sleep(60)\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == b"locked"
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(timeout=10)
    finally:
        if holder.poll() is None:
            holder.kill()
    # lock_timeout=0: one attempt, so this raises LockBusy unless the kernel released the dead writer's lock
    append_lines(target, b'{"whole": 1}\n', lock_timeout=0.0)
    assert target.read_bytes() == b'{"partial": \n{"whole": 1}\n'


def test_read_new_stops_at_the_last_complete_line(repo: Path, kit) -> None:
    kit.run_hook(
        "claude-code",
        {"session_id": "s", "cwd": str(repo), "hook_event_name": "SessionStart", "source": "startup"},
        cwd=repo,
    )
    day = next((repo / ".meta" / "events").glob("*.jsonl"))
    events, offset = read_new(day, 0)
    assert len(events) == 1 and offset == day.stat().st_size
    with day.open("ab") as fh:
        fh.write(b'{"incomplete"')
    events, again = read_new(day, offset)
    assert events == [] and again == offset
