"""The gate core's `ctx hook` asks before importing the guard's handlers: whenever it says "passes", the
handlers leave the event untouched too, and the usual small Bash output is decided there."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from ctxops_memory_inject.guard import gate, handle_event

RUNS = Path(__file__).parent / "runs"
LONG = (RUNS / "pytest-q.out").read_text(encoding="utf-8")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".meta").mkdir()
    (root / ".meta" / "config.toml").write_text('[guard]\naccounting = "off"\n', encoding="utf-8")
    monkeypatch.setenv("CTXOPS_DATA_DIR", str(tmp_path / "data"))
    return root


def bash(root: Path, command: str, stdout: object, stderr: str = "", event: str = "PostToolUse") -> dict:
    response = {"stdout": stdout, "stderr": stderr, "interrupted": False, "isImage": False}
    return {
        "session_id": "s1",
        "cwd": str(root),
        "hook_event_name": event,
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_response": response,
        "tool_use_id": "toolu_1",
    }


def cases(root: Path) -> list[tuple[str, dict, str]]:
    readme = root / "notes.txt"
    readme.write_text("a line of notes\n" * 40, encoding="utf-8")
    return [
        ("small", bash(root, "pytest -q", "1 passed in 0.01s\n"), "claude-code"),
        ("small with stderr", bash(root, "make", "built\n", "warning: x\n"), "claude-code"),
        ("long", bash(root, "pytest -q", LONG), "claude-code"),
        ("long stderr", bash(root, "pytest -q", "", LONG), "claude-code"),
        ("trailer", bash(root, "pytest -q", "1 failed\n[ctxops-exit 1]\n"), "claude-code"),
        ("cat re-read", bash(root, f"cat {readme}", readme.read_text()), "claude-code"),
        ("no stdout", bash(root, "true", None), "claude-code"),
        ("codex", bash(root, "pytest -q", LONG), "codex"),
        ("pre tool use", bash(root, "pytest -q", "", event="PreToolUse"), "claude-code"),
        ("read", {**bash(root, "", ""), "tool_name": "Read", "tool_response": {"type": "text"}}, "claude-code"),
    ]


CONFIGS = [
    '[guard]\naccounting = "off"\n',
    '[guard]\naccounting = "off"\nmin_chars = 5\n',
    '[guard]\naccounting = "off"\nread_dedupe = false\n',
    '[guard]\naccounting = "off"\n[guard.tools]\nBash = false\n',
    '[guard]\naccounting = "off"\nenabled = false\n',
    "[guard\nbroken",
]


@pytest.mark.parametrize("config", CONFIGS)
def test_what_the_gate_passes_the_handlers_leave_untouched(repo: Path, config: str) -> None:
    (repo / ".meta" / "config.toml").write_text(config, encoding="utf-8")
    passed = []
    for name, payload, agent in cases(repo):
        if gate.passes(payload, str(repo), agent=agent):
            passed.append(name)
            assert handle_event(payload, str(repo), agent=agent) is None, name
    assert "trailer" not in passed and "read" not in passed and "pre tool use" not in passed
    assert "codex" in passed and "no stdout" in passed


def test_the_usual_small_output_is_decided_by_the_gate(repo: Path) -> None:
    found = {name: gate.passes(payload, str(repo), agent=agent) for name, payload, agent in cases(repo)}
    assert found["small"] and found["small with stderr"]
    assert not found["long"] and not found["long stderr"] and not found["cat re-read"]
    (repo / ".meta" / "config.toml").write_text("[guard]\nmin_chars = 5\n", encoding="utf-8")
    os.utime(repo / ".meta" / "config.toml", ns=(1, 1))  # another key for the cached table
    assert not gate.passes(cases(repo)[0][1], str(repo))  # the threshold comes from the config


def test_what_the_gate_cannot_decide_goes_to_the_handlers(repo: Path) -> None:
    small = bash(repo, "pytest -q", "1 passed\n")
    assert gate.passes(small, str(repo))
    assert not gate.passes(small, 5)  # type: ignore[arg-type]  # the settings cannot be read: no decision


def test_importing_the_gate_does_not_import_the_handlers() -> None:
    probe = "import sys, ctxops_memory_inject.guard.gate; print('ctxops_memory_inject.guard.hook' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
