"""`self.__class__(...)` is a new instance of the receiver's own class (issue 24 item 1, session 20), as a
checker reads it (`Self`, like `type(self)(...)`, `cls(...)` in a classmethod and `return self`): pyasn1's
`subtype` returns `self` or `self.__class__(...)`, so `univ.OctetString().subtype(...)` is an OctetString.
The graph-level answers are code-graph's tests/test_python_self_class_returns.py."""

from __future__ import annotations

from cpu_timing import best_cpu_s
from ctxops_code_scan.extract import extract

SRC = """class K:
    def a(self):
        return self

    def b(self, v):
        return self.__class__(v)

    def c(self, v):
        return type(self)(v)

    @classmethod
    def d(cls, v):
        return cls(v)

    def e(self, v):
        if v:
            return self
        return self.__class__(v)

    def f(self, v):
        x = self.__class__(v)
        return x

    def g(self):
        self.__class__().a()
        o = self.__class__()
        o.a()

    @classmethod
    def h(cls):
        return cls.__class__()

    def i(self):
        return self.__class__.__name__

    def j(self):
        return self.other.__class__()


def plain(self):
    return self.__class__()
"""


def _results(src: str) -> dict[str, str]:
    out = extract(src.encode(), "mod.py", "python")
    return {owner.rsplit(" ", 1)[1]: expr for owner, name, expr in out.types if owner and name is None}


def test_a_method_returning_self_class_call_gives_self() -> None:
    got = _results(SRC)
    for name in ("a", "b", "c", "d", "e", "f"):
        assert got[f"K.{name}()."] == "Self", name  # `e`: `return self` beside `self.__class__(v)` agree


def test_a_self_class_call_types_its_receiver() -> None:
    out = extract(SRC.encode(), "mod.py", "python")
    assert [r.receiver_type for r in out.references if r.symbol_name == "a"] == ["Self", "Self"]


def test_other_class_attributes_are_not_self() -> None:
    got = _results(SRC)
    assert got.get("K.h().") != "Self"  # `cls.__class__` is the metaclass, not the class
    assert got.get("K.i().") != "Self"  # the class's name, no instance
    assert got.get("K.j().") != "Self"  # another object's class
    assert "plain()." not in got  # no class around: no `Self`


def _best(n: int) -> float:
    body = "".join(
        f"    def m{i}(self, v):\n        if v:\n            return self\n        return self.__class__(v)\n\n"
        for i in range(n)
    )
    src = "class K:\n" + body
    return best_cpu_s(lambda: extract(src.encode(), "mod.py", "python"))


def test_many_self_class_returns_extract_linearly() -> None:
    assert _best(4_000) < 64 * _best(250)  # 16x the methods: linear is ~16x, quadratic ~256x
