"""`ctx init`: merges into real files of a real git repository, idempotent, and `--remove` restores them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ctxops_core import agents, init_cmd, textblocks


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    (root / "app.py").write_text("def main():\n    return 1\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "first")
    return root


def run(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctxops_core", "init", "--root", str(repo), *args],
        capture_output=True,
        text=True,
        check=False,
    )


def snapshot(repo: Path) -> dict[str, bytes]:
    """Every file of the repository (its .git/hooks too), path -> bytes; .git internals left out."""
    files = {}
    for path in sorted(repo.rglob("*")):
        rel = path.relative_to(repo).as_posix()
        if rel.startswith(".meta/index/"):
            continue  # the code index the first run starts building in the background: data, not wiring
        if path.is_file() and (not rel.startswith(".git/") or rel.startswith(".git/hooks/")):
            files[rel] = path.read_bytes()
    return files


def test_second_run_changes_no_byte(repo: Path) -> None:
    first = run(repo, "--agent", "all")
    assert first.returncode == 0, first.stderr
    after_first = snapshot(repo)
    assert ".claude/settings.json" in after_first and ".cursor/hooks.json" in after_first
    second = run(repo, "--agent", "all")
    assert second.returncode == 0
    assert "nothing to change" in second.stdout
    assert snapshot(repo) == after_first


def test_user_entries_unknown_keys_and_order_are_kept(repo: Path) -> None:
    settings = repo / ".claude" / "settings.json"
    settings.parent.mkdir()
    user = {
        "zUnknownKey": {"nested": [3, 2, 1]},
        "permissions": {"allow": ["Bash(ls)"]},
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo mine"}]}]},
        "enableAllProjectMcpServers": False,
    }
    settings.write_text(json.dumps(user), encoding="utf-8")
    assert run(repo).returncode == 0
    merged = json.loads(settings.read_text(encoding="utf-8"))
    assert list(merged)[:4] == ["zUnknownKey", "permissions", "hooks", "enableAllProjectMcpServers"]
    assert merged["zUnknownKey"] == {"nested": [3, 2, 1]}
    assert merged["enableAllProjectMcpServers"] is False  # the user's choice stands
    stop = merged["hooks"]["Stop"]
    assert stop[0] == {"hooks": [{"type": "command", "command": "echo mine"}]}
    assert agents.runs_ctx(stop[1]["hooks"][0]["command"], "hook", "claude-code")
    assert set(agents.CLAUDE_EVENTS) <= set(merged["hooks"])
    mcp = json.loads((repo / ".mcp.json").read_text(encoding="utf-8"))
    assert mcp["mcpServers"]["ctxops"]["args"][-1] == "mcp"


def test_remove_restores_every_file_exactly(repo: Path) -> None:
    (repo / ".claude").mkdir()
    original = '{\n    "permissions": {"allow": ["Bash(ls)"]}\n}\n'
    (repo / ".claude" / "settings.json").write_text(original, encoding="utf-8")
    hook = repo / ".git" / "hooks" / "post-commit"
    hook.write_text("#!/bin/sh\necho user-hook\n", encoding="utf-8")
    hook.chmod(0o755)
    before = snapshot(repo)
    status = git(repo, "status", "--porcelain")
    # --no-index: nothing but wiring is written (a code index, like captured events, stays after --remove)
    assert run(repo, "--agent", "all", "--no-index").returncode == 0
    assert snapshot(repo) != before
    assert textblocks.has_block(hook.read_text(encoding="utf-8"))
    removed = run(repo, "--remove")
    assert removed.returncode == 0, removed.stderr
    assert snapshot(repo) == before
    assert not (repo / ".meta").exists()
    assert git(repo, "status", "--porcelain") == status


def test_remove_keeps_lines_the_user_changed_since(repo: Path) -> None:
    assert run(repo).returncode == 0
    settings = repo / ".claude" / "settings.json"
    doc = json.loads(settings.read_text(encoding="utf-8"))
    doc["model"] = "opus"  # the user edits the file after init
    doc["hooks"]["Stop"].append({"hooks": [{"type": "command", "command": "echo later"}]})
    settings.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    removed = run(repo, "--remove")
    assert removed.returncode == 0
    assert "took out only ctxops's entries" in removed.stdout
    left = json.loads(settings.read_text(encoding="utf-8"))
    assert left == {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo later"}]}]}, "model": "opus"}
    assert not (repo / ".mcp.json").exists()


def test_dry_run_prints_the_diff_and_writes_nothing(repo: Path) -> None:
    before = snapshot(repo)
    done = run(repo, "--dry-run", "--agent", "codex")
    assert done.returncode == 0
    assert "+++ b/.codex/hooks.json" in done.stdout
    assert '+command = "' in done.stdout  # the MCP table for .codex/config.toml
    assert "would create .codex/hooks.json" in done.stdout
    assert snapshot(repo) == before


def test_git_hooks_chain_after_the_shebang_so_an_exec_script_still_runs_them(repo: Path) -> None:
    hook = repo / ".git" / "hooks" / "post-checkout"
    hook.write_text('#!/usr/bin/env bash\nexec python3 -m pre_commit hook-impl "$@"\n', encoding="utf-8")
    hook.chmod(0o755)
    assert run(repo).returncode == 0
    lines = hook.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "#!/usr/bin/env bash"
    assert lines[1] == textblocks.BEGIN
    assert lines[-1].startswith("exec python3 -m pre_commit")


def test_core_hookspath_and_husky_are_respected(repo: Path) -> None:
    (repo / ".githooks").mkdir()
    git(repo, "config", "core.hooksPath", ".githooks")
    assert run(repo).returncode == 0
    assert textblocks.has_block((repo / ".githooks" / "post-merge").read_text(encoding="utf-8"))
    assert not (repo / ".git" / "hooks" / "post-merge").exists()
    assert run(repo, "--remove").returncode == 0
    (repo / ".husky" / "_").mkdir(parents=True)
    git(repo, "config", "core.hooksPath", ".husky/_")
    assert run(repo).returncode == 0
    assert textblocks.has_block((repo / ".husky" / "post-commit").read_text(encoding="utf-8"))
    assert not (repo / ".husky" / "_" / "post-commit").exists()


def test_the_git_hook_updates_the_code_index_after_a_commit(repo: Path) -> None:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    subprocess.run(
        [sys.executable, "-m", "ctxops_code_query", "index", "--root", str(repo)],
        check=True,
        env=env,
        capture_output=True,
    )
    assert run(repo).returncode == 0
    (repo / "app.py").write_text(
        "def main():\n    return 1\n\n\ndef added_by_commit():\n    return 2\n", encoding="utf-8"
    )
    git(repo, "commit", "-qam", "second")
    # The hook runs in the background; `kick` holds the index writer lock while it updates, so a
    # second kick in the foreground waits for it and then finds nothing left to do.
    done = subprocess.run(
        [sys.executable, "-m", "ctxops_core", "watch", "kick", "--root", str(repo)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    assert "code index" in done.stdout
    from ctxops_code_graph import CodeIndex

    with CodeIndex(repo, auto_update=False) as index:
        assert [s.qualname for s in index.definitions("added_by_commit")] == ["added_by_commit"]


def test_comments_in_gemini_settings_are_never_lost(repo: Path) -> None:
    settings = repo / ".gemini" / "settings.json"
    settings.parent.mkdir()
    text = '{\n  // my theme\n  "theme": "dark"\n}\n'
    settings.write_text(text, encoding="utf-8")
    done = run(repo, "--agent", "gemini")
    assert done.returncode == 0
    assert settings.read_text(encoding="utf-8") == text
    assert "has comments" in done.stdout and '"BeforeAgent"' in done.stdout


def test_broken_json_is_a_usage_error_naming_the_file(repo: Path) -> None:
    (repo / ".mcp.json").write_text("{not json", encoding="utf-8")
    done = run(repo)
    assert done.returncode == 2
    assert ".mcp.json" in done.stderr and "fix:" in done.stderr
    assert (repo / ".mcp.json").read_text(encoding="utf-8") == "{not json"


def test_outside_a_git_repository_is_exit_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ctxops_core", "init", "--root", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "git" in done.stderr


@pytest.mark.parametrize("guard", [False, True])
def test_remove_of_a_json_edit_is_the_inverse_of_add(guard: bool) -> None:
    wiring = agents.Wiring(argv=("ctx",), statusline=True, guard=guard)
    for agent in agents.AGENT_NAMES:
        for spec in agents.json_files(agent):
            user = {"keep": 1, "hooks": {"Other": [{"hooks": [{"type": "command", "command": "x"}]}]}}
            added = spec.add(user, wiring)
            assert added != user
            assert spec.add(added, wiring) == added
            # Cursor's file format needs "version": 1; with user hooks left in the file it stays.
            expected = {**user, "version": 1} if spec.path == ".cursor/hooks.json" else user
            assert spec.remove(added, wiring) == expected, spec.path


def test_ctx_argv_takes_the_console_script_beside_the_interpreter(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Not on PATH, not run as the script: the environment's own `ctx` (no runpy on every hook), else -m."""
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setattr(sys, "argv", ["pytest"])
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    python = bin_dir / "python"
    monkeypatch.setattr(sys, "executable", str(python))
    assert init_cmd.ctx_argv() == (str(python), "-P", "-m", "ctxops_core")
    script = bin_dir / "ctx"
    script.write_text("#!/bin/sh\n", encoding="utf-8")
    script.chmod(0o755)
    assert init_cmd.ctx_argv() == (str(script),)


