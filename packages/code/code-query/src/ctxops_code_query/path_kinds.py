"""What a path holds, by convention: tests, docs and examples, configuration, or library code.

Answers rank library code first unless the query asks for the others (`cq map tests ...`).
"""

from __future__ import annotations

import re

_TEST = re.compile(
    r"(^|/)(tests?|testing|__tests__|spec|testdata)/|(^|/)(test_[^/]*|[^/]*_test)\.py$|(^|/)conftest\.py$"
    r"|_test\.go$|\.(test|spec)\.[jt]sx?$|Tests?\.java$"
)
_DOCS = re.compile(r"(^|/)(docs?|documentation|examples?|samples?|demos?|benchmarks?|bench)/|(^|/)conf\.py$")
_CONFIG = re.compile(r"(^|/)(setup\.py|noxfile\.py|fabfile\.py|manage\.py)$|\.(toml|ini|cfg|ya?ml|json)$")
_ASKS_TESTS = re.compile(r"\btests?\b|\btesting\b|\bspec\b", re.I)
_ASKS_DOCS = re.compile(r"\b(docs?|documentation|examples?|config(uration)?|settings)\b", re.I)


def is_test(path: str) -> bool:
    return bool(_TEST.search(path))


def kind(path: str) -> str:
    """``test``, ``docs`` (documentation, examples, benchmarks), ``config`` or ``code``."""
    if _TEST.search(path):
        return "test"
    if _DOCS.search(path):
        return "docs"
    if _CONFIG.search(path):
        return "config"
    return "code"


def demotion(path: str, query: str | None) -> int:
    """0 for what the query is about (library code, or tests/docs when it asks for them), else 1."""
    k = kind(path)
    if k == "code":
        return 0
    if k == "test" and query and _ASKS_TESTS.search(query):
        return 0
    if k in ("docs", "config") and query and _ASKS_DOCS.search(query):
        return 0
    return 1
