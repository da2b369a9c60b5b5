"""Promise 5: the wiring `ctx init` writes trusts nothing it did not write (docs/security.md).

A repository ships `node_modules/.bin/ctx` and the shell puts it first on PATH (npm scripts, direnv and
many prompts do). Every command `ctx init` wrote, run as the agent runs it (`/bin/sh -c COMMAND` with that
PATH, the event's JSON on stdin), and the git hooks, run by a real `git commit`, must reach this
installation's ctx and never the planted one. Claude Code approves only the ctxops server of `.mcp.json`,
so a server a later commit adds there is not approved. Real processes and files throughout.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest
from ctxops_core import agents, init_cmd

BIN = Path(sys.executable).parent
CTX = BIN / "ctx"

PLANTED = """#!/bin/sh
echo "$0 $*" >> {marker}
exit 0
"""

# One event per agent, as its hooks send them (the commands run for every event alike).
PAYLOADS = {
    "claude-code": {"hook_event_name": "UserPromptSubmit", "session_id": "s", "prompt": "hello"},
    "codex": {"hook_event_name": "UserPromptSubmit", "session_id": "s", "prompt": "hello"},
    "gemini": {"hook_event_name": "BeforeAgent", "session_id": "s", "prompt": "hello"},
    "cursor": {"hook_event_name": "beforeSubmitPrompt", "conversation_id": "s", "prompt": "hello"},
}
AGENT_FILES = {
    "claude-code": ".claude/settings.json",
    "codex": ".codex/hooks.json",
    "gemini": ".gemini/settings.json",
    "cursor": ".cursor/hooks.json",
}


def git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True, env=env, timeout=60
    )
    return done.stdout


@pytest.fixture()
def hostile(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """A repository with a planted `node_modules/.bin/ctx` that records every run in `marker`, and the
    environment of a shell that put that directory first on PATH."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "t@example.com")
    git(repo, "config", "user.name", "t")
    (repo / "app.py").write_text("def main():\n    return 1\n", encoding="utf-8")
    marker = tmp_path / "planted-ran"
    planted = repo / "node_modules" / ".bin" / "ctx"
    planted.parent.mkdir(parents=True)
    planted.write_text(PLANTED.format(marker=shlex.quote(str(marker))), encoding="utf-8")
    planted.chmod(0o755)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "first")
    env = {
        **os.environ,
        "PATH": f"{planted.parent}{os.pathsep}{BIN}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "CTXOPS_DATA_DIR": str(tmp_path / "data"),
    }
    env.pop("CTXOPS_ROOT", None)
    return repo, marker, env


def ctx(repo: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CTX), *args], cwd=repo, env=env, capture_output=True, text=True, check=False, timeout=120
    )


def commands(doc: Any) -> list[str]:
    found: list[str] = []
    if isinstance(doc, dict):
        for key, value in doc.items():
            found += [value] if key == "command" and isinstance(value, str) else commands(value)
    elif isinstance(doc, list):
        for value in doc:
            found += commands(value)
    return found


