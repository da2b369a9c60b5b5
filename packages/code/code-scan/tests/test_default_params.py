"""An unannotated parameter with a default value has the default's type, as a checker reads it: lark's
`def __init__(self, prioritizer=ForestSumVisitor())`, then `self.prioritizer.visit(root)`. Only a call of a
capitalised name (a class by convention; the graph checks it is one); `None`, a literal or any other default
gives nothing, and an annotation wins."""

from __future__ import annotations

from ctxops_code_scan.extract import extract


def _receivers(src: str, name: str) -> list[str | None]:
    out = extract(src.encode(), "mod.py", "python")
    return [r.receiver_type for r in out.references if r.symbol_name == name]


SRC = (
    "from lib import ForestSumVisitor, Other, make\n\n\n"
    "class S:\n"
    "    def __init__(self, prioritizer=ForestSumVisitor(), none=None, lit=3, made=make(), stated: Other = Other(),\n"
    "                 *, kw=mod.Visitor()):\n"
    "        self.prioritizer = prioritizer\n"
    "        self.none = none\n"
    "        self.lit = lit\n"
    "        self.made = made\n"
    "        self.stated = stated\n"
    "        self.kw = kw\n"
    "    def run(self, root):\n"
    "        self.prioritizer.visit(root)\n"
    "        self.none.a()\n"
    "        self.lit.b()\n"
    "        self.made.c()\n"
    "        self.stated.d()\n"
    "        self.kw.e()\n\n\n"
    "def g(p=ForestSumVisitor(), q=ForestSumVisitor):\n"
    "    p.m()\n"
    "    q.n()\n\n\n"
    "def h(p=ForestSumVisitor()):\n"
    "    p = make()\n"
    "    p.o()\n"
)


def test_a_default_call_of_a_class_types_the_parameter() -> None:
    assert _receivers(SRC, "visit") == ["ForestSumVisitor"]  # through the attribute
    assert _receivers(SRC, "m") == ["ForestSumVisitor"]  # read directly
    assert _receivers(SRC, "e") == ["mod.Visitor"]  # keyword-only, dotted


def test_other_defaults_give_nothing() -> None:
    assert _receivers(SRC, "a") == ["Self#none"]
    assert _receivers(SRC, "b") == ["Self#lit"]
    assert _receivers(SRC, "c") == ["Self#made"]
    assert _receivers(SRC, "n") == [None]  # (a class object as default: not an instance)
    assert _receivers(SRC, "o") == ["=make"]  # (reassigned: the assignment's value)


def test_an_annotation_wins() -> None:
    assert _receivers(SRC, "d") == ["Other"]
