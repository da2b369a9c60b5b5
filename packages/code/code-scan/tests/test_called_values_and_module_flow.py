"""Calling a value is its class's `__call__`, and a module-level read sees the binding before it (issue 24
item 1, session 21), as a checker reads both: pyparsing's `line1 = nameScore("Rider")` with `nameScore =
pp.Group(...)` is `Group.__call__`'s result, and `saludo = Word(a) + ","` bound again further down types each
`saludo.parse_string(...)` by the assignment before it. The graph-level answers are code-graph's
tests/test_python_called_values.py."""

from __future__ import annotations

import pytest
from cpu_timing import best_cpu_s
from ctxops_code_scan.extract import extract

SRC = """import pp
from pp import Word, Group


def f(make_form):
    name = pp.Word("a")
    score = Word("b")
    group = pp.Group(name + score)
    line1 = group("Rider")
    line1.parse_string("x")
    score("s").parse_string("y")
    named = name.set_name("n")
    named("m").parse_string("z")
    F = make_form()
    F().parse_string("no")
    G = pp.Word
    G("a").parse_string("class")
    H = helper()
    H().parse_string("function result")


saludo = Word("a") + ","
saludo.parse_string("first")
saludo = Group(Word("a")) + ","
saludo.parse_string("second")
greet = Word("c")
greet("g").parse_string("called")
if True:
    saludo.parse_string("third")
for saludo in []:
    pass
saludo.parse_string("after a loop")
"""


def _receivers(src: str) -> dict[int, str | None]:
    out = extract(src.encode(), "mod.py", "python")
    return {r.line: r.receiver_type for r in out.references if r.symbol_name == "parse_string"}


def test_calling_a_local_instance_is_its_class_s_call() -> None:
    got = _receivers(SRC)
    assert got[10] == "=pp.Group#__call__()"  # `group = pp.Group(...)`; `line1 = group("Rider")`
    assert got[11] == "=Word#__call__()"  # a constructor of a capitalised class
    assert got[13] is None  # a method's result may be a class (`cls = self.get_class()`): not read


def test_what_may_be_a_class_is_not_called_as_an_instance() -> None:
    got = _receivers(SRC)
    assert got[15] is None  # a plain function's result (`F = make_form()`) may be a class
    assert got[17] is None or "__call__" not in got[17]  # a class object itself: its constructor
    assert got[19] is None  # a module function's result: may be a class


def test_a_module_level_read_sees_the_binding_before_it() -> None:
    got = _receivers(SRC)
    assert got[23] == "=Word#__add__()"
    assert got[25] == "=Group#__add__()"
    assert got[27] == "=Word#__call__()"  # a module-level value called
    assert got[29] == "=Group#__add__()"  # in a block: the binding before the `if`


def test_a_module_level_loop_binding_leaves_the_read_open() -> None:
    assert _receivers(SRC)[32] is None  # `for saludo in ...` binds it: no plain assignment reaches the read


def _best(n: int) -> float:
    body = "".join(
        f"x = Word('{i}') + 'a'\nx.parse_string('s')\ny{i} = x('n')\ny{i}.parse_string('t')\n" for i in range(n)
    )
    src = "from pp import Word\n" + body
    return best_cpu_s(lambda: extract(src.encode(), "mod.py", "python"))


def test_many_module_level_rebindings_extract_linearly() -> None:
    assert _best(4_000) < 64 * _best(250)  # 16x the statements: linear is ~16x, quadratic ~256x


MAPPED = """import pp
from pp import Suppress, Word

LCURLY, AT = map(Suppress, "{@")
comment = AT + Word("a")
comment.parse_string("x")
a, b = Word("a"), Word("b")
a.parse_string("y")


def f(make):
    LPAR, RPAR = map(pp.Suppress, "()")
    RPAR.parse_string("z")
    p, q = map(make, "ab")
    p.parse_string("a parameter's result")
    *r, s = map(Suppress, "ab")
    s.parse_string("starred")
    t, u = map(Suppress, "ab", key=1)
    t.parse_string("keyword")
    DO, AA = list(map(pp.Keyword, "DO AA".split()))
    DO.parse_string("listed")
"""


def test_names_unpacked_from_map_of_a_class_are_its_instances() -> None:
    got = _receivers(MAPPED)
    assert got[6] == "=Suppress#__add__()"  # `AT` is a Suppress (pyparsing's `LCURLY, ... = map(Suppress, ...)`)
    assert got[8] == "=Word"  # `a, b = Word(..), Word(..)` at module level, as in a function
    assert got[13] == "=pp.Suppress"
    assert got[21] == "=pp.Keyword"  # `list(map(...))`: the same items


def test_other_unpackings_from_map_are_not_read() -> None:
    got = _receivers(MAPPED)
    assert got[17] is None  # a starred target
    assert got[19] is None  # a keyword: not the builtin map's call
    assert got.get(15) is None or "__call__" not in (got.get(15) or "")  # a parameter's call: unknown


