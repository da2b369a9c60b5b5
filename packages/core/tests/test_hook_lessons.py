"""Issue 23, item 1: a correction comes back whole. Session 1 (fresh `ctx hook` processes, as an agent runs
them) makes a change and is corrected; at Stop the correction becomes a lesson; session 2's SessionStart
and a later session's UserPromptSubmit carry the rule *and* its fix, in the user's words, without the
"No, that's wrong:" opener, for Claude Code, Codex and Gemini."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

CASES = [
    (
        "No, that's wrong: never edit files under gen/ by hand, they are generated. "
        "Change api/schema.yaml and run make gen instead.",
        "Never edit files under gen/ by hand, they are generated. Change api/schema.yaml and run make gen instead.",
        "No, that's wrong",
        "regenerate the api client for the orders schema",
    ),
    (
        "Nope. Stop. Use pnpm, not npm, in this repository: the lockfile is pnpm-lock.yaml. Thanks!",
        "Use pnpm, not npm, in this repository: the lockfile is pnpm-lock.yaml.",
        "Thanks",
        "install the lockfile dependencies with npm or pnpm",
    ),
    (
        "Wrong file. The timeouts live in deploy/prod.toml, never in settings.py. "
        "Why did you edit settings.py? Move the timeout back to deploy/prod.toml.",
        "The timeouts live in deploy/prod.toml, never in settings.py. Move the timeout back to deploy/prod.toml.",
        "Why did you",
        "raise the timeouts for prod",
    ),
    (
        "不对，不要直接改 gen/ 下面的文件，它们是生成的。请改 api/schema.yaml 然后运行 make gen。",
        "不要直接改 gen/ 下面的文件，它们是生成的。请改 api/schema.yaml 然后运行 make gen。",
        "不对",
        "改 api/schema.yaml 生成 gen/ 下面的文件",
    ),
]
INJECT = {"claude-code": "UserPromptSubmit", "codex": "UserPromptSubmit", "gemini": "BeforeAgent"}


def hook(agent: str, payload: dict[str, object], cwd: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "ctxops_core", "hook", agent],
        input=json.dumps(payload).encode(),
        capture_output=True,
        cwd=cwd,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert not (cwd / ".meta" / "logs" / "memory-inject.log").exists()
    if not done.stdout.strip():
        return ""
    return str(json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"])


@pytest.mark.parametrize(("correction", "rule", "dropped", "prompt"), CASES)
def test_a_correction_comes_back_whole_in_the_next_sessions(
    tmp_path: Path, correction: str, rule: str, dropped: str, prompt: str
) -> None:
    repo = tmp_path / "repo"
    (repo / "gen").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "gen" / "client.py").write_text("def get_order():\n    pass\n", encoding="utf-8")
    (repo / ".meta").mkdir()
    (repo / ".meta" / "config.toml").write_text("[memory]\naccept_corrections = true\n", encoding="utf-8")
    one = {"session_id": "s-one", "cwd": str(repo), "transcript_path": str(tmp_path / "t.jsonl")}
    hook("claude-code", {**one, "hook_event_name": "UserPromptSubmit", "prompt": prompt}, repo)
    edit = {
        "file_path": str(repo / "gen" / "client.py"),
        "old_string": "pass",
        "new_string": "return None",
    }
    hook(
        "claude-code",
        {
            **one,
            "hook_event_name": "PostToolUse",
            "tool_name": "Edit",
            "tool_use_id": "e1",
            "tool_input": edit,
            "tool_response": {"filePath": edit["file_path"]},
        },
        repo,
    )
    hook("claude-code", {**one, "hook_event_name": "UserPromptSubmit", "prompt": correction}, repo)
    hook("claude-code", {**one, "hook_event_name": "Stop"}, repo)

    start = hook("claude-code", {"session_id": "s-two", "cwd": str(repo), "hook_event_name": "SessionStart"}, repo)
    lesson_lines = [line for line in start.splitlines() if " lesson: " in line and "(user correction, " in line]
    assert len(lesson_lines) == 1, start
    # The rule and its fix, whole, not cut, then where it came from and when.
    assert f" lesson: {rule} (user correction, " in lesson_lines[0], lesson_lines[0]
    assert dropped not in lesson_lines[0] and "…" not in lesson_lines[0]
    # The last session's digest carries the rule too.
    assert (
        "## Last session" in start
        and rule.split("。", maxsplit=1)[0].split(". ", maxsplit=1)[0] in start.split("## Last session")[1]
    )

    for n, (agent, event) in enumerate(INJECT.items()):  # a later session's first prompt, each agent
        text = hook(
            agent, {"session_id": f"s-{n + 3}", "cwd": str(repo), "hook_event_name": event, "prompt": prompt}, repo
        )
        assert f" lesson: {rule} (user correction, " in text, (agent, text)
