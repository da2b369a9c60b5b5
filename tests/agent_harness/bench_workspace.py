"""What the `ctx bench` end-to-end tests share: a repository with one task, and the server-side truth per run."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

from .ctx_repo import BIN

# A bench run's checkout is <tmp>/ctxops-bench-XXXX/<task>-<arm>-<rep>: every request of the run names it.
RUN_DIR = re.compile(r"ctxops-bench-[^/\s\"'<>\\]+/([A-Za-z0-9._-]+)")
FILLER = "\n".join(f"def helper_{n}(value): return value * {n} + {n % 7}  # rounding rule {n}" for n in range(1000))
DISCOUNT = "def apply_discount(total, percent):\n    return total * (1 - percent / 100)\n"
SOURCE = f'"""Pricing."""\n\n\n{DISCOUNT}\n{FILLER}\n'
TASKS = '[[task]]\nname = "find-discount"\nprompt = "Where is apply_discount defined?"\ncheck = "test -f pricing.py"\n'
CONSTRAINT = "Every price in the catalogue is in EUR with VAT included; invoices round to cents. " * 8


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


def make_bench_repo(where: Path) -> tuple[Path, dict[str, str]]:
    """A committed repository holding pricing.py, TASKS.toml and one stored constraint; the env for `ctx`."""
    repo = where / "shop"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "pricing.py").write_text(SOURCE, encoding="utf-8")
    (repo / "TASKS.toml").write_text(TASKS, encoding="utf-8")
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    env["CTXOPS_DATA_DIR"] = str(where / "data")
    env.pop("CTXOPS_ROOT", None)
    added = subprocess.run(
        [str(BIN / "ctx"), "mem", "add", "--kind", "constraint", "--title", "Prices are quoted in euros",
         "--body", CONSTRAINT],
        cwd=repo, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert added.returncode == 0, added.stdout + added.stderr
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "shop")
    return repo, env


def strings(value: Any) -> list[str]:
    """Every string in a request (system prompt, messages, reminders, tool outputs), decoded."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def truth_per_run(requests: dict[int, dict[str, Any]], responses: list[dict[str, Any]]) -> dict[str, list[int]]:
    """Per bench run (its checkout's name): the input tokens of each main response the server sent it."""
    found: dict[str, list[int]] = {}
    for response in responses:
        named = RUN_DIR.search(json.dumps(requests[response["seq"]]["body"], ensure_ascii=False))
        assert named, "a main request that names no bench checkout"
        usage = response["usage"]  # Anthropic and OpenAI: input_tokens (all of the prompt); Gemini: promptTokenCount
        found.setdefault(named.group(1), []).append(int(usage.get("input_tokens", usage.get("promptTokenCount", 0))))
    return found


def bench_runs(results: str) -> list[dict[str, Any]]:
    """The run records of a bench's results file (its first line is the header)."""
    return [json.loads(line) for line in Path(results).read_text(encoding="utf-8").splitlines()[1:]]


def texts_per_run(requests: dict[int, dict[str, Any]]) -> dict[str, list[str]]:
    """Per bench run: the text of every request that names its checkout."""
    found: dict[str, list[str]] = {}
    for request in requests.values():
        text = json.dumps(request.get("body"), ensure_ascii=False)
        named = RUN_DIR.search(text)
        if named:
            found.setdefault(named.group(1), []).append(text)
    return found
