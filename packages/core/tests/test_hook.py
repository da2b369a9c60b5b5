"""`ctx hook AGENT` as an agent runs it: a fresh process, stdin JSON, only the agent's JSON on stdout, exit 0."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from ctxops_core import hook_cmd


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "billing.py").write_text("class InvoiceBuilder:\n    def add_line(self):\n        pass\n", encoding="utf-8")
    return root


def hook(agent: str, payload: object | bytes, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return subprocess.run(
        [sys.executable, "-m", "ctxops_core", "hook", agent], input=data, capture_output=True, cwd=cwd, check=False
    )


def events(repo: Path) -> list[dict[str, object]]:
    lines = []
    for path in sorted((repo / ".meta" / "events").glob("*.jsonl")):
        lines += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return lines


def test_a_prompt_is_captured_and_stdout_is_json_or_nothing(repo: Path) -> None:
    payload = {
        "session_id": "s-1",
        "cwd": str(repo),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "why does InvoiceBuilder.add_line drop the tax?",
    }
    done = hook("claude-code", payload, repo)
    assert done.returncode == 0, done.stderr
    if done.stdout.strip():  # memory-inject installed: its documented JSON and nothing else
        answer = json.loads(done.stdout)
        assert answer["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    captured = [e for e in events(repo) if e.get("kind") == "user_message"]
    assert captured and "InvoiceBuilder" in str(captured[-1].get("text"))


@pytest.mark.parametrize(
    "payload",
    [
        b"{not json",
        b"",
        b"[1,2]",
        json.dumps({"hook_event_name": "UserPromptSubmit", "cwd": "/nonexistent/x"}).encode(),
    ],
)
def test_bad_input_never_breaks_the_agent(repo: Path, payload: bytes) -> None:
    done = hook("claude-code", payload, repo)
    assert done.returncode == 0
    assert done.stdout == b""


def test_unknown_agent_exits_0_and_logs(repo: Path) -> None:
    done = hook("no-such-agent", {"cwd": str(repo), "hook_event_name": "Stop"}, repo)
    assert done.returncode == 0
    assert done.stdout == b""


def test_help_names_the_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ctxops_core", "hook", "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0
    assert done.stdout.startswith("usage: ctx hook AGENT")


def test_identifiers_in_a_prompt() -> None:
    names = hook_cmd.identifiers("fix `parse_money` in OrderStateMachine.transition and the InvoiceBuilder, please")
    assert names == ["parse_money", "OrderStateMachine.transition", "InvoiceBuilder"]
    assert hook_cmd.identifiers("just plain english words here") == []


def test_files_in_play_come_from_the_code_index_and_never_build_one(repo: Path) -> None:
    prompt = "InvoiceBuilder is wrong"
    assert hook_cmd.files_in_play(str(repo), prompt) == []  # no index: nothing, and none is built
    assert not (repo / ".meta" / "index").exists()
    subprocess.run(
        [sys.executable, "-m", "ctxops_code_query", "index", "--root", str(repo)], check=True, capture_output=True
    )
    assert hook_cmd.files_in_play(str(repo), prompt) == ["billing.py"]


def test_without_memory_inject_an_injection_event_is_capture_only(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hook_cmd, "_line", lambda module, attribute: None)
    payload = {"hook_event_name": "SessionStart", "cwd": str(repo), "session_id": "s"}
    assert hook_cmd.respond("claude-code", payload, str(repo), json.dumps(payload).encode()) == ""


def test_a_prompt_naming_code_injects_the_memory_scoped_to_that_file(repo: Path) -> None:
    """memory-inject installed: the lesson scoped to billing.py comes back for a prompt naming its class."""
    subprocess.run(
        [sys.executable, "-m", "ctxops_code_query", "index", "--root", str(repo)], check=True, capture_output=True
    )
    for title, scope in (
        ("Invoices round per line, not per total", "billing.py"),
        ("Invoices in the legacy importer use floats", "legacy/*.py"),
    ):
        subprocess.run(
            [sys.executable, "-m", "ctxops_core", "mem", "add", "--kind", "lesson", "--title", title, "--scope", scope],
            cwd=repo,
            check=True,
            capture_output=True,
        )
    payload = {
        "session_id": "s-9",
        "cwd": str(repo),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "fix the invoices rounding in InvoiceBuilder.add_line",
    }
    done = hook("claude-code", payload, repo)
    assert done.returncode == 0
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "lesson: Invoices round per line, not per total [billing.py]" in context
    assert len(context) <= 10_000  # Claude Code's cap on additionalContext


def test_leading_underscores_are_part_of_a_name() -> None:
    assert hook_cmd.identifiers("how should _apply_refunded store money?") == ["_apply_refunded"]


@pytest.mark.skipif(
    __import__("importlib.util").util.find_spec("ctxops_memory_inject.guard") is None,
    reason="the context guard (memory-inject's guard) is not installed",
)
def test_a_long_test_output_reaches_the_model_through_the_guard(repo: Path) -> None:
    passing = "".join(f"tests/test_billing.py::test_case_{i} PASSED\n" for i in range(2000))
    failures = passing + "tests/test_billing.py::test_rounding FAILED\n" + "1 failed, 2000 passed in 3.1s\n"
    payload = {
        "session_id": "s-g",
        "cwd": str(repo),
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_use_id": "t-1",
        "tool_input": {"command": "pytest -v"},
        "tool_response": {"stdout": failures, "stderr": "", "interrupted": False, "isImage": False},
    }
    done = hook("claude-code", payload, repo)
    assert done.returncode == 0
    answer = json.loads(done.stdout)["hookSpecificOutput"]
    assert answer["hookEventName"] == "PostToolUse"
    summary = answer["updatedToolOutput"]["stdout"]
    assert "test_rounding" in summary  # the failing test survives the summary
    assert len(summary) < len(failures) / 10


def _imported(stderr: bytes) -> set[str]:
    """Module names from ``python -X importtime``'s report (the hook ends without teardown, so it is read
    from stderr rather than from sys.modules at exit)."""
    names = set()
    for line in stderr.decode("utf-8", "replace").splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


def test_a_small_tool_output_passes_on_the_light_path(repo: Path) -> None:
    """The most frequent event: captured, left untouched, and decided without the heavy modules."""
    base = {"session_id": "s-light", "cwd": str(repo), "hook_event_name": "PostToolUse", "tool_name": "Bash"}
    # what the `ctx` console script runs (`python -m` would add runpy's imports)
    script = "import sys; from ctxops_core.cli import main; sys.exit(main())"
    run = [sys.executable, "-X", "importtime", "-c", script, "hook", "claude-code"]
    for step in ("1", "2"):  # the first run may fill the per-user regex cache
        payload = {**base, "tool_use_id": f"t{step}", "tool_input": {"command": "pytest -q"}}
        payload["tool_response"] = {"stdout": f"{step} passed in 0.1s", "stderr": ""}
        done = subprocess.run(run, input=json.dumps(payload).encode(), capture_output=True, cwd=repo, check=False)
        assert (done.returncode, done.stdout) == (0, b"")
    assert [e["tool_use_id"] for e in events(repo) if e.get("kind") == "test_result"] == ["t1", "t2"]
    loaded = _imported(done.stderr)
    assert "ctxops_hooks_capture.capture" in loaded and "ctxops_memory_inject.guard.config" in loaded
    idle_run = subprocess.run([sys.executable, "-X", "importtime", "-c", "pass"], capture_output=True, check=True)
    idle = _imported(idle_run.stderr)
    heavy = {"re", "enum", "json", "datetime", "threading", "typing", "contextlib", "tomllib", "logging"}
    heavy |= {"dataclasses", "msgspec", "importlib.util", "importlib.metadata", "pathlib", "hashlib"}
    heavy |= {"ctxops_memory_inject.guard.classify", "ctxops_memory_inject.guard.summarize"}
    heavy |= {"ctxops_memory_inject.guard.hook"}  # the gate decides a small output before the handlers
    assert not (heavy - idle) & loaded, sorted((heavy - idle) & loaded)


def test_a_long_tool_output_still_takes_the_full_guard(repo: Path) -> None:
    lines = [f"tests/test_mod.py::test_case_{i} PASSED" for i in range(300)]
    lines += ["FAILED tests/test_mod.py::test_case_7 - AssertionError: boom", "1 failed, 299 passed in 2.0s"]
    payload = {
        "session_id": "s-long",
        "cwd": str(repo),
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_use_id": "long-1",
        "tool_input": {"command": "pytest -v"},
        "tool_response": {"stdout": "\n".join(lines), "stderr": "", "interrupted": False, "isImage": False},
    }
    done = hook("claude-code", payload, repo)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    replaced = answer["hookSpecificOutput"]["updatedToolOutput"]["stdout"]
    assert "test_case_7" in replaced and "1 failed, 299 passed" in replaced and len(replaced) < 3000
