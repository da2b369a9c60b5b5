"""`ctx bench` with a real Claude Code against a scripted model whose replies depend on what it is sent.

The scripted model answers "where is apply_discount?" the way a model would with what it has: with the code
map's `code_def` when the request offers it, else by reading the whole file. It reports usage computed from
the request it got (~4 characters a token), so every arm costs what its context really holds. The truth is
the server's own log: the bench must recover, per run, exactly the tokens the server sent for that run's
requests; the map arm must come out cheaper (a few hundred tokens instead of a 40 kB file) and the memory arm,
whose injected memories change nothing, must come out as a loss.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from agent_harness import Scenario, ScriptedModelServer, Usage, tool_use, turn
from agent_harness.bench_workspace import (
    RUN_DIR,
    bench_runs,
    git,
    make_bench_repo,
    strings,
    texts_per_run,
    truth_per_run,
)
from agent_harness.claude_code import claude_env
from agent_harness.ctx_repo import BIN
from agent_harness.scenario import Turn

pytestmark = pytest.mark.e2e

CWD = re.compile(r"Primary working directory: (\S+)|Working directory: (\S+)")
DEF_TOOL = "mcp__ctxops__code_def"
MAX_SEARCHES = 8


def _text_of(body: dict[str, Any]) -> str:
    return json.dumps(body, ensure_ascii=False)


def _called(body: dict[str, Any]) -> list[str]:
    """The tools the conversation has called so far, in order."""
    names: list[str] = []
    for message in body.get("messages", []):
        content = message.get("content") if isinstance(message, dict) and message.get("role") == "assistant" else None
        names += [b.get("name", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "tool_use"]
    return names


def _responder(body: dict[str, Any], _index: int) -> Turn | None:
    """What a model does with what it is given, decided from the request alone (the server's own turn count
    spans every run of the bench): the code map's `code_def` when offered (loaded with ToolSearch when
    Claude Code defers it or its server is still connecting), else a whole-file Read; then the answer."""
    usage = Usage(input_tokens=max(1, len(_text_of(body)) // 4), output_tokens=20)
    called = _called(body)
    tools = {t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)}
    if DEF_TOOL in called or "Read" in called:
        return turn("apply_discount is defined in pricing.py.", usage=usage)
    if DEF_TOOL in tools:
        return turn(tool_use(DEF_TOOL, {"name": "apply_discount"}), usage=usage)
    text = _text_of(body)
    plain = "\n".join(strings(body))
    connecting = plain.find("MCP servers are still connecting")
    deferred = DEF_TOOL in text or (connecting >= 0 and "\nctxops\n" in plain[connecting : connecting + 400])
    searches = called.count("ToolSearch")
    last = (body.get("messages") or [{}])[-1]
    waiting = searches and "still connecting" in "\n".join(strings(last))
    if deferred and "ToolSearch" in tools and (not searches or (waiting and searches < MAX_SEARCHES)):
        if searches:
            time.sleep(3)  # told to "try searching again": a model's turn takes time; the server gets it
        return turn(tool_use("ToolSearch", {"query": f"select:{DEF_TOOL}"}), usage=usage)
    found = CWD.search(text)
    cwd = next(g for g in found.groups() if g) if found else "."
    cwd = cwd.replace("\\n", "").rstrip("\\")
    return turn(tool_use("Read", {"file_path": f"{cwd}/pricing.py"}), usage=usage)


@pytest.fixture
def bench_repo(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    return make_bench_repo(tmp_path)


def test_bench_recovers_the_servers_tokens_and_reports_a_loss(
    bench_repo: tuple[Path, dict[str, str]], claude_executable: Path, tmp_path: Path
) -> None:
    repo, env = bench_repo
    home = tmp_path / "home"
    home.mkdir()
    with ScriptedModelServer(Scenario(responder=_responder), seed=3, log_path=tmp_path / "server.jsonl") as server:
        path = f"{claude_executable.parent}{os.pathsep}{env['PATH']}"
        run_env = {**env, **claude_env(home, server.url), "PATH": path}
        done = subprocess.run(
            [str(BIN / "ctx"), "bench", "run", "TASKS.toml", "--agent", "claude-code", "--arms", "off,map,memory",
             "--repeat", "2", "--seed", "7", "--max-seconds", "240", "--json"],
            cwd=repo, env=run_env, capture_output=True, text=True, timeout=1500, check=False,
        )  # fmt: skip
        requests = {r["seq"]: r for r in server.requests()}
        responses = server.responses("main")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    doc = json.loads(done.stdout)

    # Truth: what the server sent for each run's main-conversation requests (the checkout names the run).
    truth: dict[str, int] = {}
    calls: dict[str, int] = {}
    used: dict[str, set[str]] = {}
    for response in responses:
        found = RUN_DIR.search(_text_of(requests[response["seq"]]["body"]))
        assert found, "a main request that names no bench checkout"
        truth[found.group(1)] = truth.get(found.group(1), 0) + response["usage"]["input_tokens"]
        calls[found.group(1)] = calls.get(found.group(1), 0) + 1
        used.setdefault(found.group(1), set()).update(_called(requests[response["seq"]]["body"]))
    runs = bench_runs(doc["results"])
    assert len(runs) == 6 and not any(r["discarded"] for r in runs), runs
    for run in runs:
        name = f"{run['task']}-{run['arm']}-{run['rep']}"
        assert run["input_tokens"] + run["cache_read_tokens"] + run["cache_write_tokens"] == truth[name], name
        assert run["calls"] == calls[name] and run["output_tokens"] == 20 * calls[name], (run, truth)
        assert run["success"] and run["contamination"] == []
        # What each line left in the context, from the transcript: only the arm's own line, never off.
        split = run["resident_by_line"]
        assert split is not None and sum(split.values()) == split.get(run["arm"], 0), run
        assert (split.get(run["arm"], 0) > 0) == (run["arm"] == "memory" or DEF_TOOL in used[name]), run

    rows = {row["arm"]: row for row in doc["rows"]}
    for arm in ("off", "map", "memory"):
        assert rows[arm]["runs"] == 2 and rows[arm]["success_rate"] == 1.0
        assert set(rows[arm]) >= {"arm", "runs", "median_input_tokens", "median_cost_usd", "success_rate"}
    assert all(calls[f"find-discount-off-{r}"] == 2 for r in (1, 2))  # Read, then the answer
    for rep in (1, 2):  # the map arm answered from the code map; no other arm saw it
        assert DEF_TOOL in used[f"find-discount-map-{rep}"] and "Read" not in used[f"find-discount-map-{rep}"]
        assert DEF_TOOL not in used[f"find-discount-off-{rep}"] | used[f"find-discount-memory-{rep}"]
    for arm in ("map", "memory"):  # the bench's paired difference is the server's, exactly
        expected = sorted(truth[f"find-discount-{arm}-{r}"] - truth[f"find-discount-off-{r}"] for r in (1, 2))
        assert rows[arm]["vs_off"]["input_tokens"]["median"] == sum(expected) / 2
        assert ("loss: costs more than off" in rows[arm]["flags"]) == (sum(expected) > 0)
    # Injected memories that change nothing only add tokens: the bench must show that as a loss.
    assert rows["memory"]["vs_off"]["input_tokens"]["median"] > 0
    assert "loss: costs more than off" in rows["memory"]["flags"]
    # Each run is a task of its own in the ledger: `ctx ledger report task` names task, arm and repetition.
    tasks = subprocess.run(
        [str(BIN / "ctx"), "ledger", "report", "task", "--json"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    by_task = {row["task"]: row for row in json.loads(tasks.stdout)["rows"]}
    for run in runs:
        row = by_task[f"bench {doc['bench']} find-discount {run['arm']} #{run['rep']}"]
        assert row["calls"] == run["calls"] and row["cost_usd"] == pytest.approx(run["cost_usd"])
    measured = subprocess.run(
        [str(BIN / "ctx"), "ledger", "savings"], cwd=repo, env=env, capture_output=True, text=True, check=False
    )
    assert f"measured (ctx bench {doc['bench']}, claude-code, arm memory vs off, 2 pairs): cost +" in measured.stdout

    # Nothing left behind: no scratch checkout; the repository untouched; `report` gives the same figures again.
    assert git(repo, "worktree", "list").count("\n") == 1 and not git(repo, "status", "--porcelain").strip()
    assert not list(Path(os.environ.get("TMPDIR", "/tmp")).glob("ctxops-bench-*/find-discount-*"))
    again = subprocess.run(
        [str(BIN / "ctx"), "bench", "report", "--json"], cwd=repo, env=env, capture_output=True, text=True, check=False
    )
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["rows"] == doc["rows"]


FAILING_TESTS = """import pytest


