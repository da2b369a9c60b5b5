"""Trust screens, with the real clients: `ctx doctor` reads each client's own trust record, and is right.

- Gemini CLI 0.61 in a folder it does not trust: `ctx doctor` names the problem, and headless Gemini
  exits 55 without running a hook. With the folder in `~/.gemini/trustedFolders.json` (the file and format
  Gemini CLI keeps its trust in), doctor is satisfied and Gemini runs ctxops's hooks.
- Codex CLI 0.171 in a trusted project whose hooks nobody reviewed: doctor names the untrusted hooks (its
  keys are exactly the keys Codex's own `hooks/list` reports) and `codex exec` runs none of them. Once the
  hooks are trusted the way `/hooks` does it (Codex's app server writes the hashes into its config.toml),
  doctor is satisfied and the next session is captured.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agent_harness import Scenario, ScriptedModelServer, turn
from agent_harness.codex_cli import ensure_codex, project_hooks, run_codex, write_codex_config
from agent_harness.ctx_repo import CtxRepo, wired_example
from agent_harness.gemini_cli import ensure_gemini_cli, run_gemini, write_gemini_user_settings
from ctxops_core import agent_trust

pytestmark = pytest.mark.e2e


def _doctor(repo: CtxRepo, env: dict[str, str]) -> dict[str, object]:
    done = repo.ctx("doctor", "--json", env=env)
    assert done.returncode in {0, 4}, done.stdout + done.stderr
    return dict(json.loads(done.stdout))


def _problems(report: dict[str, object], agent: str) -> list[str]:
    problems = report["problems"]
    assert isinstance(problems, list)
    return [p["message"] for p in problems if p["area"] == agent]


def test_gemini_folder_trust_is_read_from_gemini_s_own_file(tmp_path: Path) -> None:
    exe = ensure_gemini_cli()
    repo, _ = wired_example(tmp_path, "gemini")
    home = tmp_path / "home"
    write_gemini_user_settings(home)
    env = {"GEMINI_CLI_HOME": str(home), "GEMINI_CLI_TRUST_WORKSPACE": ""}
    untrusted = _problems(_doctor(repo, env), "gemini")
    assert any("not a trusted folder" in m or "no trusted folder" in m for m in untrusted), untrusted

    no_trust = {**repo.agent_env(), "GEMINI_CLI_TRUST_WORKSPACE": None}
    with ScriptedModelServer(Scenario([turn("Hi.")]), seed=5) as server:
        refused = run_gemini(repo.project, home, "hello", server.url, env=no_trust, executable=exe)
        assert refused.returncode == agent_trust.GEMINI_UNTRUSTED_EXIT, refused.stderr[-2000:]
        assert "not running in a trusted directory" in refused.stderr
        assert repo.events() == []  # no hook ran

        # Trusted as Gemini CLI records it (utils/trust.ts: path -> TRUST_FOLDER, file mode 0600).
        trusted = home / ".gemini" / "trustedFolders.json"
        trusted.write_text(json.dumps({str(repo.project): "TRUST_FOLDER"}, indent=2), encoding="utf-8")
        trusted.chmod(0o600)
        assert _problems(_doctor(repo, env), "gemini") == []
        run_gemini(repo.project, home, "hello", server.url, env=no_trust, executable=exe).check()
    assert [e["text"] for e in repo.events() if e["kind"] == "user_message"] == ["hello"]


def test_codex_hook_trust_is_read_from_codex_s_own_config(tmp_path: Path) -> None:
    exe = ensure_codex()
    repo, _ = wired_example(tmp_path, "codex")
    home = tmp_path / "home"
    env = {"CODEX_HOME": str(home / ".codex")}
    with ScriptedModelServer(Scenario([turn("Hi.")]), seed=7) as server:
        write_codex_config(home / ".codex", server.url, repo.project)  # the project trusted, its hooks not
        listed = project_hooks(repo.project, home, executable=exe)
        assert {h["trustStatus"] for h in listed} == {"untrusted"}
        # doctor names the same hooks Codex lists: its keys are Codex's own
        assert sorted(agent_trust.codex_hook_keys(repo.project)) == sorted(h["key"] for h in listed)
        problems = _problems(_doctor(repo, env), "codex")
        assert any("not trusted in /hooks" in m for m in problems), problems

        run_codex(repo.project, home, "hello", env=repo.agent_env(), executable=exe, bypass_hook_trust=False).check()
        assert repo.events() == []  # Codex skipped every untrusted hook: nothing captured, silently

        trusted = project_hooks(repo.project, home, trust=True, executable=exe)
        assert {h["trustStatus"] for h in trusted} == {"trusted"}
        assert _problems(_doctor(repo, env), "codex") == []
        server.set_scenario(Scenario([turn("Hi again.")]))
        run_codex(repo.project, home, "again", env=repo.agent_env(), executable=exe, bypass_hook_trust=False).check()
    assert [e["text"] for e in repo.events() if e["kind"] == "user_message"] == ["again"]
