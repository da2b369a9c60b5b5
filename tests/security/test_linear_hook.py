"""Promise 2 end to end: `ctx hook claude-code`, a real process, on outputs built to hang it.

Each output is a megabyte on one line (base64, one repeated character, a repeated opener of a terminal
code...) or a flood of short lines, handed to the hook as a PostToolUse of a Bash call; the same goes
through the guard's spool as the PreToolUse wrapper writes it. Before issue 21, a 30,000-character base64
line took the guard over 16 s and a megabyte over an hour. Here every one finishes in a few seconds, with
exit status 0 and nothing but the agent's JSON on stdout.

In process: the summarizers scan a bounded window and say how much of the middle they did not scan,
and a line cut before the patterns still reports its whole length.
"""

from __future__ import annotations

import base64
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ctxops_memory_inject.guard.folding import MAX_LINE, MAX_SCAN_HEAD, MAX_SCAN_TAIL, bounded, cap_line, clip
from ctxops_memory_inject.guard.summarize import summarize

MB = 1_000_000
WALL_LIMIT = 15.0  # seconds, on a busy machine; the hook takes well under a second of CPU for these
CPU_LIMIT = 3.0  # CPU seconds of the hook process


def _b64(size: int) -> str:
    return (base64.b64encode(os.urandom(3 * 65536)).decode() * (size // 262144 + 1))[:size]


OUTPUTS = {
    "base64 line": lambda: _b64(MB),
    "a": lambda: "a" * MB,
    "spaces": lambda: " " * MB,
    "slashes": lambda: "/" * MB,
    "dots": lambda: "." * MB,
    "colons": lambda: ":" * MB,
    "digits": lambda: "1" * MB,
    "a.": lambda: "a." * (MB // 2),
    "OSC openers": lambda: "\x1b]" * (MB // 2),
    "percent bar": lambda: " " * (MB - 3) + "5%|",
    "quotes and backslashes": lambda: '"\\' * (MB // 2),
    "pytest summary prefix": lambda: "= 1 passed" * (MB // 10),
    "empty lines": lambda: "\n" * MB,
    "short lines": lambda: "x.py:1: E\n" * (MB // 10),
    "File quotes": lambda: 'File "' * (MB // 6),
}


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".meta").mkdir()
    return root


def ctx_hook(payload: dict[str, object], cwd: Path) -> tuple[subprocess.CompletedProcess[bytes], float, float]:
    """``ctx hook claude-code`` as the agent runs it; (the run, its wall seconds, its CPU seconds)."""
    script = "import sys; from ctxops_core.cli import main; sys.exit(main())"  # what the `ctx` script runs
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", script, "hook", "claude-code"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return done, wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def post(repo: Path, command: str, stdout: str, use_id: str) -> dict[str, object]:
    return {
        "session_id": "s-linear",
        "cwd": str(repo),
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_use_id": use_id,
        "tool_input": {"command": command},
        "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False},
    }


def assert_fast_and_quiet(done: subprocess.CompletedProcess[bytes], wall: float, cpu: float, repo: Path) -> str:
    assert done.returncode == 0, done.stderr[-2000:]
    assert wall < WALL_LIMIT and cpu < CPU_LIMIT, (wall, cpu)
    assert not (repo / ".meta" / "logs" / "guard.log").exists()
    if not done.stdout.strip():
        return ""
    answer = json.loads(done.stdout)  # only the agent's JSON on stdout
    return str(answer["hookSpecificOutput"]["updatedToolOutput"]["stdout"])


@pytest.mark.slow
@pytest.mark.parametrize("name", list(OUTPUTS))
def test_a_megabyte_built_to_backtrack_passes_the_hook_in_seconds(repo: Path, name: str) -> None:
    output = OUTPUTS[name]()
    for n, command in enumerate(("base64 -w0 blob.bin", "pytest -q", "tsc --noEmit", "git diff")):
        done, wall, cpu = ctx_hook(post(repo, command, output, f"t-{n}"), repo)
        summary = assert_fast_and_quiet(done, wall, cpu, repo)
        assert len(summary) < len(output) // 2  # summarized, or left alone (then nothing is printed)


@pytest.mark.slow
def test_a_megabyte_line_through_the_guards_spool(repo: Path, tmp_path: Path) -> None:
    """The PreToolUse wrapper tees the output to the spool; PostToolUse reads it in full: still seconds."""
    blob = tmp_path / "line.b64"
    blob.write_text(_b64(MB - 1000) + "\n" + "FAILED tests/test_x.py::test_y - AssertionError\n", encoding="utf-8")
    pre: dict[str, object] = {
        "session_id": "s-linear",
        "cwd": str(repo),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_use_id": "t-spool",
        "tool_input": {"command": f"cat {blob}; make --version > /dev/null 2>&1"},  # a build: wrapped
    }
    done, _, _ = ctx_hook(pre, repo)
    wrapped = json.loads(done.stdout)["hookSpecificOutput"]["updatedInput"]["command"]
    shell = subprocess.run(["bash", "-c", wrapped], capture_output=True, text=True, cwd=repo, check=False)
    # The wrapper printed an excerpt, the megabyte of base64 (random bytes: a generated token) redacted whole.
    assert "[ctxops-exit" in shell.stdout and "[REDACTED:high-entropy]" in shell.stdout
    assert len(shell.stdout) < 10_000
    done, wall, cpu = ctx_hook(post(repo, wrapped, shell.stdout, "t-spool"), repo)
    summary = assert_fast_and_quiet(done, wall, cpu, repo)
    assert "FAILED tests/test_x.py::test_y" in summary  # read from the spool: the line after the megabyte
    assert "[REDACTED:high-entropy]" in summary and len(summary) < 10_000


def test_the_summarizers_scan_a_bounded_window_and_say_what_they_left() -> None:
    head = "".join(f"ok line {i}\n" for i in range(60_000))
    middle = "FAILED in the middle\n" + "x\n" * 500_000
    tail = "".join(f"ok tail {i}\n" for i in range(40_000)) + "FAILED tests/a.py::test_end - boom\n"
    text = head + middle + tail
    window, lines, chars = bounded(text)
    assert len(window) <= MAX_SCAN_HEAD + MAX_SCAN_TAIL
    assert window.startswith("ok line 0\n") and window.endswith("test_end - boom\n")
    assert window.count("\n") + lines == text.count("\n") and len(window) + chars == len(text)  # whole lines
    assert bounded("short\n") == ("short\n", 0, 0)
    summary = summarize("generic", "generic", text)
    assert summary[0].startswith(f"(output of {len(text):,} characters: the middle {lines:,} lines")
    assert any("test_end - boom" in line for line in summary)
    assert not any("in the middle" in line for line in summary)  # not scanned: counted, and saved in full


def test_a_line_is_cut_before_the_patterns_and_keeps_its_length() -> None:
    line = "E" * (MAX_LINE + 1234)
    capped = cap_line(line)
    assert capped.startswith("E" * MAX_LINE) and capped.endswith(" …[1234 chars cut]")
    assert clip(capped) == f"{'E' * 400} …[{len(line) - 400} chars cut]"  # what the reader sees counts it all
    assert clip("short") == "short" and cap_line("short") == "short"
    assert clip("x" * 500) == f"{'x' * 400} …[100 chars cut]"


@pytest.mark.slow
def test_a_payload_of_millions_of_tokens_is_read_from_its_prefix_and_left_alone(repo: Path) -> None:
    """Parsing costs by tokens: a payload of a million short strings is read from its first 256 kB (in bounded
    time), and the guard does not answer from a payload it did not read whole (a re-read's digest, a
    summary, would describe a part as the whole): the output stays as the tool gave it."""
    payload = post(repo, "pytest -q", '"x", ' * 200_000 + "FAILED x", "t-tokens")
    payload["tool_response"] = {**payload["tool_response"], "lines": ["x"] * 1_000_000}  # type: ignore[dict-item]
    done, wall, cpu = ctx_hook(payload, repo)
    assert assert_fast_and_quiet(done, wall, cpu, repo) == ""
    assert list((repo / ".meta" / "events").glob("*.jsonl"))  # captured all the same
