"""`ctx bench run`: every task x arm x repetition, in randomized interleaved order, one fresh checkout each.

A run: a fresh checkout (``git clone --shared``) of the commit the bench started on; the task's ``setup``; the arm's
wiring (``arms.wire``: ``ctx init``'s own code); the agent, headless, under a named ledger task
(``bench <id> <task> <arm> #<rep>``); the task's ``check``; the ledger ingested and the run's calls read
back by its checkout; the checkout removed. Each finished run is appended to
``.meta/bench/<id>.jsonl`` at once, so a Ctrl-C or a cap keeps every run that finished.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from . import agent_cli, arms, ledger_calls, proxy, resident
from .tasks_file import Task

BENCH_DIR = ("bench",)  # under .meta/
SETUP_TIMEOUT = 900.0
# What a run of the `off` arm must not leave in its checkout: any of them means ctxops ran in it.
CTXOPS_TRACES = ("events", "index", "logs", "raw", "guard")


@dataclass
class BenchOptions:
    agent: str
    arms: list[arms.Arm]
    repeat: int = 3
    seed: int | None = None
    max_seconds: float = 900.0  # per run (the agent), unless the task sets its own timeout
    max_usd: float | None = None  # per run: a run above it stops the bench (checked from the ledger)
    budget_usd: float | None = None  # per bench: no run starts once the bench has spent this
    budget_seconds: float | None = None  # per bench: no run starts after this long
    agent_command: str | None = None
    data_dir: Path | None = None  # the ledger's (default: the user's)
    proxy: bool = True  # route the agent through `ctx proxy` where it can be (bench/proxy.py)


@dataclass
class RunRecord:
    bench: str
    task: str
    arm: str
    rep: int
    order: int
    agent: str
    commit: str
    started: str
    seconds: float = 0.0
    exit_code: int | None = None
    timed_out: bool = False
    success: bool = False
    check_exit: int | None = None
    session_id: str | None = None
    reported_cost_usd: float | None = None
    calls: int = 0
    turns: int | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float = 0.0
    resident_tokens: int = 0
    resident_by_line: dict[str, int] | None = None  # what ctxops left in the context (Claude Code transcripts)
    contamination: list[str] = field(default_factory=list)
    discarded: bool = False
    notes: list[str] = field(default_factory=list)

    def as_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, separators=(",", ":"))


def schedule(tasks: list[Task], arm_list: list[arms.Arm], repeat: int, seed: int) -> list[tuple[Task, arms.Arm, int]]:
    """Each repetition runs every (task, arm) once, shuffled: arms interleave, so drift (a provider's load, a
    warm cache) falls on every arm alike rather than on whichever ran last."""
    rng = random.Random(seed)
    order: list[tuple[Task, arms.Arm, int]] = []
    for rep in range(1, repeat + 1):
        block = [(task, arm, rep) for task in tasks for arm in arm_list]
        rng.shuffle(block)
        order.extend(block)
    return order


def bench_dir(root: Path) -> Path:
    """``.meta/bench/``, ignored by git (results are per machine; delete its .gitignore to commit them)."""
    from ctxops_contracts.shared.confine import ensure_dir
    from ctxops_contracts.shared.files import atomic_write

    path = Path(ensure_dir(root / ".meta" / "bench"))
    ignore = path / ".gitignore"
    if not ignore.exists():
        atomic_write(str(ignore), "# written by ctx bench: results stay out of git unless you delete this file\n*\n")
    return path


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout.strip()


@contextmanager
def checkout(root: Path, commit: str, scratch: Path, name: str) -> Iterator[Path]:
    """A fresh checkout of ``commit``, removed on every way out (a timeout, an error, Ctrl-C).

    A clone sharing the repository's objects (``git clone --shared``: nothing copied), not a ``git worktree``:
    to the agent it is a repository like the user's own. Claude Code tells the model "this is a git worktree"
    (a different prompt from the user's), and Codex 0.171 does not run a worktree's project hooks.
    """
    path = scratch / name
    done = subprocess.run(
        ["git", "clone", "--quiet", "--shared", "--no-checkout", str(root), str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"git clone of {root} for a run failed: {done.stderr.strip()}")
    try:
        _git(path, "-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", commit)
        yield path
    finally:
        arms.unvouch(path)
        shutil.rmtree(path, ignore_errors=True)


def _shell(command: str, cwd: Path, env: Mapping[str, str], timeout: float) -> tuple[int | None, str]:
    proc = subprocess.Popen(
        command,
        shell=True,  # the task file's own command line, written by the user running the bench
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
        return proc.returncode, out[-2000:].decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        agent_cli.kill_group(proc)
        out, _ = proc.communicate()
        return None, out[-2000:].decode("utf-8", "replace")
    except BaseException:
        agent_cli.kill_group(proc)
        proc.wait()
        raise


def contamination(path: Path, before: set[str]) -> list[str]:
    """Signs that ctxops ran in an `off` run: traces it writes under .meta/ that were not there before."""
    found: list[str] = []
    meta = path / ".meta"
    for name in CTXOPS_TRACES:
        if (meta / name).exists() and name not in before:
            found.append(f".meta/{name} appeared (a ctxops hook, MCP server or cq ran in this checkout)")
    return found


def run_one(
    root: Path,
    task: Task,
    arm: arms.Arm,
    rep: int,
    *,
    order: int,
    bench_id: str,
    commit: str,
    scratch: Path,
    options: BenchOptions,
    exe: str,
    routed: Mapping[str, str],
) -> RunRecord:
    from ctxops_contracts.shared import tasks as task_log
    from ctxops_contracts.shared.repo import try_find_root

    from ctxops_core.init_cmd import ctx_argv

    record = RunRecord(
        bench=bench_id,
        task=task.name,
        arm=arm.name,
        rep=rep,
        order=order,
        agent=options.agent,
        commit=commit,
        started=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    env = {**os.environ, **routed}
    env.pop("CTXOPS_LINES", None)  # the arm decides, through the checkout's config, as a user's would
    env.pop("CTXOPS_ROOT", None)
    with checkout(root, commit, scratch, f"{task.name}-{arm.name}-{rep}") as path:
        repo = try_find_root(str(path)) or str(path)
        if task.setup:
            code, out = _shell(task.setup, path, env, SETUP_TIMEOUT)
            if code != 0:
                record.discarded = True
                record.notes.append(f"setup failed (exit {code}): {out.strip().splitlines()[-1:] or ''}")
                return record
        before = {p.name for p in (path / ".meta").iterdir()} if (path / ".meta").is_dir() else set()
        record.notes += arms.wire(path, arm, options.agent, root)
        task_name = f"bench {bench_id} {task.name} {arm.name} #{rep}"
        task_log.start(repo, task_name, data_dir=str(options.data_dir) if options.data_dir else None)
        try:
            argv = agent_cli.command(
                options.agent, exe, task.prompt, wired=arm.name != "off", checkout=str(path.resolve())
            )
            agent_env = agent_cli.environment(options.agent, env)
            result = agent_cli.run(options.agent, argv, path, agent_env, task.timeout or options.max_seconds)
        finally:
            task_log.stop(repo, data_dir=str(options.data_dir) if options.data_dir else None)
        record.seconds = round(result.seconds, 3)
        record.exit_code = result.returncode
        record.timed_out = result.timed_out
        record.session_id = result.session_id
        record.reported_cost_usd = result.reported_cost_usd
        record.turns = result.reported_turns
        if result.timed_out:
            record.notes.append(f"the agent was stopped at the time cap ({task.timeout or options.max_seconds:g} s)")
        if task.check:
            code, out = _shell(task.check, path, env, SETUP_TIMEOUT)
            record.check_exit = code
            record.success = code == 0 and not result.timed_out
        else:
            record.success = not result.is_error and not result.timed_out
        problem = ledger_calls.ingest(ctx_argv(), options.data_dir)
        if problem:
            record.notes.append(f"ledger ingest: {problem}")
        usage = ledger_calls.usage_of(repo, result.session_id, options.data_dir)
        record.calls = usage.calls
        record.input_tokens = usage.input_tokens
        record.output_tokens = usage.output_tokens
        record.cache_read_tokens = usage.cache_read_tokens
        record.cache_write_tokens = usage.cache_write_tokens
        record.cost_usd = round(usage.cost_usd, 9)
        record.resident_tokens = usage.resident_tokens
        record.resident_by_line = resident.components(options.agent, result.session_id)
        if usage.calls == 0:
            record.notes.append("the ledger holds no call of this run (no transcript found for its checkout)")
        if arm.name == "off":
            record.contamination = contamination(path, before)
            record.discarded = bool(record.contamination)
    return record


class BenchStopped(Exception):
    """A cap was reached: the runs so far are kept; the reason says which cap."""


def run_bench(
    root: Path,
    tasks: list[Task],
    options: BenchOptions,
    *,
    progress: Callable[[str], None] = lambda _line: None,
) -> tuple[str, Path, list[RunRecord], str | None]:
    """Run the bench; (id, results file, records, why it stopped early or None)."""
    from ctxops_core.init_cmd import ctx_argv

    exe = agent_cli.executable(options.agent, options.agent_command)
    commit = _git(root, "rev-parse", "HEAD")
    seed = options.seed if options.seed is not None else random.SystemRandom().randrange(2**31)
    bench_id = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ") + f"-{os.getpid()}"
    out = bench_dir(root) / f"{bench_id}.jsonl"
    header = {"bench": bench_id, "agent": options.agent, "commit": commit, "seed": seed, "repeat": options.repeat}
    header |= {"arms": [a.name for a in options.arms], "tasks": [t.name for t in tasks]}
    header["priced_from"] = "proxy+transcripts" if options.proxy and options.agent == "claude-code" else "transcripts"
    with out.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"header": header}, separators=(",", ":")) + "\n")
    plan = schedule(tasks, options.arms, options.repeat, seed)
    records: list[RunRecord] = []
    stopped: str | None = None
    started = time.monotonic()
    spent = 0.0
    previous = signal.getsignal(signal.SIGTERM)

    def _terminate(_sig: int, _frame: Any) -> None:
        raise KeyboardInterrupt  # a SIGTERM cleans up like Ctrl-C

    signal.signal(signal.SIGTERM, _terminate)
    scratch = Path(tempfile.mkdtemp(prefix="ctxops-bench-"))
    stack = ExitStack()
    try:
        routed: Mapping[str, str] = {}
        if options.proxy:
            routed = stack.enter_context(proxy.recording(options.agent, ctx_argv(), os.environ, options.data_dir))
        for order, (task, arm, rep) in enumerate(plan, 1):
            if options.budget_usd is not None and spent >= options.budget_usd:
                stopped = f"the bench's budget ${options.budget_usd:g} is spent (${spent:.4f})"
                break
            if options.budget_seconds is not None and time.monotonic() - started >= options.budget_seconds:
                stopped = f"the bench's time budget ({options.budget_seconds:g} s) is used"
                break
            progress(f"[{order}/{len(plan)}] {task.name} · {arm.name} · #{rep}")
            record = run_one(
                root,
                task,
                arm,
                rep,
                order=order,
                bench_id=bench_id,
                commit=commit,
                scratch=scratch,
                options=options,
                exe=exe,
                routed=routed,
            )
            records.append(record)
            spent += record.cost_usd
            with out.open("a", encoding="utf-8") as fh:
                fh.write(record.as_json() + "\n")
            if options.max_usd is not None and record.cost_usd > options.max_usd:
                stopped = f"run {order} cost ${record.cost_usd:.4f}, over the per-run cap ${options.max_usd:g}"
                break
    except KeyboardInterrupt:
        stopped = "interrupted"
    finally:
        stack.close()
        signal.signal(signal.SIGTERM, previous)
        shutil.rmtree(scratch, ignore_errors=True)
    return bench_id, out, records, stopped
