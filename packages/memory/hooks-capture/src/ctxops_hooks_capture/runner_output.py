"""Pass/fail counts from the output of common test runners (pytest, unittest, jest, vitest, go, cargo, mocha)."""

from __future__ import annotations

from ctxops_contracts.shared import regex
from ctxops_contracts.shared.regex import compile as re_compile
from ctxops_contracts.shared.regex import lazy

TYPE_CHECKING = False  # re is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    import re

# Every Bash event asks for the test command; a runner's summary patterns are built when one is looked for.
_TEST_COMMAND = re_compile(
    r"(?:^|[\s;&|/(])(?:pytest|py\.test|tox|nox|unittest|jest|vitest|mocha|ava|tap|phpunit|rspec|ctest"
    r"|go\s+test|cargo\s+(?:test|nextest)|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test|make\s+(?:test|check)"
    r"|gradle\w*\s+test|mvn\w*\s+test|dotnet\s+test|mix\s+test|swift\s+test)(?=$|[\s;&|)])"
)

# Linear on any output: leading blanks stay on their line ([^\S\n], not \s, which would rescan a run of empty
# lines from each of them), a number is matched from its first digit ((?<!\d)), and repeats are possessive
# where a shorter take could never help.
_SPACE = r"[^\S\n]"
_PYTEST_SUMMARY = lazy(
    rf"^=*+{_SPACE}*+(?P<body>(?:\d++ \w++(?:, )?)++){_SPACE}++in{_SPACE}++[\d.]++m?s\b.*$", regex.MULTILINE
)
_PYTEST_PART = lazy(r"(?<!\d)(\d+) (passed|failed|errors?|xpassed|xfailed|skipped|deselected|warnings?)")
_UNITTEST_RAN = lazy(r"^Ran (\d+) tests? in", regex.MULTILINE)
_UNITTEST_FAILED = lazy(r"^FAILED \(([^)]*)\)", regex.MULTILINE)
_JEST = lazy(r"^Tests:\s++(?P<body>.*(?<!\d)\d+ total)", regex.MULTILINE)
_VITEST = lazy(rf"^{_SPACE}*+Tests{_SPACE}++(?P<body>(?:\d++ \w++ ?+\|?+ ?+)++)\(\d+\)", regex.MULTILINE)
_CARGO = lazy(r"test result: \w+\. (\d+) passed; (\d+) failed;")
_GO_CASE = lazy(rf"^{_SPACE}*+--- (PASS|FAIL):", regex.MULTILINE)
_GO_PACKAGE = lazy(r"^(ok|FAIL)\s+\S+", regex.MULTILINE)
_MOCHA = lazy(rf"^{_SPACE}*+(\d+) (passing|failing)\b", regex.MULTILINE)
_PASSED_COUNT = r"(?<!\d)(\d+) passed"
_FAILED_COUNT = r"(?<!\d)(\d+) failed"


def looks_like_test_command(command: str) -> bool:
    """True when ``command`` runs a test runner."""
    return bool(_TEST_COMMAND.search(command or ""))


def _count_parts(body: str, part: re.Pattern[str]) -> tuple[int, int]:
    passed = failed = 0
    for number, word in part.findall(body):
        if word in {"passed", "xpassed"}:
            passed += int(number)
        elif word in {"failed", "error", "errors"}:
            failed += int(number)
    return passed, failed


def parse_counts(output: str) -> tuple[int, int] | None:
    """(passed, failed) from a runner's summary, or None when no summary is recognised."""
    if not output:
        return None
    summaries = _PYTEST_SUMMARY.findall(output)
    if summaries:
        return _count_parts(summaries[-1], _PYTEST_PART)
    ran = _UNITTEST_RAN.findall(output)
    if ran:
        total = int(ran[-1])
        failed_parts = _UNITTEST_FAILED.findall(output)
        failed = (
            sum(int(n) for n in re_compile(r"(?:failures|errors)=(\d+)").findall(failed_parts[-1]))
            if failed_parts
            else 0
        )
        return total - failed, failed
    jest = _JEST.findall(output)
    if jest:
        body = jest[-1]
        passed = sum(int(n) for n in re_compile(_PASSED_COUNT).findall(body))
        failed = sum(int(n) for n in re_compile(_FAILED_COUNT).findall(body))
        return passed, failed
    vitest = _VITEST.findall(output)
    if vitest:
        body = vitest[-1]
        return (
            sum(int(n) for n in re_compile(_PASSED_COUNT).findall(body)),
            sum(int(n) for n in re_compile(_FAILED_COUNT).findall(body)),
        )
    cargo = _CARGO.findall(output)
    if cargo:
        return sum(int(p) for p, _ in cargo), sum(int(f) for _, f in cargo)
    cases = _GO_CASE.findall(output)
    if cases:
        return cases.count("PASS"), cases.count("FAIL")
    mocha = _MOCHA.findall(output)
    if mocha:
        counts = {word: int(n) for n, word in mocha}
        return counts.get("passing", 0), counts.get("failing", 0)
    packages = _GO_PACKAGE.findall(output)
    if packages:
        return packages.count("ok"), packages.count("FAIL")
    return None