def test_remove_keeps_what_keeps_captured_data_out_of_git(repo: Path) -> None:
    assert run(repo).returncode == 0
    events = repo / ".meta" / "events"
    events.mkdir()
    (events / "2026-11-30.jsonl").write_text('{"kind": "user_message"}\n', encoding="utf-8")
    removed = run(repo, "--remove")
    assert removed.returncode == 0
    assert (repo / ".meta" / ".gitignore").exists()
    assert not (repo / ".meta" / "config.toml").exists()
    assert not (repo / ".claude").exists()
    assert "events" not in git(repo, "status", "--porcelain", "--untracked-files=all")


def test_the_files_own_indentation_is_kept(repo: Path) -> None:
    settings = repo / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(
        '{\n    "model": "opus",\n    "permissions": {\n        "allow": []\n    }\n}\n', encoding="utf-8"
    )
    assert run(repo).returncode == 0
    text = settings.read_text(encoding="utf-8")
    assert text.startswith('{\n    "model": "opus",\n    "permissions": {\n        "allow": []\n    },\n    "hooks"')


def test_codex_config_toml_stays_valid_and_waits_for_ctx_mcp(repo: Path) -> None:
    """The grace key must be top-level (before any table) and the user's tables stay theirs."""
    import tomllib

    user = '# mine\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "other"\n'
    (repo / ".codex").mkdir()
    (repo / ".codex" / "config.toml").write_text(user, encoding="utf-8")
    done = run(repo, "--agent", "codex")
    assert done.returncode == 0, done.stderr
    text = (repo / ".codex" / "config.toml").read_text(encoding="utf-8")
    config = tomllib.loads(text)
    assert config["model"] == "o3" and config["mcp_servers"]["other"] == {"command": "other"}
    assert config["mcp_servers"]["ctxops"]["args"][-1] == "mcp"
    assert config[agents.CODEX_MCP_GRACE_KEY] == agents.CODEX_MCP_GRACE_MS
    assert run(repo, "--remove").returncode == 0
    assert (repo / ".codex" / "config.toml").read_text(encoding="utf-8") == user


