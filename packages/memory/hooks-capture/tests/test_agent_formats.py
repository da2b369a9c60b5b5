"""Agent payload shapes the audit found misread, self-ignore, the usage line, and the error log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from ctxops_hooks_capture.cli import main
from ctxops_hooks_capture.self_ignore import is_own_command


def _gemini_shell(repo: Path, llm_content: str, error: object = None) -> dict[str, object]:
    response: dict[str, object] = {"llmContent": llm_content, "returnDisplay": llm_content}
    if error is not None:
        response["error"] = error
    return {
        "session_id": "g",
        "cwd": str(repo),
        "hook_event_name": "AfterTool",
        "timestamp": "2026-11-30T10:00:00Z",
        "tool_name": "run_shell_command",
        "tool_input": {"command": "npm run build"},
        "tool_response": response,
    }


@pytest.mark.parametrize(
    ("content", "status"),
    [
        (
            "Command: npm run build\nDirectory: (root)\nOutput: tsc failed\n"
            "Error: (none)\nExit Code: 2\nSignal: (none)",
            2,
        ),
        ("Command: npm run build\nOutput: ok\nExit Code: 0", 0),
        ("Output: built\n", 0),  # no status line and no error: the command ran and finished
    ],
)
def test_gemini_exit_code_comes_from_the_exit_code_line(repo: Path, capture_all, content: str, status: int) -> None:
    (event,) = capture_all("gemini", [_gemini_shell(repo, content)])
    assert event.kind == "command_execution" and event.exit_status == status


def test_gemini_error_object_is_a_failure_to_start(repo: Path, capture_all) -> None:
    (event,) = capture_all("gemini", [_gemini_shell(repo, "", error={"message": "spawn bash ENOENT"})])
    assert event.exit_status == 1


def test_cursor_shell_exit_status_is_unknown_not_zero(repo: Path, capture_all) -> None:
    payload = {
        "conversation_id": "c",
        "generation_id": "g",
        "workspace_roots": [str(repo)],
        "hook_event_name": "afterShellExecution",
        "command": "npm test",
        "output": "1 failing",
        "duration": 1200,
    }
    (event,) = capture_all("cursor", [payload])
    assert event.kind == "test_result" and event.exit_status is None


@pytest.mark.parametrize("agent", ["codex", "claude-code"])
def test_permission_request_is_a_tool_call_not_unknown(repo: Path, capture_all, agent: str) -> None:
    payload = {
        "session_id": "p",
        "turn_id": "t1",
        "cwd": str(repo),
        "hook_event_name": "PermissionRequest",
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf node_modules", "description": "clean install"},
        "permission_suggestions": [{"type": "addRules", "rules": [{"toolName": "Bash"}]}],
    }
    (event,) = capture_all(agent, [payload])
    assert event.kind == "tool_call" and event.event_name == "PermissionRequest"
    assert event.text == "Bash permission requested: rm -rf node_modules"


@pytest.mark.parametrize(
    ("command", "own"),
    [
        ("ctx mem harvest", True),
        ("uv run cq def Order | head -20", True),
        ("python -m ctxops_hooks_capture claude-code", True),
        ("CTXOPS_ROOT=/r ctx mem list", True),
        ("/usr/local/bin/cq refs x && cq callers x", True),
        ("pytest -q tests && ctx mem harvest", False),
        ("git commit -m 'notes (ctx dir)'", False),
        ("echo ctx", False),
        ("ctx mem list; rm -rf build", False),
        ("cat ctx.log | ctx mem add", False),
        ("make ctx", False),
    ],
)
def test_self_ignore_only_whole_ctxops_commands(command: str, own: bool) -> None:
    assert is_own_command(command) is own


def test_a_compound_command_with_a_ctx_step_is_kept(repo: Path, capture_all) -> None:
    payload = {
        "session_id": "s",
        "cwd": str(repo),
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_use_id": "b1",
        "tool_input": {"command": "pytest -q tests && ctx mem harvest"},
        "tool_response": {"stdout": "3 passed in 0.1s", "stderr": ""},
    }
    (event,) = capture_all("claude-code", [payload])
    assert event.kind == "test_result" and event.tests_passed == 3


def test_usage_names_the_command_typed(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    assert main(["--help"], prog="ctx hook") == 0
    assert capsys.readouterr().out.startswith("usage: ctx hook AGENT")
    monkeypatch.setenv("CTXOPS_PROG", "ctx hook")  # what ctx sets before running a package's command
    assert main(["--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: ctx hook AGENT")
    monkeypatch.delenv("CTXOPS_PROG")
    env = {k: v for k, v in os.environ.items() if k != "CTXOPS_PROG"}
    done = subprocess.run(
        [sys.executable, "-m", "ctxops_hooks_capture", "--help"], capture_output=True, text=True, check=False, env=env
    )
    assert done.returncode == 0 and done.stdout.startswith("usage: python -m ctxops_hooks_capture AGENT")


def test_the_error_log_never_holds_payload_bytes(repo: Path, kit) -> None:
    secret = "ghp_" + "M1n2B3v4C5x6Z7a8S9d0F1g2H3j4K5l6P7o8"
    bad = ('{"session_id": "s", "cwd": "' + str(repo) + '", "prompt": "' + secret + '", oops').encode()
    done = kit.run_hook("claude-code", bad, cwd=repo)
    assert done.returncode == 0 and done.stdout == b""
    log = (repo / ".meta" / "logs" / "hooks-capture.log").read_text(encoding="utf-8")
    assert "malformed JSON payload" in log and "line 1 column" in log
    for leak in (secret, secret[:12], "session_id", str(repo) + '", "prompt'):
        assert leak not in log
        assert leak not in done.stderr.decode()
    assert (repo / ".meta" / ".gitignore").is_file()  # the first write under .meta/ keeps it out of git


def test_raw_payload_keeps_no_secret_under_a_secret_named_key(repo: Path, capture_all) -> None:
    payload = {
        "session_id": "s",
        "cwd": str(repo),
        "hook_event_name": "PostToolUse",
        "tool_name": "mcp__vault__read",
        "tool_use_id": "m1",
        "tool_input": {"path": "secret/db"},
        "tool_response": {"data": {"password": {"current": "Zq9-mX2-vB7-pL4", "rotated": 3}, "user": "app"}},
    }
    capture_all("claude-code", [payload])
    stored = "".join(p.read_text(encoding="utf-8") for p in (repo / ".meta" / "events").rglob("*.jsonl"))
    assert "Zq9-mX2" not in stored and '"user":"app"' in stored
    raw = json.loads(next((repo / ".meta" / "events" / "raw").glob("*.jsonl")).read_text(encoding="utf-8"))
    assert raw["payload"]["tool_response"]["data"]["password"] == "[REDACTED:secret]"