RENAMED = """class K:
    def a(s):
        return s

    def b(s, v):
        return s.__class__(v)

    def e(s, v):
        if v:
            return s
        return s.__class__(v)

    @classmethod
    def c(k):
        return k

    @staticmethod
    def d(x):
        return x

    def g(s):
        def inner(t):
            return t

        return inner(s)
"""


def _results(src: str) -> dict[str, str]:
    out = extract(src.encode(), "mod.py", "python")
    return {owner.rsplit(" ", 1)[1]: expr for owner, name, expr in out.types if owner and name is None}


def test_a_first_parameter_under_another_name_returned_is_self() -> None:
    got = _results(RENAMED)
    assert got["K.a()."] == "Self"
    assert got["K.b()."] == "Self"  # `s.__class__(v)`, as `self.__class__(v)`
    assert got["K.e()."] == "Self"


def test_a_class_object_or_a_plain_parameter_returned_is_not_self() -> None:
    got = _results(RENAMED)
    assert got.get("K.c().") != "Self"  # a classmethod's first parameter is the class object
    assert "K.d()." not in got  # a staticmethod's is a plain parameter
    assert "K.g().inner()." not in got  # a nested function's first parameter is no instance


def _best_returns(n: int) -> float:
    body = "".join(
        f"    def m{i}(s, v):\n        if v:\n            return s\n        return s.__class__(v)\n\n" for i in range(n)
    )
    return best_cpu_s(lambda: extract(("class K:\n" + body).encode(), "mod.py", "python"))


def test_many_renamed_self_returns_extract_linearly() -> None:
    assert _best_returns(4_000) < 64 * _best_returns(250)


ROWS = """import pp


def f():
    for expr, delim in [
        (pp.python_quoted_string, '\"\"\"'),
        (pp.python_quoted_string, "'''"),
    ]:
        expr.parse_string(delim)
    for a, b in [(pp.Word("a"), 1), (pp.Literal("b"), 2)]:
        a.parse_string("x")
    for c, d in ((pp.Word("a"), 1),):
        c.parse_string("y")
    for g, h in [(pp.Word("a"), 1), (pp.Word("a"), 2, 3)]:
        g.parse_string("z")
"""


def test_a_for_over_literal_rows_binds_each_position_s_one_value() -> None:
    got = _receivers(ROWS)
    assert got[9] == "^pp.python_quoted_string"  # the same value in every row
    assert got[13] == "=pp.Word"


def test_rows_that_differ_bind_nothing_certain() -> None:
    got = _receivers(ROWS)
    assert got[11] is None  # a Word in one row, a Literal in the other
    assert got[15] is None  # rows of different lengths


def _best_rows(n: int) -> float:
    rows = "".join(f"        (pp.Word('{i}'), {i}),\n" for i in range(n))
    src = f"import pp\n\n\ndef f():\n    for a, b in [\n{rows}    ]:\n        a.parse_string('x')\n"
    return best_cpu_s(lambda: extract(src.encode(), "mod.py", "python"))


def test_many_literal_rows_extract_linearly() -> None:
    assert _best_rows(4_000) < 64 * _best_rows(250)


UNPACKINGS = {  # one pattern of n names: each name's value read once per pattern, not by a walk over all n
    "map": lambda names, n: f"{names} = map(K, 'x')\n",
    "map in a function": lambda names, n: f"def f():\n    {names} = list(map(K, 'x'))\n",
    "constructors": lambda names, n: f"{names} = {', '.join('K()' for _ in range(n))}\n",
    "constructors in a function": lambda names, n: f"def f():\n    {names} = {', '.join('K()' for _ in range(n))}\n",
    "a call": lambda names, n: f"{names} = f()\n",
}


@pytest.mark.parametrize("shape", sorted(UNPACKINGS))
def test_one_long_unpacking_extracts_linearly(shape: str) -> None:
    # (quadratic before: 8,000 names unpacked from `map(K, ...)` took 11 s, from 8,000 constructors 29 s)
    def best(n: int) -> float:
        src = "class K:\n    pass\n\n\n" + UNPACKINGS[shape](", ".join(f"a{i}" for i in range(n)), n)
        return best_cpu_s(lambda: extract(src.encode(), "mod.py", "python"))

    assert best(4_000) < 64 * best(250)


OTHERS = """import functools
from pp import Word, Charset

_alias = Word
KeysView = _alias("k")
KeysView.parse_string("an alias of a class: its constructor")
USASCII = Charset("us-ascii")
USASCII.parse_string("a plain constructor")


@functools.lru_cache()
def make():
    return Word("m")


make().parse_string("decorated: the function's own result")
"""


def test_other_called_module_values_read_as_before() -> None:
    got = _receivers(OTHERS)
    # calling an alias of a class: its constructor (the graph's alias rows; `?`: the argument's class)
    assert (got[6] or "").partition("?")[0] == "=_alias"
    assert got[8] == "=Charset"
    assert got[16] == "=make"  # a decorated function: not its decorator's `__call__`
