"""The fresh-process fast path of `cq def`: the same answer as the full path, text and JSON, from the
standard library only; anything unusual falls through to the full path."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ctxops_code_query import fastpath
from ctxops_code_query.cli import main
from ctxops_contracts import QueryResult, decode, to_builtins

# CI's coverage leg traces subprocesses, which loads coverage's own modules (pathlib, argparse, ...) into
# every process: import hygiene is checked by the untraced run (`make test`), not there.
_UNTRACED = pytest.mark.skipif(
    bool(os.environ.get("COVERAGE_PROCESS_CONFIG")), reason="coverage tracing loads modules of its own"
)

CASES = [
    ["def", "transition"],
    ["def", "__init__"],  # many hits: capped, previews for the first three
    ["def", "__init__", "--max", "2"],
    ["def", "__init__", "--budget", "40", "--width", "60"],
    ["def", "OrderStateMachine.transition"],
    ["def", "api/orders/state_machine.py:transition"],
]


def _fresh_process(argv: list[str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CQ_NO_SERVER": "1"}
    return subprocess.run(
        [sys.executable, "-m", "ctxops_code_query", *argv],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def _full_path(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[str, int]:
    capsys.readouterr()
    code = main(argv)  # argv given: the full path (argparse, msgspec), never the fast path
    return capsys.readouterr().out, code


def _facts(result: QueryResult) -> dict[str, object]:
    facts = to_builtins(result)
    facts.pop("elapsed_ms")
    return facts


@pytest.mark.parametrize("case", CASES, ids=" ".join)
def test_fast_path_answers_as_the_full_path(
    example_repo: Path, case: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [*case, "--root", str(example_repo), "--no-cache"]
    assert fastpath.answer_def(argv) is not None  # the fast path does answer these
    fast = _fresh_process(argv)
    full_text, full_code = _full_path(argv, capsys)
    assert fast.returncode == full_code == 0
    assert fast.stdout == full_text

    fast_json = _fresh_process([*argv, "--json"])
    full_json, _ = _full_path([*argv, "--json"], capsys)
    fast_result = decode(QueryResult, fast_json.stdout.strip().encode())  # strict: a valid QueryResult
    full_result = decode(QueryResult, full_json.strip().encode())
    assert _facts(fast_result) == _facts(full_result)
    assert list(json.loads(fast_json.stdout)) == list(json.loads(full_json))  # same fields, same order


@pytest.mark.parametrize("name", ["transitoin", "no_such_name_anywhere"])
def test_a_miss_is_answered_on_the_fast_path_as_the_full_path_answers_it(
    example_repo: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["def", name, "--root", str(example_repo), "--no-cache"]
    assert fastpath.answer_def(argv) is not None  # a miss costs what a hit does: no full path
    fast = _fresh_process(argv)
    full_text, full_code = _full_path(argv, capsys)
    assert fast.returncode == full_code == 1
    assert fast.stdout == full_text and fast.stdout.startswith(f"no matches for def {name}")
    fast_json = _fresh_process([*argv, "--json"])
    full_json, _ = _full_path([*argv, "--json"], capsys)
    fast_facts = _facts(decode(QueryResult, fast_json.stdout.strip().encode()))
    assert fast_facts == _facts(decode(QueryResult, full_json.strip().encode()))
    if name == "transitoin":
        assert "transition" in fast.stdout  # the typo's suggestion


def test_options_before_the_command_take_the_fast_path(example_repo: Path) -> None:
    assert fastpath.answer_def(["--root", str(example_repo), "--json", "def", "transition"]) is not None
    assert fastpath.answer_def(["--json", "def", "--root", str(example_repo), "transition"]) is not None


@_UNTRACED
def test_fast_path_imports_only_the_standard_library(example_repo: Path) -> None:
    env = {**os.environ, "CQ_NO_SERVER": "1"}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "ctxops_code_query", "def", "transition"],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        cwd=example_repo,
        timeout=60,
    )
    assert done.returncode == 0 and "transition" in done.stdout
    names = {ln.rsplit("|", 1)[1].strip() for ln in done.stderr.splitlines() if ln.startswith("import time:")}
    assert "ctxops_code_graph.reader" in names
    assert not names & {"msgspec", "argparse", "pathlib", "dataclasses", "typing", "ctxops_contracts.records"}


@pytest.mark.parametrize(
    "argv",
    [
        ["def", "OrderStateMachine.no_such_method"],  # a qualified miss: the full path tries other readings
        ["def", "transition", "--stats"],  # an option the fast path does not handle
        ["def", "transition", "--max", "0"],  # a usage error: argparse/the service say what is wrong
        ["def", "transition", "extra"],
        ["refs", "transition"],
        ["def"],
        ["def", "-h"],
    ],
)
def test_fast_path_declines_what_it_does_not_handle(example_repo: Path, argv: list[str]) -> None:
    assert fastpath.answer_def([*argv, "--root", str(example_repo)]) is None


def test_fast_path_declines_without_an_index_and_when_files_changed(example_repo: Path, tmp_path: Path) -> None:
    from ctxops_code_graph.layout import IndexLayout
    from ctxops_code_graph.lock import WriterLock

    repo = tmp_path / "copy"
    shutil.copytree(example_repo, repo, symlinks=True)
    assert fastpath.answer_def(["def", "transition", "--root", str(repo)]) is not None
    target = repo / "api" / "orders" / "state_machine.py"
    original = target.read_text()
    target.write_text(original + "\n\ndef added_later():\n    return 1\n")
    # Another writer holds the index, so the update cannot commit: the saved file's definitions are read
    # from it (new name found, a definition whose line moved at its new line), not from the old snapshot.
    writer = WriterLock(IndexLayout(repo).lock_path, timeout=5.0)
    writer.acquire()
    try:
        found = fastpath.answer_def(["def", "added_later", "--root", str(repo), "--json"])
        assert found is not None and found[1] == 0
        assert [h["path"] for h in json.loads(found[0])["hits"]] == ["api/orders/state_machine.py"]
        target.write_text("\n\n" + original + "\n\ndef added_later():\n    return 1\n")  # lines move down 2
        during = fastpath.answer_def(["def", "transition", "--root", str(repo), "--json"])
        # Without a deadline the full path updates in-process: the fast path leaves it to it.
        assert fastpath.answer_def(["def", "transition", "--root", str(repo), "--deadline", "0"]) is None
        target.write_text("\n\n" + original)  # the added function deleted again: gone, not stale
        gone = fastpath.answer_def(["def", "added_later", "--root", str(repo), "--json"])
        assert gone is not None and gone[1] == 1 and json.loads(gone[0])["hits"] == []
    finally:
        writer.release()
    # Once the update commits, the index answers exactly what the overlay answered.
    from ctxops_code_graph import CodeIndex

    target.write_text("\n\n" + original + "\n\ndef added_later():\n    return 1\n")
    # A detached update the queries above started may hold the writer lock: wait for it, not 2 s.
    CodeIndex(repo, lock_wait=120.0).update(bound=None)
    after = fastpath.answer_def(["def", "transition", "--root", str(repo), "--json"])
    assert during is not None and after is not None
    assert [(h["path"], h["line"], h["text"]) for h in json.loads(during[0])["hits"]] == [
        (h["path"], h["line"], h["text"]) for h in json.loads(after[0])["hits"]
    ]
    target.write_text(original + "\n\ndef added_later():\n    return 1\n")
    # With no writer in the way the fast path starts the detached update, waits for its commit and
    # answers from the fresh snapshot itself: the new name, without importing the full path.
    done_fast = fastpath.answer_def(["def", "added_later", "--root", str(repo), "--deadline", "60"])
    assert done_fast is not None and done_fast[1] == 0 and "state_machine.py" in done_fast[0]
    target.write_text(original + "\n\ndef added_later_again():\n    return 1\n")
    # The first query of a fresh process after the save sees the new name (a deadline no load can expire).
    done = _fresh_process(["def", "added_later_again", "--root", str(repo), "--deadline", "60"])
    assert done.returncode == 0 and "state_machine.py" in done.stdout
    gone = _fresh_process(["def", "added_later", "--root", str(repo), "--deadline", "60"])
    assert gone.returncode == 1 and "no matches" in gone.stdout  # the replaced name is gone, not stale
    assert fastpath.answer_def(["def", "added_later_again", "--root", str(repo)]) is not None  # fresh again
    # A detached update started by the queries above may still be finishing in the index directory: wait for
    # it (it holds the update lock for its whole life) before deleting the index under it.
    from ctxops_contracts.shared import locks

    with locks.file_lock(IndexLayout(repo).update_lock_path, timeout=120.0):
        pass
    shutil.rmtree(repo / ".meta" / "index")
    assert fastpath.answer_def(["def", "transition", "--root", str(repo)]) is None  # the full path builds it


def test_parse_accepts_both_option_spellings() -> None:
    opts = fastpath.parse(["def", "--max=3", "name", "--budget", "50", "--json", "--root=/x", "--deadline", "1.5"])
    assert opts is not None
    assert (opts["name"], opts["max"], opts["budget"], opts["json"], opts["root"]) == ("name", 3, 50, True, "/x")
    assert fastpath.parse(["def", "name", "--max", "x"]) is None
    assert fastpath.parse(["def", "name", "--budget"]) is None


def test_a_broken_scan_config_after_a_save_is_left_to_the_full_path(example_repo: Path, tmp_path: Path) -> None:
    repo = tmp_path / "copy"
    shutil.copytree(example_repo, repo, symlinks=True)
    target = repo / "api" / "orders" / "state_machine.py"
    target.write_text(target.read_text() + "\n\ndef added_later():\n    return 1\n")
    (repo / ".meta" / "config.toml").write_text("[code\nbroken = ")
    # The overlay cannot read the scan settings: no traceback, the full path answers.
    assert fastpath.answer_def(["def", "added_later", "--root", str(repo), "--deadline", "0.2"]) is None
    # An ample deadline: the snapshot must answer because the update cannot run, not because time ran out.
    done = _fresh_process(["def", "added_later", "--root", str(repo), "--deadline", "10"])
    assert "Traceback" not in done.stderr, done.stderr
    # The update cannot run either: the answer comes from the snapshot, the saved file named as stale.
    assert done.returncode == 1 and "stale: api/orders/state_machine.py" in done.stdout, done.stdout
