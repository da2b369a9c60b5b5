"""Calling a value is its class's `__call__`, and a module-level read sees the binding before it (issue 24
item 1, session 21), as a checker reads both (pyparsing's shape: `__call__`, `__add__` state
`-> ParserElement`; `line1 = name_score("Rider")`, `saludo = Word("a") + ","` bound twice at module level).
Real files, a real git repository, a real index."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ctxops_code_graph import CodeIndex
from repo_fixtures import built_index
from repo_fixtures import certain_callers as _certain

FILES = {
    "pp/__init__.py": "from pp.core import ParserElement, Word, Group\n",
    "pp/core.py": """class ParserElement:
    def __call__(self, name=None) -> "ParserElement":
        return self

    def __add__(self, other) -> "ParserElement":
        return And(self, other)

    def parse_string(self, s):
        return s


class And(ParserElement):
    def __init__(self, a, b):
        self.a = a


class Word(ParserElement):
    def __init__(self, chars):
        self.chars = chars


class Group(ParserElement):
    def __init__(self, expr):
        self.expr = expr


class Suppress(ParserElement):
    pass
""",
    "tests/grammar.py": """from pp.core import Suppress, Word

LPAR, AT = map(Suppress, "(@")
comment = AT + Word("c")
""",
    "tests/test_grammar.py": """from tests import grammar as g


def test_comment():
    g.comment.parse_string("@c")
    g.LPAR.parse_string("(")
""",
    "tests/__init__.py": "",
    "tests/test_unit.py": """import pp
from pp import Word, Group


def test_called():
    name = pp.Word("a")
    name_score = pp.Group(name + Word("b"))
    line1 = name_score("Rider")
    line1.parse_string("x")


saludo = Word("a") + ","
saludo.parse_string("first")
saludo = Group(Word("a")) + ","
saludo.parse_string("second")
""",
}


@pytest.fixture(scope="module")
def ix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CodeIndex]:
    yield from built_index(tmp_path_factory.mktemp("called_values") / "repo", FILES)


def test_calling_an_instance_gives_its_call_s_result(ix: CodeIndex) -> None:
    assert ("tests/test_unit.py", 9) in _certain(ix, "python pp/core.py ParserElement.parse_string().")


def test_a_module_level_name_bound_twice_is_read_at_each_use(ix: CodeIndex) -> None:
    got = _certain(ix, "python pp/core.py ParserElement.parse_string().")
    assert {("tests/test_unit.py", 13), ("tests/test_unit.py", 15)} <= got


def test_names_unpacked_from_map_of_a_class_are_its_instances(ix: CodeIndex) -> None:
    # `LPAR, AT = map(Suppress, "(@")`; `comment = AT + Word("c")`, read from another module
    got = _certain(ix, "python pp/core.py ParserElement.parse_string().")
    assert {("tests/test_grammar.py", 5), ("tests/test_grammar.py", 6)} <= got
