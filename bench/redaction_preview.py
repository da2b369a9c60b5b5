"""A corpus reader's own listing (`python bench/redaction_<corpus>.py`): its samples, printed before any run of
the redactor, so what a held-out reader reads can be checked without measuring anything."""

from __future__ import annotations

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