def test_codex_keeps_the_users_own_grace_and_removes_both_blocks_after_an_edit(repo: Path) -> None:
    import tomllib

    (repo / ".codex").mkdir()
    (repo / ".codex" / "config.toml").write_text(f"{agents.CODEX_MCP_GRACE_KEY} = 500\n", encoding="utf-8")
    assert run(repo, "--agent", "codex").returncode == 0
    path = repo / ".codex" / "config.toml"
    assert tomllib.loads(path.read_text(encoding="utf-8"))[agents.CODEX_MCP_GRACE_KEY] == 500  # no duplicate key
    assert run(repo, "--remove").returncode == 0
    assert not path.exists() or path.read_text(encoding="utf-8") == f"{agents.CODEX_MCP_GRACE_KEY} = 500\n"

    # No config of the user's: both blocks are written, and after an edit both are taken out.
    path.unlink(missing_ok=True)
    assert run(repo, "--agent", "codex").returncode == 0
    text = path.read_text(encoding="utf-8")
    assert text.count(textblocks.BEGIN) == 2 and text.startswith(textblocks.BEGIN)
    path.write_text(text + 'model = "o3"\n', encoding="utf-8")  # an edit: --remove takes out only our lines
    assert run(repo, "--remove").returncode == 0
    assert path.read_text(encoding="utf-8").strip() == 'model = "o3"'


