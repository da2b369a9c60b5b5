"""`cq grep` and `cq open` end to end (a real `cq` process): text, JSON, exit codes, refusals."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest


def cq(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctxops_code_query", *args, "--root", str(root)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "api").mkdir()
    (root / "api" / "orders.py").write_text(
        "class OrderState:\n    def transition(self, event):\n        return event\n\n\n"
        + "".join(f"def handler_{i}():\n    return transition_table[{i}]\n\n" for i in range(30))
    )
    (root / "api" / "db.py").write_text("def connect():\n    return transition_table\n")
    (root / "outside.txt").write_text("x\n")
    (tmp_path / "secret.txt").write_text("secret\n")
    (root / "link.txt").symlink_to(tmp_path / "secret.txt")
    return root


def test_grep_groups_by_file_and_caps_with_n_more(repo: Path) -> None:
    done = cq(repo, "grep", "transition_table")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "31 matches in 2 files"
    assert lines[1] == "api/db.py"
    assert lines[2] == "      2  return transition_table"
    assert lines.count("api/orders.py") == 1
    assert any(line.startswith("... and 21 more (capped at --max 10") for line in lines)


def test_grep_json_carries_the_same_facts(repo: Path) -> None:
    done = cq(repo, "grep", "transition_table", "--json", "--max", "3")
    data = json.loads(done.stdout)
    assert data["command"] == "grep" and data["total"] == 31 and data["omitted"] == 28 and data["truncated"]
    assert [h["path"] for h in data["hits"]] == ["api/db.py", "api/orders.py", "api/orders.py"]
    assert data["token_estimate"] > 0


def test_grep_no_match_exit_1_and_bad_pattern_exit_2(repo: Path) -> None:
    none = cq(repo, "grep", "nothing_like_this")
    assert none.returncode == 1 and none.stdout.startswith("no matches for grep nothing_like_this")
    bad = cq(repo, "grep", "(unclosed")
    assert bad.returncode == 2 and "\n  fix: " in bad.stderr
    assert bad.stderr.startswith("python -m ctxops_code_query: error: ")  # the command that was typed
    bad_json = cq(repo, "grep", "(unclosed", "--json")
    assert json.loads(bad_json.stdout)["error"]["kind"] == "bad-pattern"
    compact = json.dumps(json.loads(bad_json.stdout), separators=(",", ":"), ensure_ascii=False)
    assert bad_json.stdout == compact + "\n"  # one compact document


def test_grep_budget_and_stats(repo: Path) -> None:
    done = cq(repo, "grep", "transition_table", "--max", "100", "--budget", "60", "--stats")
    assert "truncated at the ~60-token budget" in done.stdout
    assert done.stdout.splitlines()[-1].startswith("-- ~")
    assert "cl100k" in done.stdout.splitlines()[-1]


def test_open_range_with_line_numbers(repo: Path) -> None:
    done = cq(repo, "open", "api/orders.py:2-3")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:4] == [
        "api/orders.py lines 2-3 of 95",
        "api/orders.py",
        "      2      def transition(self, event):",
        "      3          return event",
    ]


@pytest.mark.parametrize("target", ["../secret.txt", "/etc/passwd", "link.txt", "api/../../secret.txt"])
def test_open_refuses_paths_outside_the_repository(repo: Path, target: str) -> None:
    done = cq(repo, "open", target)
    assert done.returncode == 2
    assert "refused" in done.stderr
    assert "secret" not in done.stdout


def test_usage_errors_exit_2_and_name_the_fix(repo: Path) -> None:
    done = cq(repo, "open", "api/orders.py:9-2")
    assert done.returncode == 2 and "A <= B" in done.stderr
    done = cq(repo, "grep", "x", "--max", "0")
    assert done.returncode == 2 and "--max 1 or more" in done.stderr
    done = subprocess.run(
        [sys.executable, "-m", "ctxops_code_query", "def"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2
    done = cq(repo / "nope", "grep", "x")
    assert done.returncode == 2 and "no such directory" in done.stderr
