"""An augmented assignment to an attribute (`self._wheres &= criterion`, `self.n += 1`, in any method) is one of
its bindings: it rebinds the attribute to the operator's result, which the file does not state, so the attribute
has no type unless one is declared (`self.x: K`, a class body's `x: K`), as a checker joins the bindings
(pypika's `_on_conflict_wheres`: pyright reads `Criterion | ComplexCriterion`). A plain local's `x += y` is
already read through the operator's dunder (`K#__iadd__()`)."""

from __future__ import annotations

from ctxops_code_scan.extract import extract


def _receivers(src: str, name: str) -> list[str | None]:
    out = extract(src.encode(), "mod.py", "python")
    return [r.receiver_type for r in out.references if r.symbol_name == name]


def _rows(src: str) -> dict[str, str]:
    return {name: expr for owner, name, expr in extract(src.encode(), "mod.py", "python").types if owner}


SRC = (
    "from lib import Criterion, K\n\n\n"
    "class Q:\n"
    "    v: K\n"
    "    def __init__(self):\n"
    "        self.w = Criterion()\n"
    "        self.w &= Criterion()\n"
    "        self.a = K()\n"
    "        self.s: K = K()\n"
    "        self.s += 1\n"
    "        self.v = K()\n"
    "        self.c = K()\n"
    "    def add(self, c):\n"
    "        self.a += c\n"
    "        self.v += c\n"
    "        self.t = K()\n"
    "    def more(self, c):\n"
    "        self.t |= c\n"
    "    def use(self):\n"
    "        self.w.one()\n"
    "        self.a.two()\n"
    "        self.s.three()\n"
    "        self.v.four()\n"
    "        self.t.five()\n"
    "        self.c.six()\n"
)


def test_an_augmented_binding_leaves_no_type() -> None:
    assert _receivers(SRC, "one") == ["Self#w"]  # `&=` in `__init__` itself
    assert _receivers(SRC, "two") == ["Self#a"]  # `+=` in another method
    assert _receivers(SRC, "five") == ["Self#t"]  # both bindings in other methods
    rows = _rows(SRC)
    assert "w" not in rows and "a" not in rows and "t" not in rows
    assert _receivers(SRC, "six") == ["=K"]  # (an attribute no operator rebinds keeps its type)


def test_a_declared_type_wins() -> None:
    assert _receivers(SRC, "three") == ["K"]  # `self.s: K` in `__init__`
    assert _receivers(SRC, "four") == ["K"]  # a class body's `v: K`


def test_a_local_goes_through_the_dunder() -> None:
    src = "from lib import K\n\n\ndef f(y):\n    x = K()\n    x += y\n    x.m()\n"
    assert _receivers(src, "m") == ["=K#__iadd__()"]
