"""The [lines] switch: which of map, memory and guard act in a repository (config, environment, the hook)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from ctxops_core import lines


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".meta").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_every_line_is_on_without_a_setting(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(lines.ENV, raising=False)
    assert lines.enabled(str(repo)) == frozenset(lines.LINES)
    (repo / ".meta" / "config.toml").write_text("[memory]\nauto_accept = true\n")
    assert lines.enabled(str(repo)) == frozenset(lines.LINES)


def test_config_and_environment_switch_lines_off(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(lines.ENV, raising=False)
    (repo / ".meta" / "config.toml").write_text("# mine\n" + lines.config_block({"map", "guard"}))
    assert lines.enabled(str(repo)) == {"map", "guard"}
    assert not lines.is_on(str(repo), "memory")
    monkeypatch.setenv(lines.ENV, "memory")  # the environment wins over the file
    assert lines.enabled(str(repo)) == {"memory"}
    monkeypatch.setenv(lines.ENV, "none")
    assert lines.enabled(str(repo)) == frozenset()
    monkeypatch.setenv(lines.ENV, "all")
    assert lines.enabled(str(repo)) == frozenset(lines.LINES)


def test_a_bad_setting_names_itself_and_leaves_hooks_working(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(lines.ENV, "map,ledger")
    with pytest.raises(lines.LinesError, match="'ledger' is not a line"):
        lines.enabled(str(repo))
    assert lines.is_on(str(repo), "memory")  # a hook keeps every line on rather than fail the agent
    monkeypatch.delenv(lines.ENV)
    (repo / ".meta" / "config.toml").write_text("[lines]\nenabled = 3\n")
    with pytest.raises(lines.LinesError, match="must be a list"):
        lines.enabled(str(repo))


def _prompt_hook(repo: Path, env: dict[str, str], session: str) -> subprocess.CompletedProcess[bytes]:
    payload = {
        "session_id": session,  # a memory is injected once a session: each call is a session of its own
        "cwd": str(repo),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "how are refund totals stored? money",
    }
    return subprocess.run(
        [sys.executable, "-m", "ctxops_core", "hook", "claude-code"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        cwd=repo,
        env=env,
        check=False,
    )


def test_a_hook_injects_nothing_when_memory_is_off(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("ctxops_memory_inject", reason="the memory line is not installed in this environment")
    import os

    monkeypatch.delenv(lines.ENV, raising=False)
    env = {k: v for k, v in os.environ.items() if k != lines.ENV}
    added = subprocess.run(
        [sys.executable, "-m", "ctxops_core", "mem", "add", "--kind", "lesson", "--title",
         "Refund money is Decimal, never float", "--body", "Refund totals drift with float."],
        cwd=repo, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    on = _prompt_hook(repo, env, "s-1")
    assert on.returncode == 0 and "Decimal" in on.stdout.decode(), on.stdout + on.stderr
    (repo / ".meta" / "config.toml").write_text(lines.config_block({"map", "guard"}))
    off = _prompt_hook(repo, env, "s-2")
    assert off.returncode == 0 and off.stdout == b"", off.stdout
    assert _prompt_hook(repo, {**env, lines.ENV: "memory"}, "s-3").stdout.decode().count("Decimal") >= 1
