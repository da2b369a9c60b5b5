"""Attributes bound in any method (issue 24, session 19): each method's `self.x = value` is one binding, the
bindings joined after the sweep. At most a few different values of one attribute are kept (more give no
type), so a hostile class with thousands of methods binding one attribute, or thousands of attributes,
extracts in linear time; the graph-level answers are code-graph's tests/test_python_method_attrs.py."""

from __future__ import annotations

from cpu_timing import best_cpu_s
from ctxops_code_scan.extract import extract


def _receivers(src: str, name: str) -> list[str | None]:
    out = extract(src.encode(), "mod.py", "python")
    return [r.receiver_type for r in out.references if r.symbol_name == name]


def test_bindings_in_other_methods_join() -> None:
    src = (
        "from lib import Field, Other, make\n\n\n"
        "class T:\n"
        "    def __init__(self):\n"
        "        self.a = None\n"
        "        self.c = Field()\n"
        "        self.e = Field()\n"
        "    def setUp(self):\n"
        "        self.a = Field()\n"
        "        self.b = Field()\n"
        "        self.c = Other()\n"
        "        self.d = make()\n"
        "    def again(self):\n"
        "        self.b = Other()\n"
        "        self.d = None\n"
        "        self.e = self.e.load()\n"
        "    def use(self):\n"
        "        self.a.one()\n"
        "        self.b.two()\n"
        "        self.c.three()\n"
        "        self.d.four()\n"
        "        self.e.five()\n"
    )
    assert _receivers(src, "one") == ["=Field"]  # None in `__init__`, a Field in `setUp`
    assert _receivers(src, "two") == ["Self#b"]  # two classes: nothing the file settles (no row either)
    assert _receivers(src, "three") == ["Self#c"]  # `__init__`'s Field beside another method's Other
    assert _receivers(src, "four") == ["=make"]  # a function's result (the graph reads what it gives)
    # a chain the graph reads (lark's `self.text_lexer = self.text_lexer.load(f)`) is no other class here
    assert _receivers(src, "five") == ["=Field"]
    rows = {name: expr for owner, name, expr in extract(src.encode(), "mod.py", "python").types if owner}
    assert "b" not in rows and "c" not in rows
    assert rows["d"] == "=make"


def test_a_function_nested_in_a_method_binds_nothing() -> None:
    src = (
        "from lib import Field\n\n\n"
        "class T:\n"
        "    def setUp(self):\n"
        "        def inner(self):\n"
        "            self.a = Field()\n"
        "        inner(self)\n"
        "    def use(self):\n"
        "        self.a.one()\n"
    )
    assert _receivers(src, "one") == ["Self#a"]
    assert not [row for row in extract(src.encode(), "mod.py", "python").types if row[1] == "a"]


def _best(src: str) -> float:
    return best_cpu_s(lambda: extract(src.encode(), "mod.py", "python"))


def test_many_methods_binding_one_attribute_extract_linearly() -> None:
    def source(n: int) -> str:
        methods = "".join(f"    def m{i}(self, p):\n        self.x = p.get{i % 50}().h()\n" for i in range(n))
        return f"class T:\n{methods}    def use(self):\n        self.x.run()\n"

    # 16x the methods: linear is ~16x, quadratic ~256x
    assert _best(source(4_000)) < 64 * _best(source(250))


def test_many_attributes_extract_linearly() -> None:
    def source(n: int) -> str:
        methods = "".join(f"    def m{i}(self, p):\n        self.x{i} = p.get().h()\n" for i in range(n))
        return f"class T:\n{methods}    def use(self):\n        self.x0.run()\n"

    assert _best(source(4_000)) < 64 * _best(source(250))
