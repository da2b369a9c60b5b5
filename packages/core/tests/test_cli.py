"""`ctx`: built-in commands, plugin discovery, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import version

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
    for name, command in discover().items():
        assert command.distribution, name
        assert ":" in command.target


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
