"""Task intervals: start/stop per repository, attribution by (repo, time), damage tolerated."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from ctxops_contracts.shared import tasks

T0 = datetime(2026, 11, 28, 9, tzinfo=UTC)


def test_start_stop_and_lookup_by_repo_and_time(tmp_path: Path) -> None:
    d = str(tmp_path)
    tasks.start("/r/a", "checkout-v2", at=T0, data_dir=d)
    tasks.start("/r/b", "docs", at=T0 + timedelta(hours=1), data_dir=d)
    # A second start in repo a closes the first: a 48-hour feature then a bug fix.
    tasks.start("/r/a", "fix-1234", at=T0 + timedelta(hours=48), data_dir=d)
    closed = tasks.stop("/r/a", at=T0 + timedelta(hours=50), data_dir=d)
    assert closed is not None and closed.name == "fix-1234" and closed.end == T0 + timedelta(hours=50)
    assert tasks.stop("/r/a", data_dir=d) is None  # nothing running any more

    index = tasks.TaskIndex(tasks.intervals(data_dir=d))
    assert index.task_at("/r/a", T0 - timedelta(seconds=1)) is None
    assert index.task_at("/r/a", T0) == "checkout-v2"
    assert index.task_at("/r/a", T0 + timedelta(hours=47, minutes=59)) == "checkout-v2"
    assert index.task_at("/r/a", T0 + timedelta(hours=49)) == "fix-1234"
    assert index.task_at("/r/a", T0 + timedelta(hours=50)) is None
    assert index.task_at("/r/b", T0 + timedelta(days=30)) == "docs"  # still running
    assert index.task_at("/r/c", T0) is None and index.task_at(None, T0) is None
    assert tasks.current("/r/b", data_dir=d) is not None and tasks.current("/r/a", data_dir=d) is None
    assert tasks.task_at("/r/a", T0 + timedelta(hours=1), data_dir=d) == "checkout-v2"


def test_damaged_lines_are_skipped_and_names_checked(tmp_path: Path) -> None:
    d = str(tmp_path)
    tasks.start("/r/a", "one", at=T0, data_dir=d)
    with open(tasks.tasks_path(d), "a") as handle:
        handle.write('{"repo": "/r/a", "ev\n\nnot json\n')
    tasks.start("/r/a", "two", at=T0 + timedelta(hours=1), data_dir=d)
    assert [(i.name, i.end) for i in tasks.intervals("/r/a", data_dir=d)] == [
        ("one", T0 + timedelta(hours=1)),
        ("two", None),
    ]
    for bad in ("", "a\nb", "x" * 201):
        with pytest.raises(ValueError, match="task name"):
            tasks.start("/r/a", bad, data_dir=d)
    with pytest.raises(ValueError, match="time zone"):
        tasks.start("/r/a", "naive", at=datetime(2026, 1, 1), data_dir=d)


def test_default_location_is_the_user_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXOPS_DATA_DIR", str(tmp_path))
    tasks.start("/r/a", "t", at=T0)
    assert (tmp_path / "tasks.jsonl").is_file()
    assert tasks.current("/r/a") is not None
