"""Inheritance through a subscripted generic base (`class Float(Number[float])`) is certain, as a checker reads it."""

from __future__ import annotations

from pathlib import Path

from ctxops_code_query.graph_backend import build_index
from ctxops_code_query.service import Request, execute

FIELDS = """import typing


class Field:
    def deserialize(self, value):
        return value


class Number(Field, typing.Generic[int]):
    pass


class Float(Number[float]):
    def load(self, v):
        return self.deserialize(v)
"""
USE = """from pkg import fields
from pkg.fields import Float


def run(v):
    f = Float()
    return f.deserialize(v)


def run2(v):
    g = fields.Float()
    return g.deserialize(v)
"""


def test_methods_reached_through_a_subscripted_generic_base_are_certain_callers(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "fields.py").write_text(FIELDS)
    (root / "pkg" / "use.py").write_text(USE)
    build_index(root)
    outcome = execute(root, Request(command="callers", params={"name": "Field.deserialize"}, use_cache=False))
    hits = outcome.rendered.result.hits
    assert {(h.path, h.line, h.confidence) for h in hits} == {
        ("pkg/fields.py", 15, "exact"),
        ("pkg/use.py", 7, "import-resolved"),
        ("pkg/use.py", 12, "import-resolved"),
    }, outcome.rendered.text
