"""`ctx bench` with a real Codex CLI: runs read from Codex's rollouts, recovered to the token.

The scripted model reads the file with `exec_command` and answers, deciding from each request alone, with usage
computed from the request; the `memory` arm's injected constraint (Codex adds SessionStart/UserPromptSubmit
`additionalContext` as developer messages) changes nothing but the tokens, so the bench must report it as a
loss, exactly as large as the server's log says.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from agent_harness import Scenario, ScriptedModelServer, Usage, tool_use, turn
from agent_harness.bench_workspace import bench_runs, git, make_bench_repo, texts_per_run, truth_per_run
from agent_harness.codex_cli import API_KEY_ENV, ensure_codex, write_codex_config
from agent_harness.ctx_repo import BIN
from agent_harness.responses_wire import input_items
from agent_harness.scenario import Turn

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="session")
def codex_executable() -> Path:
    return ensure_codex()


def _responder(body: dict[str, Any], _index: int) -> Turn | None:
    usage = Usage(input_tokens=max(1, len(json.dumps(body, ensure_ascii=False)) // 4), output_tokens=20)
    if any(item.get("type") == "function_call" for item in input_items(body)):
        return turn("apply_discount is defined in pricing.py.", usage=usage)
    return turn(tool_use("exec_command", {"cmd": "cat pricing.py"}), usage=usage)


def test_bench_with_codex_recovers_the_servers_tokens(codex_executable: Path, tmp_path: Path) -> None:
    repo, env = make_bench_repo(tmp_path)
    home, codex_home = tmp_path / "home", tmp_path / "codex-home"
    home.mkdir()
    with ScriptedModelServer(Scenario(responder=_responder), seed=5, log_path=tmp_path / "server.jsonl") as server:
        write_codex_config(codex_home, server.url, tmp_path / "elsewhere")  # the checkouts are not trusted here
        run_env = {**env, "HOME": str(home), "CODEX_HOME": str(codex_home), API_KEY_ENV: "sk-test-not-a-real-key"}
        run_env["PATH"] = f"{codex_executable.parent}{os.pathsep}{env['PATH']}"
        done = subprocess.run(
            [str(BIN / "ctx"), "bench", "run", "TASKS.toml", "--agent", "codex", "--arms", "off,memory",
             "--repeat", "2", "--seed", "3", "--max-seconds", "240", "--json"],
            cwd=repo, env=run_env, capture_output=True, text=True, timeout=1500, check=False,
        )  # fmt: skip
        requests = {r["seq"]: r for r in server.requests()}
        truth = truth_per_run(requests, server.responses("main"))
        requests_of = texts_per_run(requests)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    doc = json.loads(done.stdout)
    runs = bench_runs(doc["results"])
    assert len(runs) == 4 and not any(r["discarded"] for r in runs), runs
    for run in runs:
        name = f"{run['task']}-{run['arm']}-{run['rep']}"
        assert run["session_id"], run  # codex exec --json: thread.started
        prompt = run["input_tokens"] + run["cache_read_tokens"] + run["cache_write_tokens"]
        assert (prompt, run["calls"]) == (sum(truth[name]), len(truth[name])), (run, truth)
        assert run["success"] and run["contamination"] == []
        if run["arm"] == "memory":  # the checkout was trusted for the run: Codex ran the hooks, which injected
            assert any("Prices are quoted in euros" in t for t in requests_of[name]), name
    rows = {row["arm"]: row for row in doc["rows"]}
    expected = sorted(sum(truth[f"find-discount-memory-{r}"]) - sum(truth[f"find-discount-off-{r}"]) for r in (1, 2))
    assert rows["memory"]["vs_off"]["input_tokens"]["median"] == sum(expected) / 2 > 0
    assert "loss: costs more than off" in rows["memory"]["flags"]
    assert git(repo, "worktree", "list").count("\n") == 1 and not git(repo, "status", "--porcelain").strip()
