"""The value of an unannotated function, inferred from its returns as a checker joins them (issue 24 item 1):
construct's factory functions (`def PaddedString(...): macro = StringEncoded(...); ...; return macro`), a
method's (`self.make().m()`) and a class defined inside the function (python-dateutil's `def __get_gettz():
class GettzFunc: ...; return GettzFunc()`). Every `return` of one class (None dropped) gives that class; two
classes, a bare `return`, a generator, a recursive chain or a return that cannot be typed give nothing. A
stated `-> X` wins. Real files, a real git repository, a real index."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ctxops_code_graph import CodeIndex
from repo_fixtures import built_index
from repo_fixtures import certain_callers as _certain

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": """class Construct(object):
    def build(self, obj):
        return obj


class Subconstruct(Construct):
    def __init__(self, subcon):
        self.subcon = subcon


class Adapter(Subconstruct):
    pass


class StringEncoded(Adapter):
    def __init__(self, subcon, encoding):
        super().__init__(subcon)
        self.encoding = encoding


class FixedSized(Subconstruct):
    def __init__(self, length, subcon):
        super().__init__(subcon)


class Select(Construct):
    def __init__(self, *subcons):
        self.subcons = subcons


class Other(Construct):
    def build(self, obj):
        return obj


def PaddedString(length, encoding):
    macro = StringEncoded(FixedSized(length, None), encoding)

    def _emitfulltype(ksy, bitwise):
        return dict(size=length, type="strz", encoding=encoding)

    macro._emitfulltype = _emitfulltype
    return macro


def Optional(subcon):
    return Select(subcon, None)


def Maybe(subcon):
    if subcon is None:
        return None
    return Select(subcon)


def Either(flag):
    if flag:
        return Select()
    return Other()


def Bare(flag):
    if flag:
        return
    return


def Generated(n):
    yield Select(n)
    return Select(n)


def Ping(n):
    if n:
        return Pong(n - 1)
    return Select()


def Pong(n):
    return Ping(n)


def Untyped(make):
    return make()


def Stated(n) -> Other:
    return Select(n)


def Outer(n):
    return Optional(n)


class Factory:
    def make(self):
        return Select()

    def use(self):
        self.make().build(1)
""",
    "pkg/tz.py": """def __get_gettz():
    class GettzFunc(object):
        def __init__(self):
            self.size = 8

        def __call__(self, name):
            return name

        def set_cache_size(self, size):
            self.size = size

    return GettzFunc()


gettz = __get_gettz()
""",
    "tests/test_use.py": """from pkg import tz
from pkg.core import *


def test_padded():
    d = PaddedString(5, "utf8")
    d.build(u"x")


def test_direct():
    Optional(1).build(2)
    Maybe(1).build(2)
    Outer(1).build(2)


def test_not_certain():
    Either(1).build(2)
    Bare(1).build(2)
    Generated(1).build(2)
    Ping(1).build(2)
    Untyped(Select).build(2)


def test_stated():
    Stated(1).build(2)


def test_nested_class():
    tz.gettz.set_cache_size(4)
""",
}


@pytest.fixture(scope="module")
def ix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CodeIndex]:
    yield from built_index(tmp_path_factory.mktemp("returns") / "repo", FILES)


def test_a_factory_function_is_the_class_it_returns(ix: CodeIndex) -> None:
    assert _certain(ix, "python pkg/core.py Construct.build().") == {
        ("tests/test_use.py", 7),  # d = PaddedString(...): `macro = StringEncoded(...)`, returned (via the MRO)
        ("tests/test_use.py", 11),  # `return Select(...)` directly
        ("tests/test_use.py", 12),  # `return None` beside `return Select(...)`: None dropped
        ("tests/test_use.py", 13),  # the result of a function returning another's result
        ("pkg/core.py", 100),  # a method's: `self.make().build(1)`
    }  # not: two classes, bare returns, a generator, a recursive pair, a called parameter (lines 17-21)


def test_a_stated_result_wins(ix: CodeIndex) -> None:
    assert _certain(ix, "python pkg/core.py Other.build().") == {("tests/test_use.py", 25)}


def test_a_class_defined_inside_the_function_it_returns(ix: CodeIndex) -> None:
    assert _certain(ix, "python pkg/tz.py __get_gettz.GettzFunc.set_cache_size().") == {
        ("tests/test_use.py", 29),
    }
