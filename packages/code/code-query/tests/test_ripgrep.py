"""`cq grep` on the bundled ripgrep: argv only, caps, and four distinct failure classes."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from ctxops_code_query.ripgrep import (
    GrepAborted,
    GrepBadPattern,
    GrepFailed,
    GrepOptions,
    GrepOverflow,
    build_argv,
    find_rg,
    run_grep,
)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("def alpha():\n    return beta()\n\ndef beta():\n    return 1\n")
    (tmp_path / "src" / "b.py").write_text("from a import alpha\nalpha()\n")
    (tmp_path / "notes.txt").write_text("alpha; rm -rf / $(echo hi)\n")
    return tmp_path


def test_the_bundled_binary_is_found() -> None:
    rg = find_rg()
    assert rg.is_file() and os.access(rg, os.X_OK)
    assert rg.parent == Path(sys.executable).parent or "rg" in rg.name


def test_argv_has_no_config_and_passes_the_pattern_as_one_argument(tmp_path: Path) -> None:
    argv = build_argv(Path("/x/rg"), GrepOptions(pattern="-e; rm -rf /", paths=("src",)))
    assert argv[1] == "--no-config"
    assert "--regexp=-e; rm -rf /" in argv
    assert argv[-2:] == ["--", "src"]


def test_matches_are_counted_and_kept_up_to_the_cap(tree: Path) -> None:
    got = run_grep(tree, GrepOptions(pattern="alpha", keep=2), timeout=10)
    assert got.count == 4
    assert len(got.kept) == 2
    assert {m.path for m in got.kept} <= {"src/a.py", "src/b.py", "notes.txt"}
    assert all("\x00" not in m.path for m in got.kept)


def test_shell_metacharacters_are_plain_text(tree: Path) -> None:
    got = run_grep(tree, GrepOptions(pattern="$(echo hi)", fixed=True), timeout=10)
    assert [(m.path, m.line) for m in got.kept] == [("notes.txt", 1)]


def test_no_match_is_an_empty_result_not_an_error(tree: Path) -> None:
    assert run_grep(tree, GrepOptions(pattern="zeta_not_here"), timeout=10).count == 0


def test_bad_pattern(tree: Path) -> None:
    with pytest.raises(GrepBadPattern) as info:
        run_grep(tree, GrepOptions(pattern="(unclosed"), timeout=10)
    assert info.value.exit_code == 2 and "regex" in str(info.value)


def test_search_failed_on_a_missing_path(tree: Path) -> None:
    with pytest.raises(GrepFailed) as info:
        run_grep(tree, GrepOptions(pattern="x", paths=("does/not/exist",)), timeout=10)
    assert info.value.kind == "search-failed"


def test_output_overflow_keeps_what_was_read(tree: Path) -> None:
    big = tree / "big.txt"
    big.write_text("needle line\n" * 20000)
    with pytest.raises(GrepOverflow) as info:
        run_grep(tree, GrepOptions(pattern="needle", max_bytes=4096), timeout=10)
    assert 0 < info.value.matches.count < 20000
    assert info.value.matches.kept


def test_aborted_at_the_deadline(tree: Path) -> None:
    big = tree / "huge"
    big.mkdir()
    line = ("x" * 60 + " needle\n") * 4000
    for i in range(60):
        (big / f"f{i}.txt").write_text(line)
    with pytest.raises(GrepAborted) as info:
        run_grep(tree, GrepOptions(pattern="needle"), timeout=0.0)
    assert info.value.exit_code == 3


def test_missing_binary_override_is_an_environment_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CQ_RG", str(tmp_path / "nope"))
    with pytest.raises(GrepFailed):
        find_rg()
