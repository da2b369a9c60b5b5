"""A method returning `self.__class__(...)` gives the receiver's own class (issue 24 item 1, session 20), as a
checker reads it (`Self`): pyasn1's `subtype` returns `self` or `self.__class__(...)`, so
`o = univ.OctetString().subtype(...)` is an OctetString and `o.clone()` its `clone`; a subclass's call gives
the subclass, as for `return self`, `type(self)(...)` and a classmethod's `cls(...)`.
Real files, a real git repository, a real index."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ctxops_code_graph import CodeIndex
from repo_fixtures import built_index
from repo_fixtures import certain_callers as _certain

FILES = {
    "a/__init__.py": "",
    "a/base.py": """class Asn1Type:
    def subtype(self, value=None, **kwargs):
        if value is None:
            if not kwargs:
                return self
        return self.__class__(value, **kwargs)

    def renamed(self):
        o = self.__class__()
        return o

    def same(self):
        return self

    def typed(self):
        return type(self)()

    @classmethod
    def make(cls):
        return cls()

    def clone(self):
        return 0

    def ping(self):
        return 1
""",
    "a/univ.py": """from a import base


class OctetString(base.Asn1Type):
    def ping(self):
        return 2


class Integer(base.Asn1Type):
    pass
""",
    "tests/__init__.py": "",
    "tests/test_univ.py": """from a import univ


def test_subtype():
    o = univ.OctetString().subtype(b"x", implicitTag=1)
    o.clone()
    o.ping()
    univ.Integer().subtype(1).ping()
    univ.OctetString().renamed().ping()
    univ.OctetString().same().ping()
    univ.OctetString().typed().ping()
    univ.OctetString.make().ping()
""",
}


@pytest.fixture(scope="module")
def ix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CodeIndex]:
    yield from built_index(tmp_path_factory.mktemp("self_class_returns") / "repo", FILES)


def test_a_self_class_call_s_result_is_the_receiver_s_class(ix: CodeIndex) -> None:
    assert _certain(ix, "python a/base.py Asn1Type.clone().") == {("tests/test_univ.py", 6)}


def test_a_subclass_s_call_gives_the_subclass(ix: CodeIndex) -> None:
    # OctetString overrides ping: its calls are OctetString's; Integer inherits the base's
    assert _certain(ix, "python a/univ.py OctetString.ping().") == {
        ("tests/test_univ.py", n) for n in (7, 9, 10, 11, 12)
    }
    assert _certain(ix, "python a/base.py Asn1Type.ping().") == {("tests/test_univ.py", 8)}
