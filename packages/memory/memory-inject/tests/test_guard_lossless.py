"""Deliverable 5: every failing test id and every error location of real failing runs (tests/runs/, made by
make_runs.py from examples/order-service) survives summarization, checked against the runner's own
machine-readable output."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from ctxops_memory_inject.guard.classify import classify
from ctxops_memory_inject.guard.summarize import summarize

RUNS = Path(__file__).parent / "runs"


def summary_of(name: str) -> tuple[str, str]:
    command = (RUNS / f"{name}.cmd").read_text(encoding="utf-8").strip()
    text = (RUNS / f"{name}.out").read_text(encoding="utf-8")
    family, kind = classify(command)
    return text, "\n".join(summarize(kind, family, text))


def rel(path: str, base: str = "") -> str:
    tail = path.split("/corpus/", 1)[-1]
    return tail[len(base) :] if base and tail.startswith(base) else tail


@pytest.mark.parametrize("name", ["pytest-q", "pytest-v"])
def test_pytest_failing_ids_kept(name: str) -> None:
    text, summary = summary_of(name)
    failing = []
    for case in ET.parse(RUNS / f"{name}.junit.xml").getroot().iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            path = case.attrib["classname"].replace(".", "/") + ".py"
            failing.append(f"{path}::{case.attrib['name']}")
    assert len(failing) == 21
    missing = [test_id for test_id in failing if test_id not in summary]
    assert not missing, missing
    assert "21 failed, 42 passed" in summary
    assert len(summary) < 0.6 * len(text)
    assert "PASSED" not in summary


@pytest.mark.parametrize("name", ["gotest", "gotest-v"])
def test_go_failing_tests_and_locations_kept(name: str) -> None:
    _, summary = summary_of(name)
    failing, locations = set(), set()
    for line in (RUNS / "gotest.gotest.jsonl").read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        if event.get("Action") == "fail" and event.get("Test"):
            failing.add(event["Test"])
        if event.get("Action") == "output":
            found = re.search(r"(\w+_test\.go:\d+)", event.get("Output", ""))
            if found and event.get("Test"):
                locations.add(found.group(1))
    assert failing and locations
    assert {t for t in failing if f"--- FAIL: {t}" not in summary} == set()
    assert {loc for loc in locations if loc not in summary} == set()
    assert "FAIL\texample.com/orderservice/worker/internal/timeout" in summary


def test_go_json_output_itself_summarized() -> None:
    text = (RUNS / "gotest.gotest.jsonl").read_text(encoding="utf-8")
    summary = "\n".join(summarize("test", "go-test", text))
    for line in text.splitlines():
        event = json.loads(line)
        if event.get("Action") == "fail" and event.get("Test"):
            assert f"--- FAIL: {event['Test']}" in summary
    assert len(summary) < 0.2 * len(text)


@pytest.mark.parametrize("name", ["tsc", "tsc-pretty"])
def test_tsc_locations_kept(name: str) -> None:
    _, summary = summary_of(name)
    expected = re.findall(
        r"^(\S+)\((\d+),(\d+)\): error (TS\d+)", (RUNS / "tsc.tsc.txt").read_text(encoding="utf-8"), re.M
    )
    assert len(expected) >= 8
    for path, line, col, code in expected:
        assert f"{path}({line},{col})" in summary or f"{path}:{line}:{col}" in summary, (path, line, col)
        assert code in summary


def test_eslint_locations_kept() -> None:
    _, summary = summary_of("eslint")
    report = json.loads((RUNS / "eslint.eslint.json").read_text(encoding="utf-8"))
    wanted = [f"{item['filePath']}:{m['line']}:{m['column']}" for item in report for m in item["messages"]]
    assert len(wanted) > 40
    assert [w for w in wanted if w not in summary] == []


@pytest.mark.parametrize("name", ["ruff", "ruff-concise"])
def test_ruff_locations_kept(name: str) -> None:
    text, summary = summary_of(name)
    report = json.loads((RUNS / "ruff.ruff.json").read_text(encoding="utf-8"))
    wanted = [f"{rel(d['filename'])}:{d['location']['row']}:{d['location']['column']}" for d in report]
    assert len(wanted) > 100
    assert [w for w in wanted if w not in summary] == []
    codes = {d["code"] for d in report}
    assert {c for c in codes if c not in summary} == set()
    assert len(summary) < 0.5 * len(text)


def test_mypy_locations_kept() -> None:
    _, summary = summary_of("mypy")
    wanted = []
    for line in (RUNS / "mypy.mypy.jsonl").read_text(encoding="utf-8").splitlines():
        diag = json.loads(line)
        if diag["severity"] == "error":
            wanted.append(f"{diag['file']}:{diag['line']}")
    assert len(wanted) > 30
    assert [w for w in wanted if not re.search(re.escape(w) + r"(?!\d)", summary)] == []
    assert "Found " in summary


def test_vitest_failing_tests_and_locations_kept() -> None:
    _, summary = summary_of("vitest")
    report = json.loads((RUNS / "vitest.vitest.json").read_text(encoding="utf-8"))
    failing, locations = [], set()
    for suite in report["testResults"]:
        for case in suite["assertionResults"]:
            if case["status"] == "failed":
                failing.append((rel(suite["name"], "web-vitest/"), case["fullName"]))
                for message in case.get("failureMessages", []):
                    locations.update(re.findall(r"(\w+\.test\.tsx?:\d+)", message))
    assert len(failing) == report["numFailedTests"] == 2
    assert [f for f in failing if f"{f[0]} > {f[1]}" not in summary] == []
    assert locations and {loc for loc in locations if loc not in summary} == set()
    assert "2 failed | 10 passed" in summary


def test_jest_failing_tests_and_locations_kept() -> None:
    text, summary = summary_of("jest")
    report = json.loads((RUNS / "jest.jest.json").read_text(encoding="utf-8"))
    failing, locations = [], set()
    for suite in report["testResults"]:
        for case in suite["assertionResults"]:
            if case["status"] == "failed":
                failing.append((rel(suite["name"], "web-jest/"), case["fullName"]))
                for message in case["failureMessages"]:
                    locations.update(re.findall(r"(src/[\w/]+\.test\.tsx?:\d+:\d+)", message))
    assert len(failing) == report["numFailedTests"] == 2
    for path, name in failing:  # the suite's FAIL line, then the test's ● block
        assert f"FAIL {path}" in summary and f"● {name}" in summary, (path, name)
    assert len(locations) == 2 and {loc for loc in locations if loc not in summary} == set()
    assert "Tests:       2 failed, 10 passed, 12 total" in summary
    assert "✓ quantities merge and are capped" not in summary  # passing lines folded
    assert len(summary) < len(text)


def test_pytest_short_reason_dropped_only_where_its_block_shows_it() -> None:
    text, summary = summary_of("pytest-q")
    reasons = re.findall(r"^FAILED (\S+) - (.*)$", text, re.M)
    assert len(reasons) > 10
    for test_id, reason in reasons:
        name = test_id.split("::", 1)[1].replace("::", ".")
        assert f"FAILED {test_id}\n" in summary + "\n"
        block = summary.split(f"___ {name}", 1)[1].split("\n___ ", 1)[0]
        first_e = reason.rstrip(".").removesuffix("...")
        # the block shows the same error itself or names the failure whose error it repeats
        assert "same error as" in block.splitlines()[0] or first_e in block, test_id
