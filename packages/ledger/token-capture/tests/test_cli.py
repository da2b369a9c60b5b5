"""The command line and the `ctx` entry points."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from ctxops_token_capture.cli import ledger_command, main
from ctxops_token_capture.synthetic import write_claude_sessions, write_codex_sessions


def test_entry_points_register_ledger_and_proxy() -> None:
    found = {
        ep.name: ep.value for ep in entry_points(group="ctxops.commands") if ep.value.startswith("ctxops_token_capture")
    }
    assert found == {
        "ledger": "ctxops_token_capture.cli:ledger_command",
        "proxy": "ctxops_token_capture.cli:proxy_command",
    }


def test_ingest_then_totals_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    claude, codex, data = tmp_path / "claude", tmp_path / "codex", tmp_path / "data"
    truth = write_claude_sessions(claude, sessions=2, turns=3)
    codex_truth = write_codex_sessions(codex, sessions=1, turns=2)
    args = ["--claude-dir", str(claude), "--codex-dir", str(codex), "--data-dir", str(data)]
    assert ledger_command(["ingest", *args, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["records"] == truth.calls + codex_truth.calls
    assert ledger_command(["totals", "--by", "model", "--json", "--data-dir", str(data)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["total"]["calls"] == truth.calls + codex_truth.calls
    assert {r["model"] for r in result["rows"]} >= {"claude-haiku-4-5", "gpt-5-codex"}
    assert main(["totals", "--by", "day", "--data-dir", str(data)]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split()[:3] == ["day", "calls", "input"] and table[-1].startswith("total")


def test_bad_arguments_are_explained(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["totals", "--by", "week", "--data-dir", str(tmp_path)]) == 2
    assert "--by takes" in capsys.readouterr().err
    assert main(["totals", "--tz", "Mars/Olympus", "--data-dir", str(tmp_path)]) == 2
    assert "unknown time zone" in capsys.readouterr().err
    assert main(["ingest", "--claude-dir", str(tmp_path / "nope"), "--data-dir", str(tmp_path)]) == 2
    assert "no projects/ directory" in capsys.readouterr().err


def test_module_entry_point_runs(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ctxops_token_capture", "totals", "--json", "--data-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout)["rows"] == []
