"""`ctx bench` parts that need no agent: the tasks file, the run order, the statistics and the report."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from ctxops_core.bench import arms, report, runner, stats, tasks_file


def test_tasks_file_errors_name_the_task_and_the_fix() -> None:
    good = tasks_file.parse('[[task]]\nname = "a"\nprompt = "do it"\ncheck = "true"\ntimeout = 30\n')
    assert good == [tasks_file.Task("a", "do it", None, "true", 30.0)]
    for text, message in (
        ("", "no [[task]] tables"),
        ("[[task]]\nname = 'a'\n", "task 1: `prompt` is required"),
        ("[[task]]\nname = '../x'\nprompt = 'p'\n", "must be 1-64 of"),
        ("[[task]]\nname='a'\nprompt='p'\n[[task]]\nname='a'\nprompt='q'\n", "used twice"),
        ("[[task]]\nname='a'\nprompt='p'\nsetupp='x'\n", "unknown key(s) setupp"),
        ("[[task]]\nname='a'\nprompt='p'\ntimeout=-1\n", "positive number"),
        ("[[task]\n", "not valid TOML"),
    ):
        with pytest.raises(tasks_file.TasksError, match=re.escape(message)):
            tasks_file.parse(text)


def test_arms_and_agents_are_checked() -> None:
    assert [a.name for a in arms.parse_arms("off, all,map")] == ["off", "all", "map"]
    assert arms.Arm("all").lines == {"map", "memory", "guard"} and arms.Arm("off").lines == frozenset()
    with pytest.raises(arms.ArmError, match="unknown arm"):
        arms.parse_arms("off,turbo")
    with pytest.raises(arms.ArmError, match="named twice"):
        arms.parse_arms("off,off")
    assert arms.parse_agent("claude") == "claude-code"
    with pytest.raises(arms.ArmError):
        arms.parse_agent("cursor")


def test_each_repetition_runs_every_task_and_arm_once_in_a_seeded_shuffle() -> None:
    tasks = [tasks_file.Task("a", "p"), tasks_file.Task("b", "q")]
    arm_list = arms.parse_arms("off,all,map")
    order = runner.schedule(tasks, arm_list, 3, seed=5)
    assert len(order) == 18
    for rep in (1, 2, 3):
        block = [(t.name, a.name) for t, a, r in order if r == rep]
        assert sorted(block) == sorted((t.name, a.name) for t in tasks for a in arm_list)
    assert order == runner.schedule(tasks, arm_list, 3, seed=5)
    assert [(t.name, a.name) for t, a, _ in order] != [
        (t.name, a.name) for t, a, _ in runner.schedule(tasks, arm_list, 3, seed=6)
    ]


def test_bootstrap_interval_and_paired_difference() -> None:
    assert stats.interval([1.0]) is None
    low, high = stats.interval([10.0, 11.0, 12.0, 13.0, 50.0], seed=1) or (0, 0)
    assert 10.0 <= low <= 12.0 <= high <= 50.0
    paired = stats.paired({1: 8.0, 2: 9.0, 3: 7.0}, {1: 10.0, 2: 10.0, 3: 10.0, 4: 99.0}) or {}
    assert paired["pairs"] == 3 and paired["median"] == -2.0 and paired["relative"] == -0.2


def _run(task: str, arm: str, rep: int, cost: float, tokens: int, *, success: bool = True, **extra: object) -> dict:
    return {"task": task, "arm": arm, "rep": rep, "cost_usd": cost, "input_tokens": tokens, "cache_read_tokens": 0,
            "cache_write_tokens": 0, "output_tokens": 10, "calls": 2, "success": success, "seconds": 1.0,
            "resident_tokens": tokens, "discarded": False, **extra}  # fmt: skip


def test_report_shows_losses_and_flags_a_saving_bought_with_failures() -> None:
    header = {"bench": "b1", "agent": "claude-code", "arms": ["off", "map", "memory"], "tasks": ["t"], "seed": 1}
    runs = [
        *(_run("t", "off", r, 1.0, 1000) for r in (1, 2, 3)),
        *(_run("t", "map", r, 0.5, 400, success=r == 1) for r in (1, 2, 3)),
        *(_run("t", "memory", r, 1.2, 1300) for r in (1, 2, 3)),
        _run("t", "off", 4, 9.0, 9000, discarded=True, contamination=[".meta/events appeared"]),
    ]
    doc = report.build(header, runs)
    rows = {r["arm"]: r for r in doc["rows"]}
    assert rows["off"]["runs"] == 3 and rows["off"]["discarded"] == 1 and rows["off"]["median_cost_usd"] == 1.0
    assert rows["map"]["vs_off"]["cost_usd"]["median"] == -0.5 and rows["map"]["vs_off"]["cost_usd"]["relative"] == -0.5
    assert "saving bought with a lower success rate" in rows["map"]["flags"]
    assert "loss: costs more than off" in rows["memory"]["flags"]
    assert rows["memory"]["vs_off"]["input_tokens"]["median"] == 300
    assert doc["discarded"] == [{"task": "t", "arm": "off", "rep": 4, "why": [".meta/events appeared"]}]
    text = report.render(doc)
    assert "loss: costs more than off" in text and "+20.0%" in text and "-50.0%" in text


def test_cli_errors_are_one_line_and_exit_2(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "TASKS.toml").write_text("[[task]]\nname='a'\n")
    (repo / "GOOD.toml").write_text("[[task]]\nname='a'\nprompt='p'\n")
    for args, message in (
        (["run", "TASKS.toml"], "`prompt` is required"),
        (["run", "nope.toml"], "no such file"),
        (["run", "GOOD.toml", "--arms", "off,x"], "unknown arm"),
        (["run", "GOOD.toml", "--agent", "cursor"], "is not one of claude-code, codex, gemini"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "ctxops_core", "bench", *args, "--json"],
            cwd=repo,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert message in json.loads(done.stdout)["error"]["message"]
    empty = subprocess.run(
        [sys.executable, "-m", "ctxops_core", "bench", "report"], cwd=repo, capture_output=True, text=True, check=False
    )
    assert empty.returncode == 1 and "no bench has run" in empty.stderr


def _running(pid: int) -> bool:
    """Whether `pid` still runs. An exited child whose parent died first is a zombie until the machine's init
    reaps it (in a container, maybe never): it answers `kill(pid, 0)` but runs nothing, so it counts as gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_ctrl_c_stops_the_agent_and_leaves_no_checkout_behind(tmp_path: Path) -> None:
    """A real `ctx bench run` interrupted mid-run: the agent's process group ends, the run's checkout and the
    scratch directory are removed, the bench says it stopped early (exit 3) and the repository is untouched."""
    import os
    import signal
    import time

    repo = tmp_path / "r"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    (repo / "TASKS.toml").write_text("[[task]]\nname='slow'\nprompt='wait'\n")
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "t"], check=True
    )
    pids = tmp_path / "agent.pid"
    agent = tmp_path / "agent"  # stands in for the agent's executable: it only has to outlive the interrupt
    agent.write_text(f"#!/bin/sh\necho $$ > {pids}\nsleep 120 &\necho $! >> {pids}\nwait\n")
    agent.chmod(0o755)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch)}
    # SIGINT as a terminal leaves it (default) before the bench starts: a shell that runs this suite in the
    # background (`cmd &` without job control) hands every child SIGINT ignored, and Python then never raises
    # KeyboardInterrupt. The disposition survives the exec; the pid stays the bench's.
    default_sigint = (
        "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
        "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", default_sigint, "-m", "ctxops_core", "bench", "run", "TASKS.toml", "--arms", "off",
         "--repeat", "1", "--agent-command", str(agent), "--json"],
        cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while not (pids.exists() and len(pids.read_text().split()) == 2) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert list(scratch.glob("ctxops-bench-*/slow-off-1")), "the run's checkout was not made"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 3 and "Traceback" not in err, err
    assert json.loads(out)["stopped"] == "interrupted"
    assert not list(scratch.glob("ctxops-bench-*")), "a checkout or scratch directory was left behind"
    for pid in map(int, pids.read_text().split()):
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if not _running(pid):
                break
            time.sleep(0.1)
        else:
            raise AssertionError(f"agent process {pid} outlived the interrupt")
    status = subprocess.run(
        ["git", "-C", str(repo), "status", "--porcelain"], capture_output=True, text=True, check=True
    )
    assert status.stdout == ""