def test_codex_hooks_have_no_pre_tool_use_even_with_the_guard() -> None:
    (spec,) = agents.json_files("codex")
    doc = spec.add({}, agents.Wiring(("ctx",), statusline=True, guard=True))
    assert set(doc["hooks"]) == set(agents.CODEX_EVENTS)
    assert "PreToolUse" not in doc["hooks"] and doc["hooks"]["PostToolUse"][0]["matcher"] == ".*"


@pytest.mark.parametrize(
    ("agent", "retired", "matcher"), [("codex", "PreToolUse", ".*"), ("gemini", "PreCompress", None)]
)
def test_a_rerun_takes_out_hooks_earlier_versions_wired(agent: str, retired: str, matcher: str | None) -> None:
    """Codex PreToolUse and Gemini PreCompress are no longer wired; a re-run of init takes ours out only."""
    wiring = agents.Wiring(("ctx",), statusline=False, guard=True)
    ours = {"type": "command", "command": f"ctx hook {agent}"}
    theirs = {"type": "command", "command": "echo mine"}
    group = {"matcher": matcher} if matcher else {}
    old = {"hooks": {retired: [{**group, "hooks": [ours]}, {**group, "hooks": [theirs]}]}, "model": "x"}
    spec = agents.json_files(agent)[0]
    new = spec.add(old, wiring)
    assert new["hooks"][retired] == [{**group, "hooks": [theirs]}] and new["model"] == "x"
    assert spec.add(new, wiring) == new  # and a second run changes nothing
    assert retired not in spec.add({}, wiring)["hooks"]


def test_init_starts_the_first_code_index_build_in_the_background(repo: Path) -> None:
    from ctxops_code_graph import rebuild_reason

    done = run(repo)
    assert done.returncode == 0, done.stderr
    assert "note: no code index yet: building it in the background" in done.stdout
    deadline = time.monotonic() + 120
    while rebuild_reason(repo) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert rebuild_reason(repo) == ""
    again = run(repo)
    assert "building it in the background" not in again.stdout  # an index exists: nothing to start


def test_init_no_index_leaves_the_code_index_to_the_first_query(repo: Path) -> None:
    from ctxops_code_graph import rebuild_reason

    done = run(repo, "--no-index")
    assert done.returncode == 0, done.stderr
    assert "code index" not in done.stdout
    time.sleep(1.0)
    assert rebuild_reason(repo) == "no code index yet"


