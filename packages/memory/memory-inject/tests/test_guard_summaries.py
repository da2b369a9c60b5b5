"""Summaries of VCS, build, search and generic outputs made by real tools in a temporary repository."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from ctxops_memory_inject.guard.classify import classify
from ctxops_memory_inject.guard.summarize import summarize


def run(cwd: Path, *argv: str) -> str:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=True).stdout


def repo_with_history(tmp_path: Path) -> Path:
    root = tmp_path / "r"
    root.mkdir()
    run(root, "git", "init", "-q")
    run(root, "git", "config", "user.email", "a@example.com")
    run(root, "git", "config", "user.name", "A")
    body = "".join(f"line {i}\n" for i in range(200))
    (root / "a.txt").write_text(body)
    run(root, "git", "add", ".")
    run(root, "git", "commit", "-qm", "first\n\nA long body that explains the change.")
    (root / "a.txt").write_text(body.replace("line 50\n", "line fifty\n").replace("line 150\n", "line 150b\n"))
    run(root, "git", "commit", "-qam", "second: rename fifty")
    return root


def summary(command: str, text: str) -> str:
    family, kind = classify(command)
    return "\n".join(summarize(kind, family, text))


def test_git_log_p_keeps_subjects_and_changed_lines(tmp_path: Path) -> None:
    root = repo_with_history(tmp_path)
    text = run(root, "git", "log", "-p", "-U30", "-1")
    out = summary("git log -p -1", text)
    assert "second: rename fifty" in out
    assert "-line 50" in out and "+line fifty" in out and "+line 150b" in out
    assert "line 100" not in out  # unchanged context folded
    assert len(out) < len(text) / 2


def test_git_log_keeps_every_message_line_and_stat(tmp_path: Path) -> None:
    root = repo_with_history(tmp_path)
    text = run(root, "git", "log", "--stat")
    out = summary("git log --stat", text)
    lines = out.splitlines()
    assert lines[0].startswith("2 commits")
    assert lines[1].startswith("commit ") and "A <a@example.com>" in lines[1]
    for line in text.splitlines():  # messages and per-file stats are what was asked for: all kept
        if line.startswith("    ") and line.strip():
            assert "  " + line.strip() in lines
        elif " | " in line:
            path, rest = (part.strip() for part in line.split(" | "))
            assert any(kept.startswith(f" {path} | {rest.split()[0]}") for kept in lines)
    assert "A long body that explains the change." in out
    assert " a.txt | 200" in lines  # insertions only: the bar says nothing the summary line does not
    assert " a.txt | 4 ++--" in lines  # both sides: the bar is kept


def test_git_diff_stat_and_oneline_lose_nothing(tmp_path: Path) -> None:
    root = repo_with_history(tmp_path)
    (root / "b.txt").write_text("".join(f"b {i}\n" for i in range(30)))
    run(root, "git", "add", "b.txt")
    run(root, "git", "commit", "-qm", "third: b")
    stat = run(root, "git", "diff", "--stat", "HEAD~2")
    out = summary("git diff --stat HEAD~2", stat)
    assert [line.split("|")[0].strip() for line in out.splitlines() if "|" in line] == ["a.txt", "b.txt"]
    assert " a.txt | 4 ++--" in out  # both sides changed: the bar says how, kept
    oneline = run(root, "git", "log", "--oneline", "--stat")
    out = summary("git log --oneline --stat", oneline)
    assert " b.txt | 30" in out and "third: b" in out and "first" in out and "…" not in out


def test_git_diff_folds_context(tmp_path: Path) -> None:
    root = repo_with_history(tmp_path)
    text = run(root, "git", "diff", "HEAD~1", "-U40")
    out = summary("git diff HEAD~1", text)
    assert out.startswith("1 file changed, +2 -2")
    assert "+line fifty" in out and " line 30\n" not in out


def test_search_flood_grouped_and_capped() -> None:
    text = "".join(f"src/m{i % 7}.py:{i}:    call_{i}()\n" for i in range(300))
    out = summary("grep -rn call_ src", text)
    assert out.startswith("300 hits in 7 files")
    assert "src/m0.py (43)" in out and "… and" in out


def test_find_paths_grouped_by_directory() -> None:
    text = "".join(f"./pkg{i % 5}/mod{i}.py\n" for i in range(200))
    out = summary("find . -name '*.py'", text)
    assert out.startswith("200 paths in 5 directories")


def test_pip_install_log_keeps_error_and_tail(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-index", "--find-links", str(tmp_path), "no-such-package-ctxops"],
        capture_output=True,
        text=True,
        check=False,
    )
    text = "Collecting x\n  Downloading x-1.0.tar.gz (10 kB)\n" * 200 + done.stdout + done.stderr
    out = summary("pip install no-such-package-ctxops", text)
    assert "ERROR" in out or "No module named pip" in out
    assert out.count("Downloading") <= 4 and len(out) < len(text) / 10  # head and tail only


def test_generic_log_collapses_repeats_and_keeps_errors() -> None:
    text = "".join(f"tick {i}\n" for i in range(500)) + "fatal: disk full at store.c:88\n" + "done\n"
    out = summary("./long-job.sh", text)
    assert "store.c:88" in out and "tick 0" in out and "done" in out
    assert len(out) < 2000


def test_git_status_groups_long_file_lists(tmp_path: Path) -> None:
    root = repo_with_history(tmp_path)
    for i in range(30):
        (root / "new").mkdir(exist_ok=True)
        (root / "new" / f"f{i}.txt").write_text("x")
    (root / "a.txt").write_text("changed\n")
    run(root, "git", "add", "new")
    text = run(root, "git", "status", "-uall")
    out = summary("git status", text)
    assert "new/ (30 files)" in out and "On branch" in out
    assert "f17.txt" not in out


def test_unittest_failures_kept() -> None:
    text = "\n".join(f"test_{i} (pkg.tests.T.test_{i}) ... ok" for i in range(200))
    text += "\n" + "\n".join(
        [
            "test_bad (pkg.tests.T.test_bad) ... FAIL",
            "======================================================================",
            "FAIL: test_bad (pkg.tests.T.test_bad)",
            "----------------------------------------------------------------------",
            "Traceback (most recent call last):",
            '  File "/src/pkg/tests.py", line 41, in test_bad',
            "    self.assertEqual(1, 2)",
            "AssertionError: 1 != 2",
            "",
            "Ran 201 tests in 0.050s",
            "",
            "FAILED (failures=1)",
        ]
    )
    out = summary("python -m unittest -v pkg.tests", text)
    assert "FAIL: test_bad (pkg.tests.T.test_bad)" in out and 'File "/src/pkg/tests.py", line 41' in out
    assert "Ran 201 tests" in out and "FAILED (failures=1)" in out
    assert "test_7 " not in out


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("(cd web && npm test)", ("npm-test", "test")),
        ("(cd web && npm install --no-audit --no-fund)", ("npm", "build")),
        ("uv run pytest -q", ("pytest", "test")),
        ("cd worker && go test ./...", ("go-test", "test")),
        ("python -m mypy --strict api", ("mypy", "check")),
        ("git diff --stat && git log --stat -6", ("git-diff", "vcs")),
        ("echo hi", ("generic", "generic")),
    ],
)
def test_classify_sees_through_subshells_and_runners(command: str, expected: tuple[str, str]) -> None:
    assert classify(command) == expected
