"""Cross-field redaction through real processes: a chosen password that one field of a payload (or of one
``ctx mem add``, or of one transcript message) marks by its context, written bare into the other fields
(file paths, dict keys, titles, scopes, sources, tags), reaches no file under ``.meta/``, the data, cache
and state directories.

The bare word alone carries no sign of a secret (``notes/<word>.txt``): before cross-field redaction these
reached disk (the channel check of ``bench/redaction_corpus.py``, 31 of 40 formats of whispers on disk).
The passwords are generated here (seeded): none comes from an outside corpus.
"""

from __future__ import annotations

import json
import os
import random
import string
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(300)

_rng = random.Random(1521)


def _chosen() -> str:
    """A person's chosen password: a word and digits (``tulipab4821``), nothing random-looking."""
    return "".join(_rng.choice(string.ascii_lowercase) for _ in range(6)) + str(_rng.randint(1000, 9999))


PW = {name: _chosen() for name in ("write", "read", "mcp_key", "bash", "codex", "mem", "ledger")}
# Innocent names in the same payloads: kept, or the propagation blanks words it must not.
INNOCENT = "quarterlyreport"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict:
    base = tmp_path_factory.mktemp("redaction-cross")
    repo = base / "repo"
    (repo / "notes").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    home = base / "home"
    home.mkdir()
    env = {
        **os.environ,
        "HOME": str(home),
        "CTXOPS_DATA_DIR": str(base / "data"),
        "CTXOPS_CACHE_DIR": str(base / "cache"),
        "XDG_CACHE_HOME": str(base / "xdg-cache"),
        "XDG_DATA_HOME": str(base / "xdg-data"),
        "XDG_STATE_HOME": str(base / "xdg-state"),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "CODEX_HOME": str(home / ".codex"),
    }
    return {"base": base, "repo": repo, "home": home, "env": env}


def _ctx(world: dict, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctxops_core", *args],
        input=stdin,
        text=True,
        capture_output=True,
        cwd=world["repo"],
        env=world["env"],
        timeout=60,
        check=False,
    )


def _files(world: dict) -> dict[str, bytes]:
    base: Path = world["base"]
    roots = [world["repo"] / ".meta", base / "data", base / "cache", base / "xdg-cache", base / "xdg-data"]
    roots += [base / "xdg-state", world["home"]]
    found: dict[str, bytes] = {}
    for root in roots:
        for path in root.rglob("*") if root.exists() else ():
            if path.is_file() and not path.is_symlink() and "projects" not in path.parts:
                found[str(path)] = path.read_bytes()
            found[str(path) + " (the name)"] = str(path).encode()
    return found


def _on_disk(world: dict, labels: tuple[str, ...]) -> list[tuple[str, str]]:
    files = _files(world)
    return [
        (label, name.replace(str(world["base"]), ""))
        for label in labels
        for name, blob in files.items()
        if PW[label].encode() in blob
    ]


def _note(repo: Path, name: str) -> str:
    return str(repo / "notes" / f"{name}.txt")


def _claude_payloads(repo: Path) -> list[dict]:
    base = {"session_id": "cross-1", "cwd": str(repo)}
    return [
        {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_name": "Write",
            "tool_use_id": "w1",
            "tool_input": {"file_path": _note(repo, PW["write"]), "content": f"DB_PASSWORD={PW['write']}\n"},
            "tool_response": {"filePath": _note(repo, PW["write"]), "success": True},
        },
        {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_name": "Read",
            "tool_use_id": "r1",
            "tool_input": {"file_path": _note(repo, PW["read"])},
            "tool_response": {"file": {"filePath": _note(repo, PW["read"]), "content": f"password: {PW['read']}"}},
        },
        {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_name": "mcp__vault__lookup",
            "tool_use_id": "m1",
            "tool_input": {PW["mcp_key"]: "lookup", "query": f"api_key={PW['mcp_key']}"},
            "tool_response": [{"type": "text", "text": "ok"}],
        },
        {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_use_id": "b1",
            "tool_input": {"command": f"cat notes/{PW['bash']}.yml notes/{INNOCENT}.txt"},
            "tool_response": {"stdout": f"secret: {PW['bash']}\n" + "line\n" * 400, "stderr": "", "exit_code": 0},
        },
    ]


