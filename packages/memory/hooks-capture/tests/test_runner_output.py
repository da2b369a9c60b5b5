"""Pass/fail counts from common test runners' summaries."""

from __future__ import annotations

import pytest
from ctxops_hooks_capture.runner_output import looks_like_test_command, parse_counts


@pytest.mark.parametrize(
    ("output", "counts"),
    [
        ("....F\n=========== 1 failed, 4 passed, 2 skipped in 0.31s ===========", (4, 1)),
        ("5 passed in 0.02s", (5, 0)),
        ("==== 2 failed, 3 passed, 1 error in 1.20s ====", (3, 3)),
        ("Ran 7 tests in 0.004s\n\nFAILED (failures=2, errors=1)", (4, 3)),
        ("Ran 3 tests in 0.001s\n\nOK", (3, 0)),
        ("Tests:       2 failed, 10 passed, 12 total", (10, 2)),
        (" Test Files  1 failed (1)\n      Tests  1 failed | 3 passed (4)", (3, 1)),
        ("test result: ok. 12 passed; 0 failed; 0 ignored", (12, 0)),
        ("--- PASS: TestA (0.00s)\n--- FAIL: TestB (0.00s)\nFAIL\tpkg\t0.01s", (1, 1)),
        ("ok  \tgithub.com/x/worker\t0.01s\nok  \tgithub.com/x/api\t0.02s", (2, 0)),
        ("  4 passing (20ms)\n  1 failing", (4, 1)),
        ("nothing to see here", None),
    ],
)
def test_counts(output: str, counts: tuple[int, int] | None) -> None:
    assert parse_counts(output) == counts


@pytest.mark.parametrize(
    ("command", "is_test"),
    [
        ("pytest -q", True),
        ("uv run pytest tests/test_x.py", True),
        ("python -m pytest", True),
        ("npm test", True),
        ("go test ./...", True),
        ("cargo test --all", True),
        ("cd web && pnpm run test", True),
        ("git status", False),
        ("cat pytest.ini", False),
        ("echo testing", False),
    ],
)
def test_test_commands(command: str, is_test: bool) -> None:
    assert looks_like_test_command(command) is is_test
