"""Two bindings a checker reads and the graph did not (issue 24, session 19): an augmented assignment to an
attribute (pypika's `self._on_conflict_wheres &= criterion`, `Criterion | ComplexCriterion` to pyright) leaves
the attribute no one class, and an unannotated parameter with a default call of a class (lark's
`prioritizer=ForestSumVisitor()`) is that class; a nested function's parameter defaulting to a name of the
function around it (cattrs' `def hook(val, _c=converter)`) is that name's type there (session 24). Real files,
a real git repository, a real index."""

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
    "q/hooks.py": """from q.terms import ForestSumVisitor

shared = None


def make(converter: ForestSumVisitor, cl):
    def hook(val, _c=converter, _cl=cl):
        return _c.visit(val)

    def same(val, converter=converter):
        return converter.visit(val)

    def unknown(val, s=shared):
        return s.visit(val)

    return hook, same, unknown
""",
}


@pytest.fixture(scope="module")
def ix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CodeIndex]:
    yield from built_index(tmp_path_factory.mktemp("augmented_defaults") / "repo", FILES)


def test_an_augmented_attribute_is_no_one_class(ix: CodeIndex) -> None:
    assert ("q/query.py", 13) not in _certain(ix, "python q/terms.py Criterion.get_sql().")
    assert ("q/query.py", 14) in _certain(ix, "python q/terms.py Criterion.get_sql().")


def test_a_parameter_typed_by_its_default(ix: CodeIndex) -> None:
    found = _certain(ix, "python q/terms.py ForestSumVisitor.visit().")
    assert {site for site in found if site[0] == "q/query.py"} == {("q/query.py", 23), ("q/query.py", 28)}


def test_a_nested_parameter_defaulting_to_an_outer_name(ix: CodeIndex) -> None:
    """cattrs' `def struct_hook(val, _, _c=converter): ... _c.structure(...)` inside a function taking
    `converter: BaseConverter`: the default is read where the def is, in the function around it (as a closure's
    read of `converter` is), for `converter=converter` too. A module-level name bound to no class stays untyped."""
    found = _certain(ix, "python q/terms.py ForestSumVisitor.visit().")
    assert {("q/hooks.py", 8), ("q/hooks.py", 11)} <= found
    assert ("q/hooks.py", 14) not in found
