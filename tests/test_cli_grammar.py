"""Every command follows the one CLI grammar (docs/cli-reference.md): walked, not listed by hand.

The walk starts from `ctx --help`, `cq --help` and each package's `python -m` entry point, follows every
argparse subcommand, and checks each command the way a user meets it: the usage line names what was
typed, every flag has help text, and under `--json` a usage error is a JSON document on stdout with exit 2.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
# Hook commands always exit 0 whatever they are given: they never break the agent. A status line always
# prints a line: Claude Code shows whatever it prints, and an error there would replace the status.
NEVER_FAILS = {
    ("ctx", "hook"),
    ("python", "-m", "ctxops_hooks_capture"),
    ("ctx", "ledger", "statusline"),
    ("python", "-m", "ctxops_ledger_report", "statusline"),
}
_OPTION = re.compile(r"^  (-{1,2}\S.*?)(?:\s{2,}(\S.*))?$")
_SUBCOMMAND = re.compile(r"^    ([a-z][\w-]*)(?:\s{2,}\S.*)?$")
_USAGE = re.compile(r"^usage: (.+?)(?: \[| [A-Z{]|$)")


def _run(argv: tuple[str, ...], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100", "CTXOPS_DATA_DIR": "/nonexistent-ctxops-data"}
    command = [str(BIN / argv[0]), *argv[1:]] if argv[0] in ("ctx", "cq") else [sys.executable, *argv[1:]]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False, env=env, cwd="/")


def _typed(argv: tuple[str, ...]) -> str:
    return " ".join(argv)


def _subcommands(help_text: str) -> list[str]:
    """The subcommands argparse lists under its positional arguments (`COMMAND` or `{a,b}` groups)."""
    names: list[str] = []
    in_positionals = False
    for line in help_text.splitlines():
        if line.endswith(":") and not line.startswith(" "):
            in_positionals = line.startswith("positional arguments")
            continue
        if in_positionals:
            match = _SUBCOMMAND.match(line)
            if match:
                names.append(match.group(1))
    return names


def _ctx_commands() -> list[str]:
    done = _run(("ctx", "--help"))
    lines = done.stdout.split("commands:", 1)[-1].splitlines()
    return [line.split()[0] for line in lines if line.startswith("  ") and line.split()]


def _entry_modules() -> list[str]:
    import importlib.util

    modules = []
    for name in (
        "ctxops_hooks_capture",
        "ctxops_memory_store",
        "ctxops_memory_inject",
        "ctxops_code_scan",
        "ctxops_code_graph",
        "ctxops_code_query",
        "ctxops_token_capture",
        "ctxops_ledger_report",
    ):
        if importlib.util.find_spec(name) and importlib.util.find_spec(f"{name}.__main__"):
            modules.append(name)
    return modules


@cache
def command_tree() -> dict[tuple[str, ...], str]:
    """Every command reachable by argv, with its `--help` text."""
    roots: list[tuple[str, ...]] = [("ctx", name) for name in _ctx_commands()]
    if shutil.which("cq", path=str(BIN)):
        roots.append(("cq",))
    roots += [("python", "-m", module) for module in _entry_modules()]
    tree: dict[tuple[str, ...], str] = {}
    frontier = roots
    with ThreadPoolExecutor(max_workers=4) as pool:
        while frontier:
            helps = list(pool.map(lambda argv: (argv, _run((*argv, "--help"))), frontier))
            frontier = []
            for argv, done in helps:
                tree[argv] = done.stdout if done.returncode == 0 else f"!! rc {done.returncode}: {done.stderr[-400:]}"
                if done.returncode == 0 and len(argv) < 6:
                    frontier += [(*argv, sub) for sub in _subcommands(done.stdout) if sub != "help"]
    return tree


def _options_without_help(help_text: str) -> list[str]:
    lines = help_text.splitlines()
    missing = []
    in_options = False
    for index, line in enumerate(lines):
        if line.endswith(":") and not line.startswith(" "):
            in_options = line.startswith(("options", "optional arguments")) or "options" in line
            continue
        if not in_options:
            continue
        match = _OPTION.match(line)
        if not match or match.group(2):
            continue
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if not (following.startswith(" " * 6) and not following.lstrip().startswith("-")):
            missing.append(match.group(1).strip())
    return missing


def test_the_walk_finds_every_line_s_commands() -> None:
    tree = command_tree()
    typed = {_typed(argv) for argv in tree}
    # one command of each line is enough to prove the walk reaches it (installed in the workspace)
    for expected in ("ctx code def", "ctx mem add", "ctx ledger totals", "cq def", "ctx hook"):
        assert expected in typed, sorted(typed)
    assert len(tree) >= 40


def test_help_works_and_the_usage_line_names_what_was_typed() -> None:
    wrong = {}
    for argv, text in command_tree().items():
        first = text.splitlines()[0] if text else ""
        match = _USAGE.match(first)
        if text.startswith("!!") or not match or match.group(1) != _typed(argv):
            wrong[_typed(argv)] = first
    assert wrong == {}


def test_every_flag_has_help_text() -> None:
    missing = {}
    for argv, text in command_tree().items():
        flags = [f for f in _options_without_help(text) if not f.startswith("-h, --help")]
        if flags:
            missing[_typed(argv)] = flags
    assert missing == {}


def _is_leaf(argv: tuple[str, ...], tree: dict[tuple[str, ...], str]) -> bool:
    return not any(other[: len(argv)] == argv and len(other) > len(argv) for other in tree)


def test_a_usage_error_under_json_is_a_json_document_on_stdout_with_exit_2() -> None:
    tree = command_tree()
    leaves = [a for a in tree if _is_leaf(a, tree) and not any(a[: len(n)] == n for n in NEVER_FAILS)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda argv: (argv, _run((*argv, "--json", "--no-such-option-xyz"))), leaves))
    wrong = {}
    for argv, done in results:
        try:
            error = json.loads(done.stdout)["error"]
            ok = done.returncode == 2 and isinstance(error.get("message"), str)
        except (ValueError, KeyError, TypeError, AttributeError):
            ok = False
        if not ok:
            wrong[_typed(argv)] = (done.returncode, done.stdout[:120], done.stderr[-120:])
    assert wrong == {}


@pytest.mark.parametrize(
    "argv", [("ctx", "hook", "claude-code"), ("python", "-m", "ctxops_hooks_capture", "claude-code")]
)
def test_hook_commands_exit_0_on_bad_input(argv: tuple[str, ...], tmp_path: Path) -> None:
    done = subprocess.run(
        [str(BIN / "ctx"), *argv[1:]] if argv[0] == "ctx" else [sys.executable, *argv[1:]],
        input="{not json",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "CTXOPS_ROOT": str(tmp_path), "CTXOPS_DATA_DIR": str(tmp_path / "data")},
    )
    assert done.returncode == 0