def test_the_planted_ctx_never_runs_from_any_command_init_wrote(hostile: tuple[Path, Path, dict[str, str]]) -> None:
    repo, marker, env = hostile
    # The planted ctx wins the lookup in this shell: the attack is real.
    assert subprocess.run(["sh", "-c", "ctx --version"], env=env, cwd=repo, check=False).returncode == 0
    assert marker.exists()
    marker.unlink()

    done = ctx(repo, env, "init", "--agent", "all", "--no-index")
    assert done.returncode == 0, done.stderr
    ran = 0
    for agent, rel in AGENT_FILES.items():
        doc = json.loads((repo / rel).read_text(encoding="utf-8"))
        found = commands(doc)
        assert found, rel
        for command in dict.fromkeys(found):
            words = agents.split_command(command) or []  # a guarded hook: the argv it execs
            assert Path(words[0]).is_absolute(), command
            assert Path(words[0]).samefile(CTX) or words[1:4] == ["-P", "-m", "ctxops_core"], command
            payload = {**PAYLOADS[agent], "cwd": str(repo)}
            run = subprocess.run(
                ["/bin/sh", "-c", command],
                input=json.dumps(payload),
                cwd=repo,
                env=env,
                capture_output=True,
                text=True,
                check=False,
                timeout=60,
            )
            assert run.returncode == 0, (command, run.stderr)
            ran += 1
    assert ran >= 5  # the hooks of four agents and Claude Code's status line
    # MCP servers are started without a shell, from command + args.
    for rel in (".mcp.json", ".gemini/settings.json", ".cursor/mcp.json"):
        server = json.loads((repo / rel).read_text(encoding="utf-8"))["mcpServers"]["ctxops"]
        assert Path(server["command"]).samefile(CTX) and server["args"] == ["mcp"], rel
    codex = tomllib.loads((repo / ".codex" / "config.toml").read_text(encoding="utf-8"))
    assert Path(codex["mcp_servers"]["ctxops"]["command"]).samefile(CTX)

    # git runs its hooks through the shell with the caller's PATH: a real commit with the planted ctx first.
    (repo / "app.py").write_text("def main():\n    return 2\n", encoding="utf-8")
    git(repo, "commit", "-qam", "second", env=env)
    git(repo, "checkout", "-q", "-b", "topic", env=env)
    time.sleep(1.0)  # the hooks start `ctx watch kick` in the background
    hook = (repo / ".git" / "hooks" / "post-commit").read_text(encoding="utf-8")
    assert shlex.quote(str(init_cmd.ctx_argv()[0])) in hook and " ctx " not in hook
    assert not marker.exists(), marker.read_text(encoding="utf-8")

    doctor = ctx(repo, env, "doctor", "--json")
    problems = json.loads(doctor.stdout)["problems"]
    assert not [p for p in problems if "PATH" in p["message"] or "not executable" in p["message"]], problems


def test_only_the_ctxops_server_is_approved_and_a_later_one_is_not(hostile: tuple[Path, Path, dict[str, str]]) -> None:
    repo, _, env = hostile
    settings = repo / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"enabledMcpjsonServers": ["docs"]}), encoding="utf-8")
    assert ctx(repo, env, "init", "--no-index").returncode == 0
    doc = json.loads(settings.read_text(encoding="utf-8"))
    assert agents.APPROVE_ALL_KEY not in doc
    assert doc[agents.APPROVE_KEY] == ["docs", "ctxops"]  # merged into the user's list
    # A later commit adds a server to .mcp.json: nothing in the settings approves it.
    mcp = json.loads((repo / ".mcp.json").read_text(encoding="utf-8"))
    mcp["mcpServers"]["exfiltrate"] = {"type": "stdio", "command": "node_modules/.bin/evil", "args": []}
    (repo / ".mcp.json").write_text(json.dumps(mcp), encoding="utf-8")
    assert ctx(repo, env, "init", "--no-index").returncode == 0
    doc = json.loads(settings.read_text(encoding="utf-8"))
    assert "exfiltrate" not in doc[agents.APPROVE_KEY] and agents.APPROVE_ALL_KEY not in doc
    # Somebody sets the approve-all switch: doctor says what it does and how to fix it.
    settings.write_text(json.dumps({**doc, agents.APPROVE_ALL_KEY: True}), encoding="utf-8")
    doctor = ctx(repo, env, "doctor", "--json")
    assert doctor.returncode == 4
    messages = [p["message"] for p in json.loads(doctor.stdout)["problems"]]
    assert any("enableAllProjectMcpServers: true" in m and "later commit" in m for m in messages), messages
    assert ctx(repo, env, "init", "--remove").returncode == 0
    assert json.loads(settings.read_text(encoding="utf-8"))[agents.APPROVE_KEY] == ["docs"]  # the user's own


