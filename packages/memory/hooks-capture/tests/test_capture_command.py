"""The capture command as agents run it: a subprocess that always exits 0, prints nothing, logs failures."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def _prompt(repo: Path, text: str, session: str = "s1") -> dict[str, str]:
    return {"session_id": session, "cwd": str(repo), "hook_event_name": "UserPromptSubmit", "prompt": text}


def _log(repo: Path) -> str:
    path = repo / ".meta" / "logs" / "hooks-capture.log"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def test_a_prompt_is_stored_and_stdout_stays_empty(repo: Path, kit) -> None:
    done = kit.run_hook("claude-code", _prompt(repo, "add a refund endpoint"), cwd=repo)
    assert done.returncode == 0
    assert done.stdout == b""  # UserPromptSubmit stdout would become context for the model
    (event,) = kit.events_of(repo)
    assert event.kind == "user_message" and event.text == "add a refund endpoint"


def test_echo_prints_events_only_when_asked(repo: Path, kit) -> None:
    done = kit.run_hook("claude-code", _prompt(repo, "hello"), cwd=repo, args=["--echo"])
    assert json.loads(done.stdout)["kind"] == "user_message"


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        (b"", "empty input"),
        (b"   \n", "empty input"),
        (b"{not json", "malformed JSON"),
        (b"[1, 2, 3]", "must be a JSON object"),
        (b"\x00\x01\x02\xff\xfe", "malformed JSON"),
    ],
)
def test_bad_input_exits_0_and_is_logged(repo: Path, kit, payload: bytes, expected: str) -> None:
    done = kit.run_hook("claude-code", payload, cwd=repo)
    assert done.returncode == 0 and done.stdout == b""
    assert expected in _log(repo)
    assert expected in done.stderr.decode()
    assert kit.events_of(repo) == []


def test_unknown_agent_exits_0_and_is_logged(repo: Path, kit) -> None:
    done = kit.run_hook("emacs", _prompt(repo, "hi"), cwd=repo)
    assert done.returncode == 0 and "unknown agent 'emacs'" in _log(repo)


def test_huge_payload_is_capped_and_fast_enough(repo: Path, kit) -> None:
    output = "".join(f"line {i}: " + "x" * 90 + "\n" for i in range(40_000))  # ~4 MB of tool output
    payload = {
        "session_id": "s",
        "cwd": str(repo),
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_use_id": "big",
        "tool_input": {"command": "cat big.log"},
        "tool_response": {"stdout": output, "stderr": ""},
    }
    done = kit.run_hook("claude-code", payload, cwd=repo)
    assert done.returncode == 0, done.stderr
    (event,) = kit.events_of(repo)
    assert event.text is not None and len(event.text) < 2200
    assert "line 39999" in event.text  # the tail of the output is kept
    day_files = list((repo / ".meta" / "events").glob("*.jsonl"))
    assert sum(f.stat().st_size for f in day_files) < 10_000
    raw = next((repo / ".meta" / "events" / "raw").glob("*.jsonl"))
    assert raw.stat().st_size < 10_000


def test_binary_in_a_tool_response(repo: Path, kit) -> None:
    blob = bytes(range(256)).decode("latin-1") * 50
    payload = {
        "session_id": "s",
        "cwd": str(repo),
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_use_id": "bin",
        "tool_input": {"command": "cat logo.png"},
        "tool_response": {"stdout": blob},
    }
    done = kit.run_hook("claude-code", payload, cwd=repo)
    assert done.returncode == 0
    (event,) = kit.events_of(repo)
    assert event.text is not None and event.text.startswith("[binary data")


def test_invalid_utf8_inside_strings_is_replaced_not_refused(repo: Path, kit) -> None:
    raw = json.dumps(_prompt(repo, "PLACEHOLDER")).encode().replace(b"PLACEHOLDER", b"caf\xe9 au lait")
    done = kit.run_hook("claude-code", raw, cwd=repo)
    assert done.returncode == 0
    (event,) = kit.events_of(repo)
    assert event.text == "caf\ufffd au lait"


def test_missing_meta_is_created(repo: Path, kit) -> None:
    assert not (repo / ".meta").exists()
    kit.run_hook("claude-code", _prompt(repo, "hi"), cwd=repo)
    assert (repo / ".meta" / "events").is_dir()


def test_subdirectory_cwd_finds_the_repository_root(repo: Path, kit) -> None:
    sub = repo / "api" / "orders"
    sub.mkdir(parents=True)
    kit.run_hook("claude-code", {**_prompt(repo, "hi"), "cwd": str(sub)}, cwd=sub)
    (event,) = kit.events_of(repo)
    assert event.repo == str(repo) and event.cwd == str(sub)


def test_no_repository_logs_to_the_user_log(tmp_path: Path, kit) -> None:
    lonely = tmp_path / "not-a-repo"
    lonely.mkdir()
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    done = kit.run_hook("claude-code", {**_prompt(lonely, "hi"), "cwd": str(lonely)}, cwd=lonely, env=env)
    assert done.returncode == 0 and done.stdout == b""
    assert not (lonely / ".meta").exists()
    log = (tmp_path / "state" / "ctxops" / "logs" / "hooks-capture.log").read_text()
    assert "no .git or .meta" in log


def test_unwritable_event_store_exits_0_and_logs(repo: Path, kit) -> None:
    # A read-only disk, as root sees one: the events directory cannot be created (a file is in the way).
    (repo / ".meta").mkdir()
    (repo / ".meta" / "events").write_text("not a directory")
    done = kit.run_hook("claude-code", _prompt(repo, "hi"), cwd=repo)
    assert done.returncode == 0 and done.stdout == b""
    assert "events" in _log(repo)


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_read_only_directory_exits_0(repo: Path, kit) -> None:
    (repo / ".meta").mkdir()
    (repo / ".meta").chmod(0o555)
    try:
        done = kit.run_hook("claude-code", _prompt(repo, "hi"), cwd=repo)
        assert done.returncode == 0
    finally:
        (repo / ".meta").chmod(0o755)


def test_duplicate_tool_use_ids_are_dropped(repo: Path, kit, capture_all) -> None:
    payload = {
        "session_id": "s",
        "cwd": str(repo),
        "hook_event_name": "PostToolUse",
        "tool_name": "Read",
        "tool_use_id": "same",
        "tool_input": {"file_path": str(repo / "a.py")},
        "tool_response": {},
    }
    events = capture_all("claude-code", [payload, payload, payload])
    assert len(events) == 1


def test_heartbeats_are_dropped(repo: Path, capture_all) -> None:
    events = capture_all(
        "claude-code",
        [
            {
                "session_id": "s",
                "cwd": str(repo),
                "hook_event_name": "Notification",
                "notification_type": "idle_prompt",
                "message": "Claude is waiting for your input",
            }
        ],
    )
    assert events == []


def test_progress_lines_and_ansi_codes_are_cleaned(repo: Path, capture_all) -> None:
    output = "Downloading\r[=====>     ] 45%\r[==========] 100%\n\x1b[32mok\x1b[0m\nsame\nsame\nsame\ndone"
    (event,) = capture_all(
        "claude-code",
        [
            {
                "session_id": "s",
                "cwd": str(repo),
                "hook_event_name": "PostToolUse",
                "tool_name": "Bash",
                "tool_use_id": "p",
                "tool_input": {"command": "make"},
                "tool_response": {"stdout": output},
            }
        ],
    )
    assert event.text == "ok\nsame\n[previous line repeated 2 more times]\ndone"


def test_ctxops_own_commands_and_files_are_not_captured(repo: Path, capture_all) -> None:
    base = {"session_id": "s", "cwd": str(repo), "hook_event_name": "PostToolUse", "tool_response": {}}
    events = capture_all(
        "claude-code",
        [
            {**base, "tool_name": "Bash", "tool_use_id": "1", "tool_input": {"command": "ctx mem search refunds"}},
            {**base, "tool_name": "Bash", "tool_use_id": "2", "tool_input": {"command": "uv run cq def transition"}},
            {
                **base,
                "tool_name": "Bash",
                "tool_use_id": "3",
                "tool_input": {"command": "python -m ctxops_memory_store list"},
            },
            {
                **base,
                "tool_name": "Read",
                "tool_use_id": "4",
                "tool_input": {"file_path": str(repo / ".meta" / "events" / "2026-11-29.jsonl")},
            },
            {**base, "tool_name": "Bash", "tool_use_id": "5", "tool_input": {"command": "git diff --stat"}},
            {**base, "tool_name": "Bash", "tool_use_id": "6", "tool_input": {"command": "echo ctx is a word"}},
        ],
    )
    assert [e.tool_use_id for e in events] == ["5", "6"]


def _modules_after(code: str, *, stdin: bytes = b"", cwd: Path | None = None) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys; print(sorted(sys.modules))"],
        input=stdin,
        cwd=cwd,
        capture_output=True,
        check=True,
    )
    return set(ast.literal_eval(done.stdout.decode().splitlines()[-1]))


def test_nothing_heavy_is_imported_on_the_capture_path(repo: Path, kit) -> None:
    """A guard (not a timing test): a real capture loads none of the heavy modules, msgspec included."""
    capture = (
        "import sys\n"
        "from ctxops_hooks_capture.cli import main\n"
        "sys.argv = ['ctxops_hooks_capture', 'claude-code']\n"
        "main()"
    )
    payload = {"session_id": "s1", "cwd": str(repo), "hook_event_name": "PostToolUse", "tool_name": "Bash"}
    payload |= {"tool_use_id": "t1", "tool_input": {"command": "pytest"}, "tool_response": {"stdout": "1 passed"}}
    _modules_after(capture, stdin=json.dumps(payload).encode(), cwd=repo)  # fills the regex cache if empty
    payload["tool_use_id"] = "t2"
    loaded = _modules_after(capture, stdin=json.dumps(payload).encode(), cwd=repo)
    assert [e.kind for e in kit.events_of(repo)] == ["test_result"] * 2  # the capture really ran
    heavy = {"msgspec", "typing_extensions", "duckdb", "lancedb", "pygit2", "pyarrow", "numpy", "argparse"}
    heavy |= {"importlib.metadata", "ctxops_contracts.codec", "ctxops_contracts.records"}
    assert not heavy & loaded, f"imported on the capture path: {sorted(heavy & loaded)}"
    # Slower stdlib modules the capture does without (unless the interpreter itself loads them at start-up):
    # re and enum (~10 ms; patterns come from the regex cache), json (it imports re), datetime, threading,
    # contextlib (with functools and collections).
    avoidable = {"typing", "dataclasses", "inspect", "pathlib", "re", "enum", "json", "datetime", "threading"}
    avoidable |= {"contextlib", "functools", "collections", "hashlib", "shlex"}
    avoidable -= _modules_after("pass")
    assert not avoidable & loaded, f"imported on the capture path: {sorted(avoidable & loaded)}"
