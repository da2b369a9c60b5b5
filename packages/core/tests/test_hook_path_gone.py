"""A hook whose ctx is gone (a deleted or moved venv, an upgrade) never breaks the agent, says so once,
`ctx doctor` names the fix and `ctx init` repairs it (issue 22, item 1). With a real venv."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from ctxops_core import agents

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the guarded hook is a POSIX shell command")

SESSION_START = {"hook_event_name": "SessionStart", "session_id": "s-gone", "source": "startup"}


def _venv_with_ctx(where: Path) -> Path:
    """A real venv (its own python) whose site-packages reach this installation's, and a `ctx` console
    script in its bin/, as pip would write it."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=120)
    python = where / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    ours = sysconfig.get_paths()["purelib"]
    Path(site, "zz_ctxops_test.pth").write_text(f"import site; site.addsitedir({ours!r})\n", encoding="utf-8")
    script = where / "bin" / "ctx"
    script.write_text(f"#!{python}\nimport sys\nfrom ctxops_core.cli import main\nsys.exit(main())\n", encoding="utf-8")
    script.chmod(0o755)
    return script


def _hook(command: str, repo: Path) -> subprocess.CompletedProcess[str]:
    payload = {**SESSION_START, "cwd": str(repo)}
    return subprocess.run(
        ["/bin/sh", "-c", command],
        input=json.dumps(payload),
        cwd=repo,
        env={"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp")},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _stop_command(repo: Path) -> str:
    doc = json.loads((repo / ".claude" / "settings.json").read_text(encoding="utf-8"))
    (command,) = [h["command"] for group in doc["hooks"]["SessionStart"] for h in group["hooks"]]
    return str(command)


@pytest.mark.parametrize("how", ["deleted", "moved"])
def test_a_vanished_venv_is_told_once_named_by_doctor_and_repaired_by_init(tmp_path: Path, how: str) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    venv = tmp_path / "venv"
    ctx = _venv_with_ctx(venv)
    done = subprocess.run(
        [str(ctx), "init", "--agent", "claude-code", "--no-index"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    command = _stop_command(repo)
    assert agents.split_command(command) == [str(ctx), "hook", "claude-code"]
    working = _hook(command, repo)
    assert working.returncode == 0 and "systemMessage" not in working.stdout, working.stderr

    if how == "deleted":
        shutil.rmtree(venv)
    else:
        venv.rename(tmp_path / "venv-moved")
    first = _hook(command, repo)
    assert first.returncode == 0 and first.stderr == ""
    told = json.loads(first.stdout)["systemMessage"]
    assert str(ctx) in told and "ctx init" in told
    again = _hook(command, repo)
    assert (again.returncode, again.stdout, again.stderr) == (0, "", "")  # once

    doctor = subprocess.run(
        [sys.executable, "-m", "ctxops_core", "doctor", "--root", str(repo)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert f"`{ctx}` does not exist or is not executable" in doctor.stdout
    assert "fix: run `ctx init --agent claude-code`" in doctor.stdout

    # ctx init from the installation that is there now rewires every hook, and a later loss is told again
    rewired = subprocess.run(
        [sys.executable, "-m", "ctxops_core", "init", "--agent", "claude-code", "--no-index"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert rewired.returncode == 0, rewired.stderr
    repaired = _stop_command(repo)
    assert str(ctx) not in repaired and agents.runs_ctx(repaired, "hook", "claude-code")
    assert not list((repo / ".meta" / ".state").glob("hook-gone-*"))
    after = _hook(repaired, repo)
    assert after.returncode == 0 and "systemMessage" not in after.stdout
    settings = (repo / ".claude" / "settings.json").read_text(encoding="utf-8")
    assert str(ctx) not in settings


def test_a_hook_with_no_repository_note_still_exits_0_and_tells(tmp_path: Path) -> None:
    command = agents.guarded_hook((str(tmp_path / "gone" / "ctx"),), "gemini")
    for _ in range(2):  # no place for the note: told each time, never an error
        run = subprocess.run(["/bin/sh", "-c", command], input="{}", capture_output=True, text=True, check=False)
        assert run.returncode == 0 and run.stderr == ""
        assert "is gone" in json.loads(run.stdout)["systemMessage"]
    cursor = agents.guarded_hook((str(tmp_path / "gone" / "ctx"),), "cursor", str(tmp_path))
    run = subprocess.run(["/bin/sh", "-c", cursor], input="{}", capture_output=True, text=True, check=False)
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")


def test_only_the_guarded_form_of_ctx_is_read_as_ours() -> None:
    guarded = agents.guarded_hook(("/opt/v/bin/ctx",), "codex", "/r")
    assert agents.runs_ctx(guarded, "hook", "codex") and not agents.runs_ctx(guarded, "hook", "gemini")
    # a user's own guard around another program, or a test of one path exec'ing another, is not ours
    assert not agents.runs_ctx("test -x /opt/lint && exec /opt/lint hook codex; exit 0", "hook", "codex")
    assert not agents.runs_ctx("test -x /opt/v/bin/ctx && exec /evil/ctx hook codex", "hook", "codex")
    assert agents.split_command("test -x /opt/v/bin/ctx && exec /evil/ctx hook codex") == [
        "test",
        "-x",
        "/opt/v/bin/ctx",
        "&&",
        "exec",
        "/evil/ctx",
        "hook",
        "codex",
    ]
