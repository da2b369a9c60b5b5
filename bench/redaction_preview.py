"""A corpus reader's own listing (`python bench/redaction_<corpus>.py`): its samples, printed before any run of
the redactor, so what a held-out reader reads can be checked without measuring anything."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class PreviewSample:
    source: str
    fmt: str
    text: str
    secrets: list[str] = field(default_factory=list)


def preview(read: Callable[[Any], tuple[list[Any], list[str]]]) -> None:
    got, left = read(PreviewSample)
    for s in got:
        print(s.fmt, "SECRET" if s.secrets else "LOOK", repr(s.text)[:110], s.secrets)
    print(len(got), "samples;", sum(bool(s.secrets) for s in got), "secrets; left out:", left)


# Code corpora's readers (Bearer's rules, semgrep-rules' language rules): a string literal in double, single or
# back quotes, and a statement's lines while its brackets are open.
CODE_LITERAL = re.compile(r"\"((?:[^\"\\\n]|\\.)*)\"|'((?:[^'\\\n]|\\.)*)'|`([^`\n]*)`")


def code_literals(text: str) -> list[str]:
    return [next(g for g in m.groups() if g is not None) for m in CODE_LITERAL.finditer(text)]


def code_statement(lines: list[str], start: int, max_lines: int) -> tuple[int, int]:
    """[start, end) of the statement from ``start``: further lines while its brackets are open."""
    depth, end = 0, start
    while end < len(lines) and end - start < max_lines:
        bare = CODE_LITERAL.sub("", lines[end])
        depth += sum(bare.count(c) for c in "([{") - sum(bare.count(c) for c in ")]}")
        end += 1
        if depth <= 0:
            break
    return start, end
