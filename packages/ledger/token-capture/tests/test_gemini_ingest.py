"""Gemini CLI chat recordings: a real Gemini CLI 0.61 session file (tests/data) and edge cases."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from ctxops_token_capture.ingest import Sources, discover, ingest
from ctxops_token_capture.totals import totals

RECORDING = Path(__file__).parent / "data" / "gemini-cli-0.61.0-session.jsonl"
SESSION = "ccbe82f2-cf8a-4c6b-90e6-14343528fc0b"


def _gemini_dir(tmp_path: Path, text: str | None = None) -> tuple[Path, Path]:
    """A `.gemini` directory holding the recording for a project that is a git repository."""
    project = tmp_path / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    base = tmp_path / "home" / ".gemini"
    chats = base / "tmp" / "proj" / "chats"
    chats.mkdir(parents=True)
    (chats.parent / ".project_root").write_text(str(project))
    (chats / "session-2026-12-01T01-05-ccbe82f2.jsonl").write_text(text or RECORDING.read_text(encoding="utf-8"))
    return base, project


def test_a_recorded_session_gives_each_model_reply_once(tmp_path: Path) -> None:
    base, project = _gemini_dir(tmp_path)
    root = tmp_path / "ledger"
    report = ingest(Sources(gemini_dirs=[base]), root)
    # Three "gemini" lines, one of them the first reply written again with its tool results.
    assert report.records == 2
    (row,) = totals(["session", "model", "repo"], root=root).rows
    assert row["session"] == SESSION and row["model"] == "gemini-2.5-pro"
    assert row["repo"] == str(project.resolve())
    # The recorded tokens: input includes cached (36759/36746 and 38079/37977), output 333 and 515.
    assert row["input_tokens"] == (36759 - 36746) + (38079 - 37977)
    assert row["cache_read_tokens"] == 36746 + 37977
    assert row["output_tokens"] == 333 + 515
    assert ingest(Sources(gemini_dirs=[base]), root).records == 0  # nothing new: nothing read again


def test_thoughts_are_output_and_tool_prompts_input(tmp_path: Path) -> None:
    lines = [
        {"sessionId": "s1", "projectHash": "h", "startTime": "2026-12-01T00:00:00Z", "kind": "main"},
        {"$set": {"lastUpdated": "2026-12-01T00:00:01Z"}},
        {
            "id": "m1",
            "timestamp": "2026-12-01T00:00:02Z",
            "type": "gemini",
            "content": "x",
            "tokens": {"input": 100, "output": 10, "cached": 40, "thoughts": 7, "tool": 5, "total": 122},
            "model": "gemini-2.5-flash",
        },
        {"id": "u1", "timestamp": "2026-12-01T00:00:03Z", "type": "user", "content": [{"text": "tokens"}]},
        "not json at all",
    ]
    text = "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n"
    base, _ = _gemini_dir(tmp_path, text)
    root = tmp_path / "ledger"
    report = ingest(Sources(gemini_dirs=[base]), root)
    assert report.records == 1 and report.invalid_json == 1
    (row,) = totals(["session"], root=root).rows
    assert (row["input_tokens"], row["cache_read_tokens"], row["output_tokens"]) == (65, 40, 17)
    assert row["reasoning_tokens"] == 7 and row["session"] == "s1"


def test_discovery_wants_a_gemini_directory(tmp_path: Path) -> None:
    base, _ = _gemini_dir(tmp_path)
    (base / "tmp" / "proj" / "logs.json").write_text("[]")
    assert [f.kind for f in discover(Sources(gemini_dirs=[base]))] == ["gemini"]
    try:
        discover(Sources(gemini_dirs=[tmp_path / "nothing"]))
    except FileNotFoundError as exc:
        assert "tmp/" in str(exc)
    else:
        raise AssertionError("a directory without tmp/ must be refused")


def test_cli_gemini_dir_and_the_default_location(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from ctxops_token_capture.cli import main
    from ctxops_token_capture.paths import default_gemini_dir

    base, _ = _gemini_dir(tmp_path)
    data = tmp_path / "data"
    assert main(["ingest", "--gemini-dir", str(base), "--data-dir", str(data), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["records"] == 2
    # Not a .gemini directory: exit 2 naming the flag to pass.
    assert main(["ingest", "--gemini-dir", str(tmp_path / "nope"), "--data-dir", str(data), "--json"]) == 2
    assert "--gemini-dir" in capsys.readouterr().out
    # Gemini CLI's own home override is where ingestion looks by default.
    monkeypatch.setenv("GEMINI_CLI_HOME", str(base.parent))
    assert default_gemini_dir() == base.resolve()
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "empty"))
    assert default_gemini_dir() is None