def test_a_rerun_upgrades_bare_entries_of_earlier_versions_in_place(
    hostile: tuple[Path, Path, dict[str, str]],
) -> None:
    """What `ctx init` wrote before (bare `ctx`, enableAllProjectMcpServers) is upgraded by a re-run: no bare
    command left, no duplicate, the user's own entries untouched; doctor flags the bare form first."""
    repo, marker, env = hostile
    legacy = init_cmd.plan_init(repo, list(agents.AGENT_NAMES), ("ctx",), True, guard=True)
    init_cmd.apply_init(repo, legacy)
    settings = repo / ".claude" / "settings.json"
    doc = json.loads(settings.read_text(encoding="utf-8"))
    doc[agents.APPROVE_ALL_KEY] = True  # as versions before this one wrote it
    del doc[agents.APPROVE_KEY]
    doc["hooks"]["Stop"].append({"hooks": [{"type": "command", "command": "npx prettier --check ."}]})
    settings.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    assert "ctx hook claude-code" in commands(doc)

    before = ctx(repo, env, "doctor", "--json")
    messages = [p["message"] for p in json.loads(before.stdout)["problems"]]
    assert any("PATH finds first" in m and "node_modules/.bin/ctx" in m for m in messages), messages

    assert ctx(repo, env, "init", "--agent", "all", "--no-index").returncode == 0
    for rel in (*AGENT_FILES.values(), ".mcp.json"):
        text = (repo / rel).read_text(encoding="utf-8")
        found = commands(json.loads(text))
        assert not [c for c in found if c.startswith("ctx ")], (rel, found)
    doc = json.loads(settings.read_text(encoding="utf-8"))
    stop = commands(doc["hooks"]["Stop"])
    wiring = init_cmd.agents.Wiring(init_cmd.ctx_argv(), True, root=str(repo.resolve()))
    assert stop.count(wiring.hook("claude-code")) == 1
    assert "npx prettier --check ." in stop
    assert agents.APPROVE_ALL_KEY not in doc and doc[agents.APPROVE_KEY] == ["ctxops"]
    for hook in init_cmd.GIT_HOOKS:
        text = (repo / ".git" / "hooks" / hook).read_text(encoding="utf-8")
        assert "command -v ctx" not in text and text.count("watch kick") == 1
    mcp = json.loads((repo / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]["ctxops"]
    assert Path(mcp["command"]).samefile(CTX)
    assert "ctx" not in (repo / ".codex" / "config.toml").read_text(encoding="utf-8").split("command = ")[1][:6]

    after = ctx(repo, env, "doctor", "--json")
    messages = [p["message"] for p in json.loads(after.stdout)["problems"]]
    assert not [m for m in messages if "PATH" in m or "enableAll" in m], messages
    # --remove finds every form: nothing of ctxops is left, the user's hook stays.
    assert ctx(repo, env, "init", "--remove").returncode == 0
    left = json.loads(settings.read_text(encoding="utf-8"))
    assert commands(left) == ["npx prettier --check ."]
    assert not marker.exists()


def test_a_dangling_command_is_flagged_with_its_fix(hostile: tuple[Path, Path, dict[str, str]]) -> None:
    repo, _, env = hostile
    assert ctx(repo, env, "init", "--no-index").returncode == 0
    settings = repo / ".claude" / "settings.json"
    text = settings.read_text(encoding="utf-8")
    settings.write_text(text.replace(json.dumps(str(CTX))[1:-1], "/gone/venv/bin/ctx"), encoding="utf-8")
    doctor = ctx(repo, env, "doctor", "--json")
    problems = json.loads(doctor.stdout)["problems"]
    gone = [p for p in problems if "/gone/venv/bin/ctx" in p["message"]]
    assert gone and "does not exist" in gone[0]["message"] and "ctx init --agent claude-code" in gone[0]["fix"]


def test_a_path_with_spaces_is_quoted_for_the_shell(tmp_path: Path) -> None:
    """Each agent runs the command through a shell: an installation under a path with spaces and quotes
    still gets exactly the arguments ctxops wrote."""
    where = tmp_path / "My Tools" / "it's here" / "bin"
    where.mkdir(parents=True)
    out = tmp_path / "argv.json"
    script = where / "ctx"
    script.write_text(
        f"#!{sys.executable}\nimport json, sys\njson.dump(sys.argv[1:], open({str(out)!r}, 'w'))\n", encoding="utf-8"
    )
    script.chmod(0o755)
    wiring = agents.Wiring(argv=(str(script),), statusline=True)
    for agent in agents.AGENT_NAMES:
        for spec in agents.json_files(agent):
            doc = spec.add({}, wiring)
            doc.pop("mcpServers", None)  # command + args, run without a shell (checked above)
            for command in dict.fromkeys(commands(doc)):
                out.unlink(missing_ok=True)
                subprocess.run(["/bin/sh", "-c", command], check=True, timeout=30, env={"PATH": "/usr/bin:/bin"})
                assert json.loads(out.read_text(encoding="utf-8")) == (agents.split_command(command) or [])[1:], command
    body = init_cmd.git_hook_body((str(script),), "post-commit").replace("&)", ")")  # in the foreground here
    out.unlink(missing_ok=True)
    subprocess.run(["/bin/sh", "-c", body], check=True, timeout=30, env={"PATH": "/usr/bin:/bin"})
    assert json.loads(out.read_text(encoding="utf-8")) == ["watch", "kick", "--git-hook", "post-commit"]