def level(depth, case):
    if depth == 0:
        assert round(case * 1.15, 2) == case, f"rounding rule {case} broke for every tier of the catalogue"
    return level(depth - 1, case)


@pytest.mark.parametrize("case", range(1, 7))
def test_rounding_rule(case):
    level(15, case)
"""
GUARD_TASKS = '[[task]]\nname = "test-log"\nprompt = "Run the tests and tell me what fails."\n'
PYTEST = "python -m pytest -q tests/test_rules.py -p no:cacheprovider"


def _log_responder(body: dict[str, Any], _index: int) -> Turn | None:
    """Run the failing tests once, then answer: the log (or the guard's summary of it) is what differs."""
    usage = Usage(input_tokens=max(1, len(_text_of(body)) // 4), output_tokens=20)
    if "Bash" in _called(body):
        return turn("6 rounding cases fail.", usage=usage)
    return turn(tool_use("Bash", {"command": PYTEST, "description": "tests"}), usage=usage)


def test_bench_measures_the_guard_on_a_failing_test_log(
    bench_repo: tuple[Path, dict[str, str]], claude_executable: Path, tmp_path: Path
) -> None:
    repo, env = bench_repo
    (repo / "tests").mkdir()
    (repo / "tests" / "test_rules.py").write_text(FAILING_TESTS, encoding="utf-8")
    (repo / "GUARD.toml").write_text(GUARD_TASKS, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "failing tests")
    home = tmp_path / "home"
    home.mkdir()
    with ScriptedModelServer(Scenario(responder=_log_responder), seed=8, log_path=tmp_path / "server.jsonl") as server:
        path = f"{claude_executable.parent}{os.pathsep}{env['PATH']}"
        run_env = {**env, **claude_env(home, server.url), "PATH": path}
        done = subprocess.run(
            [str(BIN / "ctx"), "bench", "run", "GUARD.toml", "--agent", "claude-code", "--arms", "off,guard",
             "--repeat", "2", "--seed", "2", "--max-seconds", "240", "--json"],
            cwd=repo, env=run_env, capture_output=True, text=True, timeout=1500, check=False,
        )  # fmt: skip
        requests = {r["seq"]: r for r in server.requests()}
        truth = truth_per_run(requests, server.responses("main"))
        texts = texts_per_run(requests)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    doc = json.loads(done.stdout)
    runs = bench_runs(doc["results"])
    assert len(runs) == 4 and not any(r["discarded"] for r in runs), runs
    for run in runs:
        name = f"{run['task']}-{run['arm']}-{run['rep']}"
        prompt = run["input_tokens"] + run["cache_read_tokens"] + run["cache_write_tokens"]
        assert (prompt, run["calls"]) == (sum(truth[name]), len(truth[name])), (run, truth)
        summarized = any("[ctxops guard: pytest output" in t for t in texts[name])
        assert summarized == (run["arm"] == "guard"), name  # the guard arm's log reached the model summarized
        assert (run["resident_by_line"] or {}).get("guard", 0) > 0 or run["arm"] == "off", run
    rows = {row["arm"]: row for row in doc["rows"]}
    expected = sorted(sum(truth[f"test-log-guard-{r}"]) - sum(truth[f"test-log-off-{r}"]) for r in (1, 2))
    assert rows["guard"]["vs_off"]["input_tokens"]["median"] == sum(expected) / 2 < 0  # a measured saving
    assert "loss: costs more than off" not in rows["guard"]["flags"]
