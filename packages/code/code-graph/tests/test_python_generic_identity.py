"""A generic identity (issue 24 item 1, session 22): `def replaced_by_pep8(name, fn: C) -> C` with C a TypeVar,
so `countedArray = replaced_by_pep8("countedArray", counted_array)` is counted_array for a checker, and calling
countedArray calls it (pyparsing's pep8 aliases, at module level and in a class body). Real files, a real git
repository, a real index."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ctxops_code_graph import CodeIndex
from repo_fixtures import built_index
from repo_fixtures import certain_callers as _certain

FILES = {
    "pp/__init__.py": "from pp.helpers import *\nfrom pp.core import ParserElement\n",
    "pp/util.py": """from typing import Callable, TypeVar

C = TypeVar("C", bound=Callable)


def replaced_by_pep8(compat_name: str, fn: C) -> C:
    return fn


def wrapped(compat_name: str, fn: C) -> Callable:
    return fn


def both(a: C, b: C) -> C:
    return a
""",
    "pp/helpers.py": """from pp.util import replaced_by_pep8, wrapped, both


from pp.core import ParserElement


def counted_array(expr) -> ParserElement:
    return expr


def one_of(strs):
    return strs


def other(x):
    return x


countedArray = replaced_by_pep8("countedArray", counted_array)
oneOf = wrapped("oneOf", one_of)
eitherOf = both(one_of, other)
""",
    "pp/core.py": """from pp.util import replaced_by_pep8


class ParserElement:
    def parse_string(self, s):
        return s

    parseString = replaced_by_pep8("parseString", parse_string)
""",
    "tests/__init__.py": "",
    "tests/test_pep8.py": """import pp
from pp.helpers import countedArray


def test_names():
    pp.countedArray("x")
    countedArray("y")
    pp.oneOf("a b")
    pp.eitherOf("c")
    pp.ParserElement().parseString("z")
    expr = countedArray(pp.ParserElement())
    expr.parse_string("2 ab")
""",
}


@pytest.fixture(scope="module")
def ix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CodeIndex]:
    yield from built_index(tmp_path_factory.mktemp("generic_identity") / "repo", FILES)


def test_a_generic_identity_s_result_is_its_argument(ix: CodeIndex) -> None:
    got = _certain(ix, "python pp/helpers.py counted_array().")
    assert {("tests/test_pep8.py", 6), ("tests/test_pep8.py", 7)} <= got


def test_in_a_class_body_it_is_the_method_passed(ix: CodeIndex) -> None:
    assert ("tests/test_pep8.py", 10) in _certain(ix, "python pp/core.py ParserElement.parse_string().")


def test_a_result_not_exactly_the_type_variable_is_no_identity(ix: CodeIndex) -> None:
    # `-> Callable`: what the function makes, not its argument; `both(a: C, b: C)`: C is the join
    assert ("tests/test_pep8.py", 8) not in _certain(ix, "python pp/helpers.py one_of().")
    assert ("tests/test_pep8.py", 9) not in _certain(ix, "python pp/helpers.py one_of().")
    assert ("tests/test_pep8.py", 9) not in _certain(ix, "python pp/helpers.py other().")


def test_calling_it_gives_the_argument_s_result(ix: CodeIndex) -> None:
    # `expr = countedArray(...)`: counted_array's stated result, a ParserElement
    assert ("tests/test_pep8.py", 12) in _certain(ix, "python pp/core.py ParserElement.parse_string().")
