"""The hook command as agents run it: a fresh process, stdin JSON, only the agent's JSON on stdout, exit 0."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from ctxops_memory_store import MemoryStore, new_entry


def hook(repo: Path, agent: str, payload: object | bytes, data_dir: Path) -> subprocess.CompletedProcess[str]:
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    env = {**os.environ, "CTXOPS_DATA_DIR": str(data_dir)}
    return subprocess.run(
        [sys.executable, "-m", "ctxops_memory_inject", "hook", agent],
        input=data.decode("utf-8", "replace"),
        capture_output=True,
        text=True,
        cwd=repo,
        env=env,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    ("agent", "event"),
    [("claude-code", "UserPromptSubmit"), ("codex", "UserPromptSubmit"), ("gemini", "BeforeAgent")],
)
def test_prompt_hooks_print_additional_context(repo: Path, data_dir: Path, agent: str, event: str) -> None:
    lesson = MemoryStore(repo).put(new_entry(kind="lesson", title="Money is Decimal, never float")).entry
    payload = {"hook_event_name": event, "session_id": "s1", "cwd": str(repo), "prompt": "money rounding bug"}
    done = hook(repo, agent, payload, data_dir)
    assert done.returncode == 0 and done.stderr == ""
    output = json.loads(done.stdout)
    context = output["hookSpecificOutput"]["additionalContext"]
    assert output["hookSpecificOutput"]["hookEventName"] == event
    assert lesson.id[-8:] in context and len(context) <= 10_000
    # The next prompt of the same session does not repeat it.
    again = hook(repo, agent, {**payload, "prompt": "money again"}, data_dir)
    assert again.returncode == 0 and again.stdout == ""


def test_bad_input_never_breaks_the_agent(repo: Path, data_dir: Path, tmp_path: Path) -> None:
    for payload in (b"", b"{not json", b"\xff\xfe", b"[1, 2]"):
        done = hook(repo, "claude-code", payload, data_dir)
        assert done.returncode == 0 and done.stdout == ""
    (repo / ".meta").mkdir(exist_ok=True)
    (repo / ".meta" / "config.toml").write_text("[memory\n")  # broken config: logged, nothing printed
    done = hook(repo, "claude-code", {"hook_event_name": "Stop", "session_id": "s", "cwd": str(repo)}, data_dir)
    assert done.returncode == 0 and done.stdout == ""


def test_stop_writes_one_digest_per_session(repo: Path, data_dir: Path) -> None:
    base = {"session_id": "sess-1", "cwd": str(repo)}
    hook(repo, "claude-code", {**base, "hook_event_name": "UserPromptSubmit", "prompt": "fix the cart total"}, data_dir)
    for _ in range(2):
        done = hook(repo, "claude-code", {**base, "hook_event_name": "Stop"}, data_dir)
        assert done.returncode == 0 and done.stdout == ""
    digests = [e for e in MemoryStore(repo).list_entries(kinds=["summary"]) if "session:sess-1" in e.tags]
    assert len(digests) == 1 and digests[0].body.startswith("Goal: fix the cart total")
    assert "branch:main" in digests[0].tags


def test_ctx_mem_inject_prints_the_block_and_exits_1_when_empty(repo: Path, data_dir: Path) -> None:
    env = {**os.environ, "CTXOPS_DATA_DIR": str(data_dir)}
    cmd = [sys.executable, "-m", "ctxops_memory_store", "--root", str(repo), "inject", "--task", "cart total"]
    empty = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    assert empty.returncode == 1 and "no memories to inject" in empty.stdout
    MemoryStore(repo).put(new_entry(kind="fact", title="The cart total is recomputed by the API"))
    done = subprocess.run([*cmd, "--budget", "200"], capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0 and done.stderr == ""
    assert "recomputed by the API (" in done.stdout and done.stdout.endswith(")\n</ctxops-memory>\n")
    bad = subprocess.run([*cmd, "--budget", "10", "--json"], capture_output=True, text=True, env=env, check=False)
    assert bad.returncode == 2 and json.loads(bad.stdout)["error"]["fix"] == "use --budget 50 or more"


def test_the_result_records_compare_and_print_by_value() -> None:
    """Plain classes now (no dataclasses on the hook path): same fields, defaults, equality and repr."""
    from ctxops_memory_inject.build import DEFAULT_BUDGET, Injection
    from ctxops_memory_inject.hook import HookOutcome
    from ctxops_memory_inject.ranking import Ranked

    assert HookOutcome() == HookOutcome("", "none", ()) != HookOutcome("x")
    assert repr(HookOutcome("{}", "inject", ("a",))) == "HookOutcome(stdout='{}', action='inject', memory_ids=('a',))"
    made = Injection("text", ["m1"], 5)
    assert (made.budget, made.omitted, made.layers, made.tokenizer) == (DEFAULT_BUDGET, 0, {}, "cl100k_base")
    assert made == Injection("text", ["m1"], 5) != Injection("text", ["m2"], 5)
    assert Injection("a").memory_ids is not Injection("a").memory_ids  # a fresh list each, as default_factory
    assert "memory_ids=['m1']" in repr(made)
    ranked = Ranked({"id": "x"}, 1.0, 0.5, False)
    assert ranked.factors == {} and ranked.seen_by_bm25
    assert ranked == Ranked({"id": "x"}, 1.0, 0.5, False) != Ranked({"id": "y"}, 1.0, 0.5, False)
    assert repr(ranked).startswith("Ranked(entry={'id': 'x'}")
