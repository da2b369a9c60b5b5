"""The command line and the `ctx` entry points, in the toolchain's grammar."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from ctxops_token_capture.cli import main, proxy_command
from ledger_synthetic import write_claude_sessions, write_codex_sessions


def test_entry_points_register_no_command() -> None:
    found = {
        ep.name: ep.value for ep in entry_points(group="ctxops.commands") if ep.value.startswith("ctxops_token_capture")
    }
    # `ctx ledger` and `ctx proxy` belong to ledger-report, which composes ingest/totals and the proxy from here
    # with its reports and prices (a budget enforced at the proxy is priced); `python -m ctxops_token_capture
    # proxy` stays the recording proxy alone.
    assert found == {}


def test_ingest_then_totals_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    claude, codex, data = tmp_path / "claude", tmp_path / "codex", tmp_path / "data"
    truth = write_claude_sessions(claude, sessions=2, turns=3)
    codex_truth = write_codex_sessions(codex, sessions=1, turns=2)
    args = ["--claude-dir", str(claude), "--codex-dir", str(codex), "--data-dir", str(data)]
    assert main(["ingest", *args, "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and ": " not in out  # one compact document
    assert json.loads(out)["records"] == truth.calls + codex_truth.calls
    # Options before the command and after it give the same answer.
    assert main(["--json", "--data-dir", str(data), "totals", "--by", "model"]) == 0
    before = json.loads(capsys.readouterr().out)
    assert main(["totals", "--by", "model", "--json", "--data-dir", str(data)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result == before
    assert result["total"]["calls"] == truth.calls + codex_truth.calls
    assert {r["model"] for r in result["rows"]} >= {"claude-haiku-4-5", "gpt-5-codex"}
    assert main(["totals", "--by", "day", "--data-dir", str(data)]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split()[:3] == ["day", "calls", "input"] and table[-1].startswith("total")


def test_since_until_select_whole_days(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    claude, data = tmp_path / "claude", tmp_path / "data"
    write_claude_sessions(claude, sessions=3, turns=4)
    main(["ingest", "--claude-dir", str(claude), "--data-dir", str(data), "--json"])
    capsys.readouterr()
    assert main(["totals", "--by", "day", "--json", "--data-dir", str(data)]) == 0
    days = {r["day"]: r["calls"] for r in json.loads(capsys.readouterr().out)["rows"]}
    first = min(days)
    assert main(["totals", "--by", "day", "--json", "--data-dir", str(data), "--since", first, "--until", first]) == 0
    assert {r["day"]: r["calls"] for r in json.loads(capsys.readouterr().out)["rows"]} == {first: days[first]}


def test_empty_result_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["totals", "--data-dir", str(tmp_path)]) == 1
    assert "no calls recorded" in capsys.readouterr().err
    assert main(["totals", "--json", "--data-dir", str(tmp_path)]) == 1
    assert json.loads(capsys.readouterr().out)["rows"] == []


def test_bad_arguments_are_explained(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["totals", "--by", "week", "--data-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--by takes" in err and "fix:" in err
    assert main(["totals", "--tz", "Mars/Olympus", "--data-dir", str(tmp_path)]) == 2
    assert "unknown time zone" in capsys.readouterr().err
    assert main(["ingest", "--claude-dir", str(tmp_path / "nope"), "--data-dir", str(tmp_path)]) == 2
    assert "no projects/ directory" in capsys.readouterr().err
    # --since with a bad time: JSON on stdout naming the formats, exit 2.
    assert main(["totals", "--since", "notadate", "--json", "--data-dir", str(tmp_path)]) == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert "notadate" in error["message"] and "RFC 3339" in error["fix"] and error["code"] == 2


def test_usage_error_under_json_is_json_on_stdout(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ctxops_token_capture", "totals", "--json", "--bogus", "--data-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "bogus" in json.loads(done.stdout)["error"]["message"]


def test_proxy_help_has_a_description_and_every_flag_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        proxy_command(["--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith("usage: ctx proxy") and "recording proxy on loopback" in text
    for flag in ("--upstream", "--port", "--host", "--data-dir", "--json"):
        line = next(line for line in text.splitlines() if line.strip().startswith(flag))
        assert len(line.split(maxsplit=2)) >= 2, f"{flag} has no help"


def test_module_entry_point_runs(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ctxops_token_capture", "totals", "--json", "--data-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1  # nothing recorded yet
    assert json.loads(done.stdout)["rows"] == []


def test_totals_json_on_a_corrupt_ledger_prints_only_json(tmp_path: Path) -> None:
    claude, data = tmp_path / "claude", tmp_path / "data"
    truth = write_claude_sessions(claude, sessions=1, turns=3)
    assert main(["ingest", "--claude-dir", str(claude), "--data-dir", str(data), "--json"]) == 0
    (data / "ledger.duckdb").write_bytes(b"not a database" * 100)
    done = subprocess.run(
        [sys.executable, "-m", "ctxops_token_capture", "totals", "--json", "--data-dir", str(data)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0
    assert json.loads(done.stdout)["total"]["calls"] == truth.calls  # rebuilt from the JSONL truth
    assert "rebuilding" in done.stderr  # the library logged it; stdout stayed the answer's
