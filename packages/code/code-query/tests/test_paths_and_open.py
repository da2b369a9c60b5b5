"""Paths stay inside the repository; `cq open` returns bounded slices with line numbers."""

from __future__ import annotations

from pathlib import Path

import pytest
from ctxops_code_query.errors import PathRefused, UsageError
from ctxops_code_query.repo import find_root, safe_path
from ctxops_code_query.slices import MAX_SLICE_LINES, parse_target, slice_hits


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("".join(f"line {i}\n" for i in range(1, 1001)))
    (tmp_path / "secret.txt").write_text("top secret\n")
    (root / "src" / "escape.txt").symlink_to(tmp_path / "secret.txt")
    (root / "inside.py").symlink_to(root / "src" / "app.py")
    (root / "bin.dat").write_bytes(b"\x00\x01\x02" * 100)
    return root


def test_root_is_found_from_a_subdirectory(repo: Path) -> None:
    assert find_root(repo / "src") == repo.resolve()


@pytest.mark.parametrize("bad", ["../secret.txt", "src/../../secret.txt", "/etc/passwd", "src/escape.txt"])
def test_paths_escaping_the_repository_are_refused(repo: Path, bad: str) -> None:
    with pytest.raises(PathRefused) as info:
        safe_path(repo, bad)
    assert info.value.exit_code == 2


def test_symlink_inside_the_repository_is_allowed(repo: Path) -> None:
    _, rel = safe_path(repo, "inside.py")
    assert rel == "inside.py"


def test_range_slice_has_line_numbers(repo: Path) -> None:
    hits, total, rel = slice_hits(repo, "src/app.py", 10, 12)
    assert rel == "src/app.py" and total == 1000
    assert [(h.line, h.text) for h in hits] == [(10, "line 10"), (11, "line 11"), (12, "line 12")]


def test_slices_are_bounded(repo: Path) -> None:
    hits, _, _ = slice_hits(repo, "src/app.py", 1, 1000)
    assert len(hits) == MAX_SLICE_LINES


@pytest.mark.parametrize(
    ("spec", "start", "end", "name"),
    [
        ("src/app.py", None, None, None),
        ("src/app.py:5-9", 5, 9, None),
        ("src/app.py:5", 5, 64, None),
        ("src/app.py:5-", 5, None, None),
        ("src/app.py:OrderState.transition", None, None, "OrderState.transition"),
    ],
)
def test_targets_parse(repo: Path, spec: str, start: int | None, end: int | None, name: str | None) -> None:
    t = parse_target(repo, spec)
    assert (t.path, t.start, t.end, t.name) == ("src/app.py", start, end, name)


def test_bad_ranges_and_binaries_are_usage_errors(repo: Path) -> None:
    with pytest.raises(UsageError):
        parse_target(repo, "src/app.py:9-5")
    with pytest.raises(UsageError, match="binary"):
        slice_hits(repo, "bin.dat", 1, 2)
    with pytest.raises(UsageError, match="past its end"):
        slice_hits(repo, "src/app.py", 5000, 5001)
    with pytest.raises(UsageError, match="no such file"):
        slice_hits(repo, "src/nope.py", 1, 2)
