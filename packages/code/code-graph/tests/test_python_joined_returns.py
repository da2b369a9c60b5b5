"""A function whose `return`s give different classes (issue 24 item 1, session 24): construct's `Bitwise()`
returns `Transformed(...)` or `Restreamed(...)` (a `try`/`except` each binding `macro`), which pyright types
`Transformed | Restreamed`; `d = Bitwise(...); d.compile()` calls `Construct.compile`, which both inherit, so
the call is certain. Where the classes find the method in different classes (`Term.get_sql` and
`ValueWrapper.get_sql`, an override), a checker lists both: no certain answer. A class and a value the index
cannot read (`return make()` of a function of no known result) give nothing. Real files, a real index."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ctxops_code_graph import CodeIndex
from repo_fixtures import built_index
from repo_fixtures import certain_callers as _certain

FILES = {
    "c/__init__.py": "",
    "c/core.py": """class Construct:
    def compile(self):
        return self

    def get_sql(self):
        return ""


class Transformed(Construct):
    pass


class Restreamed(Construct):
    def get_sql(self):
        return "r"


class Other:
    def compile(self):
        return 1


def unknown(x):
    return x


def Bitwise(subcon):
    try:
        size = subcon.sizeof()
        macro = Transformed(size)
    except ValueError:
        macro = Restreamed(subcon)
    return macro


def Pick(x):
    if x:
        return Transformed(x)
    return Restreamed(x)


def Mixed(x):
    if x:
        return Transformed(x)
    return Other()


def Opaque(x):
    if x:
        return Transformed(x)
    return unknown(x)


def MakeOther():
    return Other()


def MakeT():
    return Transformed(1)


def Factories(x):
    if x:
        return MakeOther()
    return MakeT()


def Walrus(x):
    if x:
        macro = Transformed(x)
    elif (macro := unknown(x)):
        pass
    else:
        macro = Restreamed(x)
    return macro


def Param(macro):
    if macro:
        macro = Transformed(macro)
    else:
        macro = Restreamed(macro)
    return macro
""",
    "tests/test_core.py": """from c.core import Bitwise, Factories, Mixed, Opaque, Param, Pick, Walrus


def test_bitwise():
    d = Bitwise(1)
    d.compile()
    d.get_sql()


def test_pick():
    e = Pick(1)
    e.compile()
    Pick(2).compile()


def test_mixed():
    m = Mixed(1)
    m.compile()


def test_opaque():
    o = Opaque(1)
    o.compile()


def test_factories():
    Factories(1).compile()
    Walrus(1).compile()
    Param(1).compile()
""",
}

COMPILE = "python c/core.py Construct.compile()."


@pytest.fixture(scope="module")
def ix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CodeIndex]:
    yield from built_index(tmp_path_factory.mktemp("joined_returns") / "repo", FILES)


def test_returns_of_classes_sharing_the_method_call_it(ix: CodeIndex) -> None:
    found = _certain(ix, COMPILE)
    assert {("tests/test_core.py", 6), ("tests/test_core.py", 12), ("tests/test_core.py", 13)} <= found


def test_an_override_in_one_class_leaves_the_call_open(ix: CodeIndex) -> None:
    assert ("tests/test_core.py", 7) not in _certain(ix, "python c/core.py Construct.get_sql().")
    assert ("tests/test_core.py", 7) not in _certain(ix, "python c/core.py Restreamed.get_sql().")


def test_unrelated_classes_or_an_unread_result_give_nothing(ix: CodeIndex) -> None:
    found = _certain(ix, COMPILE)
    assert ("tests/test_core.py", 18) not in found
    assert ("tests/test_core.py", 18) not in _certain(ix, "python c/core.py Other.compile().")
    assert ("tests/test_core.py", 23) not in found


def test_factories_a_walrus_or_a_parameter_give_nothing(ix: CodeIndex) -> None:
    """Capitalised factories are functions, no class names to join; a local a walrus (or any binding other
    than `x = K(...)`) also binds, or a parameter's value, may reach the `return`."""
    for line in (27, 28, 29):
        assert ("tests/test_core.py", line) not in _certain(ix, COMPILE)
        assert ("tests/test_core.py", line) not in _certain(ix, "python c/core.py Other.compile().")
