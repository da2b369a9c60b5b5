"""agent_trust: Gemini's folder trust and Codex's hook trust read from the files those clients keep them in.

The formats are the clients' own (Gemini CLI 0.61 utils/trust.ts, Codex CLI 0.171 hooks discovery: checked
against the real clients in tests/e2e/test_agent_trust_e2e.py); here every rule is exercised on real files.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from ctxops_core import agent_trust, agents, init_cmd


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def _gemini_env(home: Path) -> dict[str, str]:
    return {"GEMINI_CLI_HOME": str(home)}


def _trusted_folders(home: Path, rules: object) -> None:
    path = home / ".gemini" / "trustedFolders.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rules, indent=2), encoding="utf-8")


def test_gemini_untrusted_without_a_record(repo: Path, tmp_path: Path) -> None:
    state = agent_trust.gemini_trust(repo, _gemini_env(tmp_path / "home"))
    assert state.trusted is False and state.problem and "no trusted folder" in state.problem


@pytest.mark.parametrize(
    ("rules", "trusted"),
    [
        ({"{repo}": "TRUST_FOLDER"}, True),
        ({"{parent}": "TRUST_FOLDER"}, True),  # a trusted folder trusts what is under it
        ({"{repo}/x": "TRUST_PARENT"}, True),  # TRUST_PARENT trusts the rule path's parent
        ({"{parent}": "TRUST_FOLDER", "{repo}": "DO_NOT_TRUST"}, False),  # the longest match decides
        ({"{repo}": "DO_NOT_TRUST", "{parent}": "TRUST_FOLDER"}, False),
        ({"{repo}-other": "TRUST_FOLDER"}, False),  # a sibling with the same prefix is not a parent
        ({"{repo}": "MAYBE"}, False),  # not a trust level: ignored, as Gemini ignores it
    ],
)
def test_gemini_rules_decide_as_gemini_does(repo: Path, tmp_path: Path, rules: dict[str, str], trusted: bool) -> None:
    home = tmp_path / "home"
    filled = {k.format(repo=repo, parent=repo.parent): v for k, v in rules.items()}
    _trusted_folders(home, filled)
    state = agent_trust.gemini_trust(repo, _gemini_env(home))
    assert state.trusted is trusted, (filled, state)
    assert (state.problem is None) is trusted


def test_gemini_environment_and_settings(repo: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    _trusted_folders(home, {str(repo): "TRUST_FOLDER"})
    assert agent_trust.gemini_trust(repo, {**_gemini_env(home), "GEMINI_CLI_TRUST_WORKSPACE": "false"}).trusted is False
    assert agent_trust.gemini_trust(
        repo, {**_gemini_env(tmp_path / "h2"), "GEMINI_CLI_TRUST_WORKSPACE": "true"}
    ).trusted
    other = tmp_path / "elsewhere.json"
    other.write_text(json.dumps({str(repo): "DO_NOT_TRUST"}), encoding="utf-8")
    env = {**_gemini_env(home), "GEMINI_CLI_TRUSTED_FOLDERS_PATH": str(other)}
    assert agent_trust.gemini_trust(repo, env).trusted is False
    settings = tmp_path / "h3" / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"security": {"folderTrust": {"enabled": false}}}', encoding="utf-8")
    assert agent_trust.gemini_trust(repo, _gemini_env(tmp_path / "h3")).trusted is True


def test_gemini_comments_are_allowed_and_a_broken_file_is_named(repo: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = home / ".gemini" / "trustedFolders.json"
    path.parent.mkdir(parents=True)
    path.write_text(f'// trusted by me\n{{"{repo}": "TRUST_FOLDER"}}\n', encoding="utf-8")
    assert agent_trust.gemini_trust(repo, _gemini_env(home)).trusted is True
    path.write_text("{not json", encoding="utf-8")
    state = agent_trust.gemini_trust(repo, _gemini_env(home))
    assert state.trusted is None and state.problem and "refuse to start" in state.problem


def _codex_config(home: Path, text: str) -> dict[str, str]:
    (home / ".codex").mkdir(parents=True, exist_ok=True)
    (home / ".codex" / "config.toml").write_text(text, encoding="utf-8")
    return {"CODEX_HOME": str(home / ".codex")}


def _wire_codex(repo: Path) -> list[str]:
    assert init_cmd.main(["--root", str(repo), "--agent", "codex", "--no-index"]) == 0
    return agent_trust.codex_hook_keys(repo)


def test_codex_keys_name_each_ctxops_hook(repo: Path) -> None:
    keys = _wire_codex(repo)
    source = str((repo / ".codex" / "hooks.json").absolute())
    labels = {agent_trust._CODEX_LABELS[e] for e in agents.CODEX_EVENTS}
    assert sorted(keys) == sorted(f"{source}:{label}:0:0" for label in labels)


def test_codex_project_and_hook_trust(repo: Path, tmp_path: Path) -> None:
    keys = _wire_codex(repo)
    home = tmp_path / "home"
    env = _codex_config(home, "")
    state = agent_trust.codex_trust(repo, env)
    assert state.trusted is False and state.problem and "not trusted yet" in state.problem

    project = f'[projects."{repo}"]\ntrust_level = "trusted"\n'
    state = agent_trust.codex_trust(repo, _codex_config(home, project))
    assert state.trusted is False and state.problem and f"{len(keys)} of ctxops's {len(keys)}" in state.problem

    # As Codex writes it after /hooks -> trust (its config/batchWrite of hooks.state).
    entries = "".join(f'\n[hooks.state."{k}"]\ntrusted_hash = "sha256:{i:064x}"\n' for i, k in enumerate(keys))
    state = agent_trust.codex_trust(repo, _codex_config(home, project + entries))
    assert state.trusted is True and state.problem is None
    assert state.details == {"project_trust": "trusted", "hooks": len(keys), "untrusted_hooks": 0}

    one_short = "".join(f'\n[hooks.state."{k}"]\ntrusted_hash = "sha256:{i:064x}"\n' for i, k in enumerate(keys[1:]))
    state = agent_trust.codex_trust(repo, _codex_config(home, project + one_short))
    assert state.trusted is False and state.problem and f"1 of ctxops's {len(keys)}" in state.problem

    disabled = entries + f'\n[hooks.state."{keys[0]}x"]\nenabled = false\n'  # another key: not ours
    assert agent_trust.codex_trust(repo, _codex_config(home, project + disabled)).trusted is True
    off = project + entries.replace('trusted_hash = "sha256:' + "0" * 64 + '"', 'enabled = false\ntrusted_hash = "x"')
    state = agent_trust.codex_trust(repo, _codex_config(home, off))
    assert state.trusted is False and state.problem and "disabled" in state.problem

    untrusted = f'[projects."{repo}"]\ntrust_level = "untrusted"\n'
    state = agent_trust.codex_trust(repo, _codex_config(home, untrusted + entries))
    assert state.trusted is False and state.problem and "is untrusted" in state.problem


def test_codex_unreadable_config_is_named(repo: Path, tmp_path: Path) -> None:
    _wire_codex(repo)
    state = agent_trust.codex_trust(repo, _codex_config(tmp_path / "home", "[projects\nbroken"))
    assert state.trusted is None and state.problem and "cannot read" in state.problem


def test_doctor_reports_trust_per_agent(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ctxops_core import doctor

    assert init_cmd.main(["--root", str(repo), "--agent", "gemini", "--no-index"]) == 0
    home = tmp_path / "home"
    monkeypatch.setenv("GEMINI_CLI_HOME", str(home))
    monkeypatch.delenv("GEMINI_CLI_TRUST_WORKSPACE", raising=False)
    report = doctor.diagnose(repo)
    assert any(p.area == "gemini" and "trusted folder" in p.message for p in report.problems)
    _trusted_folders(home, {str(repo): "TRUST_FOLDER"})
    report = doctor.diagnose(repo)
    assert not [p for p in report.problems if p.area == "gemini"]
    line = next(x for x in doctor.render(report).splitlines() if x.strip().startswith("gemini"))
    assert "; trusted (" in line


def test_init_says_what_each_agent_needs(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert init_cmd.main(["--root", str(repo), "--agent", "all", "--no-index", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "Gemini CLI reads .gemini/settings.json" in out and "exits 55" in out
    assert "open /hooks and trust ctxops's hooks" in out
    assert agent_trust.init_notes(["claude-code"]) == []


# Cursor's published hooks.json shape: top-level "version": 1, "hooks": event -> list of direct command entries
# (no nested matcher groups: those do not fire in Cursor), with Cursor's event names.
CURSOR_EVENT_NAMES = {
    "sessionStart",
    "sessionEnd",
    "beforeSubmitPrompt",
    "beforeShellExecution",
    "afterShellExecution",
    "beforeMCPExecution",
    "afterMCPExecution",
    "beforeReadFile",
    "afterFileEdit",
    "afterAgentResponse",
    "afterAgentThought",
    "preToolUse",
    "postToolUse",
    "postToolUseFailure",
    "preCompact",
    "stop",
    "subagentStop",
}


def test_cursor_files_have_cursor_s_published_shape(repo: Path) -> None:
    assert init_cmd.main(["--root", str(repo), "--agent", "cursor", "--no-index"]) == 0
    hooks = json.loads((repo / ".cursor" / "hooks.json").read_text(encoding="utf-8"))
    assert hooks["version"] == 1
    assert set(hooks["hooks"]) <= CURSOR_EVENT_NAMES
    for entries in hooks["hooks"].values():
        assert isinstance(entries, list)
        for entry in entries:
            assert set(entry) == {"command"} and agents.runs_ctx(entry["command"], "hook", "cursor")
    mcp = json.loads((repo / ".cursor" / "mcp.json").read_text(encoding="utf-8"))
    server = mcp["mcpServers"]["ctxops"]
    assert isinstance(server["command"], str) and server["args"][-1] == "mcp"