def test_ctx_argv_never_takes_a_ctx_from_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A `ctx` first on PATH (a repository's node_modules/.bin) is not this installation: never written."""
    planted = tmp_path / "node_modules" / ".bin"
    planted.mkdir(parents=True)
    (planted / "ctx").write_text("#!/bin/sh\n", encoding="utf-8")
    (planted / "ctx").chmod(0o755)
    monkeypatch.setenv("PATH", f"{planted}{os.pathsep}{os.environ.get('PATH', '')}")
    argv = init_cmd.ctx_argv()
    assert Path(argv[0]).is_absolute() and not argv[0].startswith(str(planted))
    assert argv == (str(Path(sys.executable).absolute().with_name("ctx")),)


def test_legacy_entries_are_recognised_in_every_form() -> None:
    assert agents.runs_ctx("ctx hook codex", "hook", "codex")
    assert agents.runs_ctx("'/opt/My Tools/bin/ctx' hook codex", "hook", "codex")
    assert agents.runs_ctx("/usr/bin/python3 -m ctxops_core hook codex", "hook", "codex")
    assert not agents.runs_ctx("my-wrapper ctx hook codex", "hook", "codex")
    assert not agents.runs_ctx("ctx hook codex --extra", "hook", "codex")
    assert not agents.runs_ctx("ctxx hook codex", "hook", "codex")


def test_every_form_of_the_ctx_command_is_recognised_as_ours() -> None:
    """Bare, absolute, and both interpreter forms: a re-run upgrades each, --remove finds each."""
    from ctxops_core.agents import ctx_prefix

    assert ctx_prefix(["ctx", "hook"]) == 1
    assert ctx_prefix(["/opt/v/bin/ctx", "hook"]) == 1
    assert ctx_prefix(["/usr/bin/python3", "-m", "ctxops_core", "hook"]) == 3
    assert ctx_prefix(["/usr/bin/python3", "-P", "-m", "ctxops_core", "hook"]) == 4
    assert ctx_prefix(["/usr/bin/python3", "-m", "ctxops_other"]) == 0
    assert ctx_prefix(["node_modules/.bin/ctxx"]) == 0


def test_after_a_pull_the_git_hook_reconciles_memories_in_the_foreground(tmp_path: Path) -> None:
    """post-merge/post-checkout/post-rewrite run `ctx mem reconcile` and wait for it (the agent's next hook
    then finds the memory snapshot current), then start `watch kick` in the background; post-commit only kicks."""
    calls = tmp_path / "calls.txt"
    script = tmp_path / "bin" / "ctx"
    script.parent.mkdir()
    script.write_text(
        f"#!{sys.executable}\nimport sys, time\n"
        "if sys.argv[1:3] == ['mem', 'reconcile']:\n    time.sleep(0.3)\n"
        f"open({str(calls)!r}, 'a').write(' '.join(sys.argv[1:]) + '\\n')\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    for hook in init_cmd.MEMORY_GIT_HOOKS:
        calls.unlink(missing_ok=True)
        body = init_cmd.git_hook_body((str(script),), hook)
        subprocess.run(["/bin/sh", "-c", body], check=True, timeout=30, env={"PATH": "/usr/bin:/bin"})
        # the reconcile finished before the hook returned (it sleeps first), whatever the kick has done yet
        assert calls.read_text(encoding="utf-8").splitlines()[0] == "mem reconcile", hook
        deadline = time.monotonic() + 10
        while len(calls.read_text(encoding="utf-8").splitlines()) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert calls.read_text(encoding="utf-8").splitlines()[1] == f"watch kick --git-hook {hook}"
    assert "mem reconcile" not in init_cmd.git_hook_body((str(script),), "post-commit")
    # ctx uninstalled: the hook says nothing and runs nothing
    script.unlink()
    before = calls.read_text(encoding="utf-8")
    subprocess.run(["/bin/sh", "-c", init_cmd.git_hook_body((str(script),), "post-merge")], check=False, timeout=30)
    assert calls.read_text(encoding="utf-8") == before


def test_a_real_pull_folds_the_pulled_memories_before_the_agent_hook(repo: Path) -> None:
    """`ctx init`'s post-merge hook, run by a real `git pull`: the memory snapshot names the new HEAD and holds
    the pulled memory before any agent hook runs."""
    import sqlite3

    from ctxops_memory_store import MemoryStore, new_entry, snapshot
    from ctxops_memory_store.entry_file import file_name, render_entry

    memory = repo / ".meta" / "memory"
    memory.mkdir(parents=True)
    for n in range(snapshot.MIN_FILES + 1):  # a store large enough to keep a snapshot
        entry = new_entry(kind="fact", title=f"note {n} about module m{n}")
        (memory / file_name(entry)).write_text(render_entry(entry), encoding="utf-8")
    MemoryStore(repo).sync_snapshot()
    assert run(repo, "--no-index", "--agent", "claude-code").returncode == 0
    git(repo, "add", ".meta/memory")
    git(repo, "commit", "-qm", "memories")
    upstream = repo.parent / "upstream"
    git(repo.parent, "clone", "-q", str(repo), str(upstream))
    pulled = new_entry(kind="lesson", title="Pin the node version in .nvmrc")
    (upstream / ".meta" / "memory" / file_name(pulled)).write_text(render_entry(pulled), encoding="utf-8")
    git(upstream, "add", ".meta/memory")
    git(upstream, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "theirs")
    git(repo, "pull", "-q", "--ff-only", str(upstream), "HEAD")
    con = sqlite3.connect(repo / ".meta" / "index" / snapshot.NAME)
    try:
        meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
        entries = [e for (e,) in con.execute("SELECT entry FROM docs")]
    finally:
        con.close()
    assert meta["git_head"] == git(repo, "rev-parse", "HEAD").strip()
    assert meta["files"] == str(snapshot.MIN_FILES + 2)
    assert any("nvmrc" in e for e in entries)
