"""`ctx bench` with a real Gemini CLI: runs read from Gemini's chat files, recovered to the token.

The scripted model runs `cat pricing.py` and answers, deciding from each request alone, with usage computed
from the request. Gemini CLI 0.61 adds SessionStart's `additionalContext` to the prompt; the `memory` arm's
injected constraint changes nothing but the tokens, so the bench must report it as a loss, exactly as large
as the server's log says (its routing and other helper calls are not in the chat files: the comparison is
with the main conversation's responses, which are).
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
from agent_harness.ctx_repo import BIN
from agent_harness.gemini_cli import DEFAULT_MODEL, ensure_gemini_cli, gemini_env, write_gemini_user_settings
from agent_harness.gemini_wire import function_responses
from agent_harness.scenario import Turn

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="session")
def gemini_executable() -> Path:
    return ensure_gemini_cli()


def _responder(body: dict[str, Any], _index: int) -> Turn | None:
    usage = Usage(input_tokens=max(1, len(json.dumps(body, ensure_ascii=False)) // 4), output_tokens=20)
    if function_responses(body):
        return turn("apply_discount is defined in pricing.py.", usage=usage)
    return turn(tool_use("run_shell_command", {"command": "cat pricing.py"}), usage=usage)


def test_bench_with_gemini_recovers_the_servers_tokens(gemini_executable: Path, tmp_path: Path) -> None:
    repo, env = make_bench_repo(tmp_path)
    home = tmp_path / "home"
    write_gemini_user_settings(home, {"model": {"name": DEFAULT_MODEL}})
    with ScriptedModelServer(Scenario(responder=_responder), seed=9, log_path=tmp_path / "server.jsonl") as server:
        run_env = {**env, **gemini_env(home, server.url)}
        run_env.pop("GEMINI_CLI_TRUST_WORKSPACE")  # the bench trusts each run's checkout itself
        run_env["PATH"] = f"{gemini_executable.parent}{os.pathsep}{env['PATH']}"
        done = subprocess.run(
            [str(BIN / "ctx"), "bench", "run", "TASKS.toml", "--agent", "gemini", "--arms", "off,memory",
             "--repeat", "2", "--seed", "4", "--max-seconds", "300", "--json"],
            cwd=repo, env=run_env, capture_output=True, text=True, timeout=1800, check=False,
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
        prompt = run["input_tokens"] + run["cache_read_tokens"] + run["cache_write_tokens"]
        assert (prompt, run["calls"]) == (sum(truth[name]), len(truth[name])), (run, truth)
        assert run["success"] and run["contamination"] == []
        if run["arm"] == "memory":
            assert any("Prices are quoted in euros" in t for t in requests_of[name]), name
    rows = {row["arm"]: row for row in doc["rows"]}
    expected = sorted(sum(truth[f"find-discount-memory-{r}"]) - sum(truth[f"find-discount-off-{r}"]) for r in (1, 2))
    assert rows["memory"]["vs_off"]["input_tokens"]["median"] == sum(expected) / 2 > 0
    assert "loss: costs more than off" in rows["memory"]["flags"]
    assert git(repo, "worktree", "list").count("\n") == 1 and not git(repo, "status", "--porcelain").strip()
