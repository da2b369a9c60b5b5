"""Two bindings a checker reads and the graph did not (issue 24, session 19): an augmented assignment to an
attribute (pypika's `self._on_conflict_wheres &= criterion`, `Criterion | ComplexCriterion` to pyright) leaves
the attribute no one class, and an unannotated parameter with a default call of a class (lark's
`prioritizer=ForestSumVisitor()`) is that class. Real files, a real git repository, a real index."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ctxops_code_graph import CodeIndex
from repo_fixtures import built_index
from repo_fixtures import certain_callers as _certain

FILES = {
    "q/__init__.py": "",
    "q/terms.py": """class Criterion:
    def __and__(self, other):
        return ComplexCriterion()

    def get_sql(self):
        return ""


class ComplexCriterion(Criterion):
    def get_sql(self):
        return "c"


class ForestSumVisitor:
    def visit(self, root):
        return root
""",
    "q/query.py": """from q.terms import Criterion, ForestSumVisitor


class Builder:
    def __init__(self):
        self._wheres = Criterion()
        self._plain = Criterion()

    def where(self, criterion):
        self._wheres &= criterion

    def sql(self):
        self._wheres.get_sql()
        self._plain.get_sql()


class Forest:
    def __init__(self, prioritizer=ForestSumVisitor(), other=None):
        self.prioritizer = prioritizer
        self.other = other

    def run(self, root):
        self.prioritizer.visit(root)
        self.other.visit(root)


def walk(v=ForestSumVisitor()):
    v.visit(None)
""",
}


@pytest.fixture(scope="module")
def ix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CodeIndex]:
    yield from built_index(tmp_path_factory.mktemp("augmented_defaults") / "repo", FILES)


def test_an_augmented_attribute_is_no_one_class(ix: CodeIndex) -> None:
    assert ("q/query.py", 13) not in _certain(ix, "python q/terms.py Criterion.get_sql().")
    assert ("q/query.py", 14) in _certain(ix, "python q/terms.py Criterion.get_sql().")


def test_a_parameter_typed_by_its_default(ix: CodeIndex) -> None:
    assert _certain(ix, "python q/terms.py ForestSumVisitor.visit().") == {("q/query.py", 23), ("q/query.py", 28)}
