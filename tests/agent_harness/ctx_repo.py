"""A git repository of the example, wired by `ctx` as a user would, and what ctxops captured in it."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxops_core import agents

REPO_ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent  # where `ctx` of this environment is

# The standard session every real-client e2e test scripts: a stored lesson, a prompt it applies to, and a
# command that fails with a known exit status and output.
LESSON = "Money is Decimal, never float"
LESSON_BODY = "Refund totals drift with float."
PROMPT = "Where is OrderStateMachine.transition and how should refunds store money?"
FAILING = f"{shlex.quote(sys.executable)} -c 'import sys; print(\"boom\"); sys.exit(3)'"


@dataclass(frozen=True)
class CtxRepo:
    """`project` is a fresh git repository of examples/; `env` runs `ctx` with its own ledger directory."""

    project: Path
    data_dir: Path
    env: dict[str, str]

    def ctx(self, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(BIN / "ctx"), *args],
            capture_output=True,
            text=True,
            env={**self.env, **(env or {})},
            cwd=self.project,
            timeout=300,
            check=False,
        )

    def git(self, *args: str) -> str:
        done = subprocess.run(["git", "-C", str(self.project), *args], capture_output=True, text=True, check=True)
        return done.stdout

    def tracked(self) -> dict[str, bytes]:
        return {p: (self.project / p).read_bytes() for p in self.git("ls-files").splitlines()}

    def events(self) -> list[dict[str, Any]]:
        """The AgentEvents hooks-capture stored, in order."""
        return _jsonl(sorted((self.project / ".meta" / "events").glob("*.jsonl")))

    def raw_payloads(self) -> list[dict[str, Any]]:
        """The hook payloads exactly as the agent sent them (hooks-capture keeps them under events/raw)."""
        return [r["payload"] for r in _jsonl(sorted((self.project / ".meta" / "events" / "raw").glob("*.jsonl")))]

    def ledger_session_row(self, env: dict[str, str]) -> dict[str, Any]:
        """`ctx ledger ingest` with the agent's `env` (where its transcripts are), then the one session row."""
        ingest = self.ctx("ledger", "ingest", "--json", env=env)
        assert ingest.returncode == 0, ingest.stdout + ingest.stderr
        report = self.ctx("ledger", "report", "session", "--json")
        assert report.returncode == 0, report.stdout + report.stderr
        (row,) = json.loads(report.stdout)["rows"]
        return dict(row)

    def agent_env(self) -> dict[str, str]:
        """What an agent's hook commands need from this environment: `ctx` on PATH and the ledger directory."""
        return {"PATH": self.env["PATH"], "CTXOPS_DATA_DIR": str(self.data_dir)}


def hook_command(agent: str, root: Path | None = None) -> str:
    """The hook command `ctx init` writes for `agent`: this installation's ctx by absolute path, never PATH's,
    guarded (`agents.guarded_hook`): exit 0 and one note when that path is gone."""
    return agents.guarded_hook((str(BIN / "ctx"),), agent, os.path.realpath(root) if root else None)


def example_repo(where: Path) -> CtxRepo:
    """A fresh git repository of the example under `where` (with history), and the environment to run `ctx`."""
    project = where / "order-service"
    subprocess.run(
        [sys.executable, str(REPO_ROOT / "examples" / "make_history.py"), str(project)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    data_dir = where / "data"
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "CTXOPS_DATA_DIR": str(data_dir)}
    env.pop("CTXOPS_ROOT", None)
    return CtxRepo(project, data_dir, env)


def wired_example(where: Path, agent: str) -> tuple[CtxRepo, dict[str, bytes]]:
    """The example repository with LESSON stored and `ctx init --agent AGENT` run; and its tracked files before."""
    repo = example_repo(where)
    tracked_before = repo.tracked()
    added = repo.ctx("mem", "add", "--kind", "lesson", "--title", LESSON, "--body", LESSON_BODY)
    assert added.returncode == 0, added.stdout + added.stderr
    init = repo.ctx("init", "--agent", agent)
    assert init.returncode == 0, init.stdout + init.stderr
    return repo, tracked_before


def _jsonl(paths: list[Path]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for path in paths:
        out += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return out
