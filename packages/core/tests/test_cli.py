"""`ctx`: built-in commands, plugin discovery, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from ctxops_core import cli
from ctxops_core.commands import discover


def test_help_lists_builtins(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "demo" in out and "version" in out


def test_unknown_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["no-such-command"]) == 2
    assert "unknown command 'no-such-command'" in capsys.readouterr().err


def test_version_json_reports_every_distribution(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["version", "--json"]) == 0
    versions = json.loads(capsys.readouterr().out)
    assert versions["ctxops"] == version("ctxops")
    assert versions["ctxops-contracts"] == version("ctxops-contracts")
    assert len(versions) == 10


def test_discovered_commands_name_their_distribution() -> None:
    found = discover()
    # The workspace installs every line: each one's commands must be discovered (an empty result fails).
    assert {"code", "mem", "ledger", "proxy", "hook"} <= set(found)
    for name, command in found.items():
        assert command.distribution, name
        assert ":" in command.target


@pytest.mark.parametrize(
    ("command", "usage"),
    [
        ("code", "usage: ctx code"),
        ("hook", "usage: ctx hook AGENT"),
        ("init", "usage: ctx init"),
        ("watch", "usage: ctx watch"),
        ("doctor", "usage: ctx doctor"),
        ("mcp", "usage: ctx mcp"),
    ],
)
def test_usage_lines_name_the_command_the_user_typed(command: str, usage: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ctxops_core", command, "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(usage), done.stdout[:200]


def test_a_builtin_takes_precedence_over_a_plugin_of_the_same_name() -> None:
    assert "hook" in discover()  # hooks-capture still offers its own `hook`
    assert cli._BUILTIN_MAIN["hook"] == "ctxops_core.hook_cmd"


def test_console_script_runs_as_a_process() -> None:
    done = subprocess.run([sys.executable, "-m", "ctxops_core", "version"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "ctxops-contracts" in done.stdout


def test_demo_skips_a_line_that_is_not_installed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from ctxops_core import demo

    def needs_missing_line(ctx: demo.DemoContext) -> list[str]:
        import ctxops_not_a_package  # type: ignore[import-not-found]  # noqa: F401

        return []

    monkeypatch.setattr(demo, "STEPS", [("example", demo.step_example), ("missing", needs_missing_line)])
    assert demo.main([]) == 0
    out = capsys.readouterr().out
    assert "skipped: ctxops_not_a_package is not installed" in out


def test_root_and_json_go_before_or_after_the_command(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    before = subprocess.run(
        [sys.executable, "-m", "ctxops_core", "--root", str(tmp_path), "--json", "watch", "status"],
        capture_output=True,
        text=True,
        check=False,
    )
    after = subprocess.run(
        [sys.executable, "-m", "ctxops_core", "watch", "status", "--root", str(tmp_path), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert before.returncode == after.returncode == 0, before.stderr
    assert json.loads(before.stdout) == json.loads(after.stdout)
    assert json.loads(before.stdout)["running"] is False


def test_ledger_statusline_runs_without_the_plugin_scan(tmp_path: Path) -> None:
    """Claude Code runs it on every update: no importlib.metadata, no argparse, the documented stdin JSON."""
    probe = (
        "import sys\n"
        "from ctxops_core.cli import main\n"
        "code = main(['ledger', 'statusline'])\n"
        "heavy = [m for m in ('importlib.metadata', 'argparse', 'duckdb') if m in sys.modules]\n"
        "sys.stderr.write(f'{code} {heavy}')\n"
    )
    env = {"PATH": "/usr/bin:/bin", "CTXOPS_DATA_DIR": str(tmp_path), "CTXOPS_STATUSLINE_NO_REFRESH": "1"}
    payload = json.dumps({"session_id": "s", "cost": {"total_cost_usd": 1.5}})
    done = subprocess.run(
        [sys.executable, "-c", probe], input=payload, capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout == "ctx session $1.50\n" and done.stderr == "0 []"