def _codex_payload(repo: Path) -> dict:
    return {
        "session_id": "cross-2",
        "cwd": str(repo),
        "hook_event_name": "PostToolUse",
        "tool_name": "shell",
        "tool_input": {"command": ["bash", "-lc", f"cat {_note(repo, PW['codex'])}"]},
        "tool_response": f"password = {PW['codex']}\n",
    }


@pytest.fixture(scope="module")
def hooked(world: dict) -> dict:
    for payload in _claude_payloads(world["repo"]):
        done = _ctx(world, "hook", "claude-code", stdin=json.dumps(payload))
        assert done.returncode == 0, done.stderr
    done = _ctx(world, "hook", "codex", stdin=json.dumps(_codex_payload(world["repo"])))
    assert done.returncode == 0, done.stderr
    time.sleep(1.0)  # the guard's deferred saves may finish in a detached process
    return world


def test_a_secret_marked_in_one_field_of_a_hook_payload_is_hidden_in_its_paths_and_keys(hooked: dict) -> None:
    events = [
        json.loads(line)
        for f in (hooked["repo"] / ".meta" / "events").glob("*.jsonl")
        for line in f.read_text().splitlines()
        if line.strip()
    ]
    assert {e["agent"] for e in events} >= {"claude-code", "codex"}, "no events: the test would prove nothing"
    assert _on_disk(hooked, ("write", "read", "mcp_key", "bash", "codex")) == []
    written = json.dumps(events)
    assert "notes/[REDACTED:secret].txt" in written
    assert f"notes/{INNOCENT}.txt" in written  # a word no field marks is kept


@pytest.fixture(scope="module")
def remembered(hooked: dict) -> dict:
    pw = PW["mem"]
    done = _ctx(
        hooked,
        "mem",
        "add",
        f"remember DB_PASSWORD={pw} for staging",
        "--title",
        f"staging {pw}",
        "--file",
        f"notes/{pw}.txt",
        "--scope",
        f"notes/{pw}/**",
        "--source",
        f"s:{pw}",
        "--tag",
        f"{pw}",
    )
    assert done.returncode == 0, done.stderr + done.stdout
    return hooked


def test_ctx_mem_add_hides_in_every_field_what_one_field_marks(remembered: dict) -> None:
    memories = list((remembered["repo"] / ".meta" / "memory").glob("*.md"))
    assert memories, "ctx mem add wrote no memory: the test would prove nothing"
    assert _on_disk(remembered, ("mem",)) == []
    assert any("staging [REDACTED:secret]" in m.read_text() for m in memories)


@pytest.fixture(scope="module")
def ingested(remembered: dict) -> dict:
    repo = remembered["repo"]
    project = remembered["home"] / ".claude" / "projects" / "-repo"
    project.mkdir(parents=True, exist_ok=True)
    message = {
        "id": "msg_x1",
        "model": "claude-sonnet-4-5",
        "role": "assistant",
        "type": "message",
        "content": [
            {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": _note(repo, PW["ledger"])}},
            {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": f"PGPASSWORD={PW['ledger']} psql"}},
        ],
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }
    result = {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "rows"},
            {"type": "tool_result", "tool_use_id": "t2", "content": "ok"},
        ],
    }
    common = {"sessionId": "cross-l", "cwd": str(repo)}
    lines = [
        {**common, "type": "assistant", "timestamp": "2026-12-01T10:00:00Z", "requestId": "r1", "uuid": "u1",
         "message": message},
        {**common, "type": "user", "timestamp": "2026-12-01T10:00:01Z", "uuid": "u2", "message": result},
        {**common, "type": "assistant", "timestamp": "2026-12-01T10:00:02Z", "requestId": "r2", "uuid": "u3",
         "message": {**message, "id": "msg_x2", "content": [{"type": "text", "text": "done"}]}},
    ]  # fmt: skip
    (project / "session.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    done = _ctx(remembered, "ledger", "ingest", "--claude-dir", str(remembered["home"] / ".claude"), "--json")
    assert done.returncode == 0, done.stderr + done.stdout
    return remembered


def test_ledger_attribution_files_hide_what_a_sibling_tool_input_marks(ingested: dict) -> None:
    data = ingested["base"] / "data"
    assert any(p.is_file() for p in data.rglob("*")), "ingest stored nothing: the test would prove nothing"
    assert _on_disk(ingested, ("ledger",)) == []
