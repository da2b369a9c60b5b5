"""The guard's hook handlers on real files in a temporary git repository: shapes, thresholds, saved
originals, read dedupe, large reads, config switches, accounting records and the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from ctxops_memory_inject.guard import cli, handle_event, handle_post_tool_use, handle_pre_tool_use, store
from ctxops_memory_inject.guard.accounting import process

RUNS = Path(__file__).parent / "runs"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".meta").mkdir()
    (root / ".meta" / "config.toml").write_text('[guard]\naccounting = "inline"\n', encoding="utf-8")
    monkeypatch.setenv("CTXOPS_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("CTXOPS_ROOT", raising=False)
    return root


def bash_payload(root: Path, command: str, stdout: str, stderr: str = "") -> dict:
    return {
        "session_id": "s1",
        "cwd": str(root),
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "run"},
        "tool_response": {
            "stdout": stdout,
            "stderr": stderr,
            "interrupted": False,
            "isImage": False,
            "noOutputExpected": False,
        },
        "tool_use_id": "toolu_1",
    }


def read_payload(root: Path, path: Path, content: str, start: int = 1, limit: int | None = None) -> dict:
    n = content.count("\n") + (0 if content.endswith("\n") else 1)
    tool_input = {"file_path": str(path)} | ({"limit": limit} if limit else {})
    file = {"filePath": str(path), "content": content, "numLines": n, "startLine": start, "totalLines": n}
    return {
        "session_id": "s1",
        "cwd": str(root),
        "hook_event_name": "PostToolUse",
        "tool_name": "Read",
        "tool_input": tool_input,
        "tool_response": {"type": "text", "file": file},
    }


def records(tmp_path: Path) -> list[dict]:
    folder = tmp_path / "data" / "context"
    return [json.loads(line) for f in sorted(folder.glob("context-*.jsonl")) for line in f.read_text().splitlines()]


def test_small_output_passes_untouched(repo: Path) -> None:
    assert handle_post_tool_use(bash_payload(repo, "pytest -q", "1 passed in 0.01s\n")) is None


def test_long_pytest_output_summarized_in_bash_shape(repo: Path, tmp_path: Path) -> None:
    text = (RUNS / "pytest-q.out").read_text(encoding="utf-8")
    out = handle_post_tool_use(bash_payload(repo, "uv run pytest api/tests -q", text + "\n[ctxops-exit 1]\n"))
    assert out is not None
    hso = out["hookSpecificOutput"]
    assert hso["hookEventName"] == "PostToolUse"
    updated = hso["updatedToolOutput"]
    assert set(updated) == {"stdout", "stderr", "interrupted", "isImage", "noOutputExpected"}
    assert updated["stderr"] == "" and updated["interrupted"] is False
    summary = updated["stdout"]
    assert summary.startswith("Exit code 1\n[ctxops guard: pytest output, exit status 1;")
    assert "FAILED api/tests/test_timeout_close.py::test_limit_caps_one_run" in summary
    assert "[ctxops-exit" not in summary
    output_id = summary.rsplit("ctx out show ", 1)[1].split()[0]
    saved = store.load(str(repo), output_id)
    from ctxops_hooks_capture.redact import redact

    assert saved == redact(text)  # the original, redacted, without the trailer
    assert (repo / ".meta" / ".gitignore").read_text().count("/outputs/") == 1
    rec = records(tmp_path)
    assert len(rec) == 1
    assert rec[0]["action"] == "guard" and rec[0]["tool_name"] == "Bash" and rec[0]["output_id"] == output_id
    assert rec[0]["tokens_before"] > 3 * rec[0]["tokens"] > 0
    assert rec[0]["command"] == "uv run pytest api/tests -q"


def test_saved_original_is_redacted(repo: Path) -> None:
    text = "line\n" * 900 + "export OPENAI_API_KEY=sk-proj-SECRETSECRET1234567890\nERROR boom at x.py:3\n"
    out = handle_post_tool_use(bash_payload(repo, "./run.sh", text))
    assert out is not None
    summary = out["hookSpecificOutput"]["updatedToolOutput"]["stdout"]
    assert ("x.py:3" in summary and "(×" in summary) or "same line" in summary
    output_id = summary.rsplit("ctx out show ", 1)[1].split()[0]
    assert "SECRETSECRET" not in store.load(str(repo), output_id)


def test_wrapped_small_output_loses_trailer_keeps_exit(repo: Path) -> None:
    out = handle_post_tool_use(
        bash_payload(repo, "pytest -q\nprintf '\\n[ctxops-exit %s]\\n' \"$?\"", "1 failed\n\n[ctxops-exit 1]\n")
    )
    assert out is not None
    assert out["hookSpecificOutput"]["updatedToolOutput"]["stdout"] == "Exit code 1\n1 failed\n"


def test_pre_tool_use_wraps_known_families_only(repo: Path) -> None:
    base = {"session_id": "s1", "cwd": str(repo), "hook_event_name": "PreToolUse", "tool_name": "Bash"}
    out = handle_pre_tool_use(base | {"tool_input": {"command": "cd api && uv run pytest -q", "timeout": 5}})
    assert out is not None
    updated = out["hookSpecificOutput"]["updatedInput"]
    assert updated["timeout"] == 5 and updated["command"].startswith("if [ -p ")
    assert "; fi; { cd api && uv run pytest -q\n} >&9 2>&1; __ctxops_s=$?; " in updated["command"]
    assert handle_pre_tool_use(base | {"tool_input": {"command": "ls -la"}}) is None
    assert handle_pre_tool_use(base | {"tool_input": {"command": "pytest || exit 1"}}) is None
    assert handle_pre_tool_use(base | {"tool_input": {"command": "pytest", "run_in_background": True}}) is None
    # the wrapped command really runs: a short excerpt on stdout, the full output in the spool
    script = "for i in $(seq 1 5000); do echo line $i; done; echo FAILED at x.py:3 >&2; (exit 3)"
    wrapped = handle_pre_tool_use(base | {"tool_input": {"command": f"pytest; {script}"}})
    command = wrapped["hookSpecificOutput"]["updatedInput"]["command"]
    done = subprocess.run(["bash", "-c", command], cwd=repo, check=False, capture_output=True, text=True)
    assert done.returncode == 0 and "middle cut" in done.stdout and len(done.stdout) < 17_000
    post = bash_payload(repo, command, done.stdout.rstrip("\n"))
    out = handle_post_tool_use(post)
    summary = out["hookSpecificOutput"]["updatedToolOutput"]["stdout"]
    assert summary.startswith("Exit code 3\n[ctxops guard: pytest output, exit status 3;")
    assert "FAILED at x.py:3" in summary and "line 5000" in summary
    output_id = summary.rsplit("ctx out show ", 1)[1].split()[0]
    assert "line 2500" in store.load(str(repo), output_id)  # the middle the shell's excerpt cut
    left = [p for p in (repo / ".meta" / ".state" / "guard" / "spool").iterdir() if not p.is_fifo()]
    assert not left  # spool removed (the FIFO of the first wrap, never run, stays: it holds nothing)
    records_cmd = json.loads((repo / ".meta" / "outputs" / f"{output_id}.json").read_text())["command"]
    assert records_cmd == f"pytest; {script}"


def test_config_switches(repo: Path) -> None:
    text = (RUNS / "pytest-q.out").read_text(encoding="utf-8")
    (repo / ".meta" / "config.toml").write_text(
        '[guard]\naccounting = "off"\n[guard.commands]\npytest = false\n', encoding="utf-8"
    )
    assert handle_post_tool_use(bash_payload(repo, "pytest -q", text)) is None
    assert handle_post_tool_use(bash_payload(repo, "make", text)) is not None
    (repo / ".meta" / "config.toml").write_text('[guard]\naccounting = "off"\nmin_chars = 100000\n', encoding="utf-8")
    assert handle_post_tool_use(bash_payload(repo, "make", text)) is None
    (repo / ".meta" / "config.toml").write_text("[guard\nbroken", encoding="utf-8")
    assert handle_post_tool_use(bash_payload(repo, "make", text)) is not None  # defaults, not a crash


def test_unchanged_reread_answered_briefly_and_reset_at_compaction(repo: Path, tmp_path: Path) -> None:
    path = repo / "a.py"
    content = "".join(f"def f{i}():\n    return {i}\n" for i in range(50))
    path.write_text(content)
    assert handle_event(read_payload(repo, path, content)) is None
    assert handle_event(bash_payload(repo, "ls", "a.py\n")) is None  # step 2
    out = handle_event(read_payload(repo, path, content))
    assert out is not None
    file = out["hookSpecificOutput"]["updatedToolOutput"]["file"]
    assert file["content"].startswith("[ctxops guard: unchanged since step 1:")
    assert file["numLines"] == 1 and file["filePath"] == str(path)
    changed = content + "x = 1\n"
    assert handle_event(read_payload(repo, path, changed)) is None  # edited: the new text goes through
    handle_event({"session_id": "s1", "cwd": str(repo), "hook_event_name": "PreCompact", "trigger": "auto"})
    assert handle_event(read_payload(repo, path, changed)) is None
    rec = records(tmp_path)
    assert [r["tool_name"] for r in rec] == ["Read"] and rec[0]["tokens_before"] > rec[0]["tokens"]


def test_large_read_outline_plus_region(repo: Path) -> None:
    path = repo / "big.py"
    content = "".join(f"class C{i}:\n    def m(self):\n        return {i}\n\n" for i in range(150))
    out = handle_post_tool_use(read_payload(repo, path, content))
    assert out is not None
    hso = out["hookSpecificOutput"]
    file = hso["updatedToolOutput"]["file"]
    assert file["numLines"] == 120 and file["content"].startswith("class C0:")
    assert "   597  class C149:" in hso["additionalContext"]
    calls = []
    out = handle_post_tool_use(
        read_payload(repo, repo / "b2.py", content), outline=lambda p, t: calls.append(p) or "BRIEF"
    )
    assert calls == [str(repo / "b2.py")] and "BRIEF" in out["hookSpecificOutput"]["additionalContext"]
    # an explicit small limit is the model asking for a region: left alone
    assert handle_post_tool_use(read_payload(repo, repo / "b3.py", content[:3000], limit=100)) is None


def test_grep_and_glob_tool_shapes(repo: Path) -> None:
    lines = "\n".join(f"src/m{i % 30}.py:{i}:    value = compute({i})" for i in range(400))
    grep = {
        "session_id": "s1",
        "cwd": str(repo),
        "hook_event_name": "PostToolUse",
        "tool_name": "Grep",
        "tool_input": {"pattern": "compute"},
    }
    out = handle_post_tool_use(
        grep
        | {"tool_response": {"mode": "content", "numFiles": 30, "filenames": [], "content": lines, "numLines": 400}}
    )
    assert out is not None
    updated = out["hookSpecificOutput"]["updatedToolOutput"]
    assert updated["mode"] == "content" and updated["content"].startswith("400 hits in 30 files")
    files = [f"src/pkg{i}/mod{i}.py" for i in range(300)]
    glob = grep | {"tool_name": "Glob", "tool_input": {"pattern": "**/*.py"}}
    out = handle_post_tool_use(
        glob | {"tool_response": {"filenames": files, "durationMs": 3, "numFiles": 300, "truncated": False}}
    )
    kept = out["hookSpecificOutput"]["updatedToolOutput"]["filenames"]
    assert len(kept) == 41 and kept[-1].startswith("… and 260 more paths: ctx out show ")


def test_hook_never_raises_on_bad_payloads(repo: Path) -> None:
    for bad in (
        {},
        {"hook_event_name": "PostToolUse", "cwd": str(repo), "tool_name": "Bash", "tool_response": "x"},
        {"hook_event_name": "PostToolUse", "cwd": str(repo), "tool_name": "Read", "tool_response": {"type": "image"}},
        {"hook_event_name": "PreToolUse", "cwd": str(repo), "tool_name": "Bash", "tool_input": None},
    ):
        assert handle_event(bad) is None


def test_module_hook_command_end_to_end(repo: Path) -> None:
    text = (RUNS / "gotest-v.out").read_text(encoding="utf-8") * 2
    payload = json.dumps(bash_payload(repo, "go test -v ./...", text))
    done = subprocess.run(
        [sys.executable, "-m", "ctxops_memory_inject.guard", "hook", "claude-code"],
        input=payload,
        capture_output=True,
        text=True,
        cwd=repo,
        check=False,
    )
    assert done.returncode == 0
    out = json.loads(done.stdout)
    assert "--- FAIL: TestLimitCapsARun" in out["hookSpecificOutput"]["updatedToolOutput"]["stdout"]
    bad = subprocess.run(
        [sys.executable, "-m", "ctxops_memory_inject.guard", "hook"],
        input="{not json",
        capture_output=True,
        text=True,
        cwd=repo,
        check=False,
    )
    assert bad.returncode == 0 and bad.stdout == ""


def test_background_accounting_process(repo: Path, tmp_path: Path) -> None:
    (repo / ".meta" / "config.toml").write_text('[guard]\naccounting = "background"\n', encoding="utf-8")
    text = (RUNS / "mypy.out").read_text(encoding="utf-8")
    assert handle_post_tool_use(bash_payload(repo, "mypy --strict api", text)) is not None
    # the detached counter may still be running: draining the queue here is the same code path
    process(str(repo))
    deadline = __import__("time").monotonic() + 30
    while not records(tmp_path) and __import__("time").monotonic() < deadline:
        __import__("time").sleep(0.1)
    rec = records(tmp_path)
    assert len(rec) == 1 and rec[0]["tokenizer"] == "cl100k_base"


def test_rotation_keeps_newest(repo: Path) -> None:
    ids = [store.save(str(repo), f"output {i}\n", {}, max_outputs=3) for i in range(5)]
    left = sorted(p.stem for p in (repo / ".meta" / "outputs").glob("*.txt"))
    assert len(left) == 3 and set(left) <= set(ids)


def test_cli_show_slices(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    output_id = store.save(str(repo), "".join(f"line {i}\n" for i in range(1, 101)), {"tool_name": "Bash"})
    assert cli.main(["show", output_id, "--root", str(repo), "--lines", "40:42"]) == 0
    assert capsys.readouterr().out == "40  line 40\n41  line 41\n42  line 42\n"
    assert cli.main(["--json", "show", output_id, "--root", str(repo), "--grep", "line 9[89]"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["lines"] == [[98, "line 98"], [99, "line 99"]] and doc["total_lines"] == 100
    assert cli.main(["show", "deadbeef", "--root", str(repo)]) == 2
    assert "no saved output 'deadbeef'" in capsys.readouterr().err
    assert cli.main(["show", output_id, "--root", str(repo), "--json", "--grep", "("]) == 2
    assert "not a regular expression" in json.loads(capsys.readouterr().out)["error"]["message"]
    assert cli.main(["show", output_id, "--root", str(repo), "--grep", "nomatch"]) == 1
    with pytest.raises(SystemExit) as exc:
        cli.main(["show", output_id, "--root", str(repo), "--lines", "1:2", "--grep", "x"])
    assert exc.value.code == 2


def test_mcp_tool_registers_and_answers(repo: Path) -> None:
    from ctxops_memory_inject.guard.mcp_tools import register_tools
    from mcp.server.mcpserver import MCPServer

    output_id = store.save(str(repo), "alpha\nbeta\ngamma\n", {})
    server = MCPServer("t")
    register_tools(server, repo)
    import anyio

    async def call() -> str:
        result = await server.call_tool("out_show", {"id": output_id, "lines": "2:3"})
        return "".join(getattr(b, "text", "") for b in result.content)

    assert anyio.run(call) == "2  beta\n3  gamma"


def test_handle_takes_bytes_and_answers_only_claude_code(repo: Path) -> None:
    from ctxops_memory_inject.guard import handle

    text = (RUNS / "mypy.out").read_text(encoding="utf-8")
    data = json.dumps(bash_payload(repo, "mypy --strict api", text)).encode()
    outcome = handle("claude-code", data)
    assert json.loads(outcome.stdout)["hookSpecificOutput"]["hookEventName"] == "PostToolUse"
    for agent in ("codex", "gemini", "cursor", "generic"):  # no shape-preserving replacement there
        assert handle(agent, data).stdout == ""
    assert handle("claude-code", b"\xff not json").stdout == ""


def test_config_cache_follows_the_file(repo: Path) -> None:
    from ctxops_memory_inject.guard.config import load_config

    config = repo / ".meta" / "config.toml"
    config.write_text("[guard]\nmin_chars = 111\n", encoding="utf-8")
    assert load_config(str(repo)).min_chars == 111
    assert (repo / ".meta" / ".state" / "guard" / "config.json").is_file()
    assert load_config(str(repo)).min_chars == 111  # from the cache
    config.write_text("[guard]\nmin_chars = 2222\n", encoding="utf-8")
    assert load_config(str(repo)).min_chars == 2222
    config.write_text('[guard]\nmin_chars = "x"\n', encoding="utf-8")
    assert load_config(str(repo)).min_chars == 3000  # wrong type: the default


def test_failure_is_logged_and_output_left_alone(repo: Path) -> None:
    (repo / ".meta" / "outputs").write_text("not a directory", encoding="utf-8")  # saving must fail
    text = (RUNS / "mypy.out").read_text(encoding="utf-8")
    assert handle_post_tool_use(bash_payload(repo, "mypy --strict api", text)) is None
    assert "PostToolUse" in (repo / ".meta" / "logs" / "guard.log").read_text(encoding="utf-8")


def test_handle_can_capture_the_event_itself(repo: Path) -> None:
    from ctxops_memory_inject.guard import handle

    data = json.dumps(bash_payload(repo, "ls", "a.py\n")).encode()
    assert handle("claude-code", data, capture_event=True).stdout == ""
    assert list((repo / ".meta" / "events").glob("*.jsonl"))  # hooks-capture stored it


def test_old_spool_files_are_swept(repo: Path) -> None:
    spool = repo / ".meta" / ".state" / "guard" / "spool"
    spool.mkdir(parents=True)
    old = spool / "0123456789abcdef.log"
    old.write_text("left by a run whose PostToolUse never came", encoding="utf-8")
    os.utime(old, (1, 1))
    base = {"session_id": "s1", "cwd": str(repo), "hook_event_name": "PreToolUse", "tool_name": "Bash"}
    assert handle_pre_tool_use(base | {"tool_input": {"command": "pytest -q"}}) is not None
    assert not old.exists()
    # a trailer naming a spool that is gone: the shell's excerpt is used as it is
    post = bash_payload(repo, "pytest -q", "1 failed\n\n[ctxops-exit 1 fedcba9876543210]\n")
    assert handle_post_tool_use(post)["hookSpecificOutput"]["updatedToolOutput"]["stdout"] == "Exit code 1\n1 failed\n"


def test_cat_of_a_file_already_read_is_answered_as_a_reread(repo: Path) -> None:
    source = repo / "mod.py"
    text = "".join(f"def f{i}():\n    return {i}\n" for i in range(60))
    source.write_text(text, encoding="utf-8")
    assert handle_post_tool_use(read_payload(repo, source, text)) is None  # first read: untouched
    out = handle_post_tool_use(bash_payload(repo, "cat mod.py", text))
    assert out is not None
    stdout = out["hookSpecificOutput"]["updatedToolOutput"]["stdout"]
    assert "unchanged since step 1" in stdout and "def f1" not in stdout
    again = handle_post_tool_use(bash_payload(repo, f"cat '{source}'", text))  # cat after cat
    assert again is not None and "unchanged since step" in again["hookSpecificOutput"]["updatedToolOutput"]["stdout"]
    # what the model would not have: other text than the file holds now, part of it, another command
    assert handle_post_tool_use(bash_payload(repo, "cat mod.py", text + "x\n")) is None
    assert handle_post_tool_use(bash_payload(repo, "cat mod.py | head -5", text)) is None
    source.write_text(text + "# changed\n", encoding="utf-8")
    assert handle_post_tool_use(bash_payload(repo, "cat mod.py", text + "# changed\n")) is None  # new text
    assert handle_post_tool_use(read_payload(repo, source, text + "# changed\n")) is not None  # Read after cat


def test_cat_after_a_cut_read_is_not_a_reread(repo: Path) -> None:
    source = repo / "big.py"
    text = "".join(f"def f{i}():\n    return {i}\n" for i in range(400))  # 800 lines: the Read is cut
    source.write_text(text, encoding="utf-8")
    cut = handle_post_tool_use(read_payload(repo, source, text))
    assert cut is not None and "additionalContext" in cut["hookSpecificOutput"]
    out = handle_post_tool_use(bash_payload(repo, "cat big.py", text))  # the model saw a region only
    assert out is None or "unchanged since" not in out["hookSpecificOutput"]["updatedToolOutput"]["stdout"]
