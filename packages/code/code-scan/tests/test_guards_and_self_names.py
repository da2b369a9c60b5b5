"""Two readings a checker makes (issue 24, session 20): a guard `if not isinstance(x, K): raise ...` narrows
`x` to K after it (pyfakefs' `parent_obj`, whose guard ends in a `-> NoReturn` method's call), and a method's
first parameter is the instance whatever its name (mako's nested `def visitDefTag(s, node)`)."""

from __future__ import annotations

import pytest
from cpu_timing import best_cpu_s
from ctxops_code_scan.extract import extract

HEAD = "from typing import NoReturn\n\n\nclass K:\n    def m(self): ...\n\n\n"


def _m_types(body: str, head: str = HEAD) -> list[str | None]:
    src = (head + body).encode()
    return [r.receiver_type for r in extract(src, "g.py", "python").references if r.symbol_name == "m"]


@pytest.mark.parametrize("exit_", ["raise TypeError()", "return None", "return", "fail()", "self.fail(x)"])
def test_a_guard_that_never_falls_through_narrows_what_follows(exit_: str) -> None:
    body = (
        "def fail() -> NoReturn:\n    raise ValueError()\n\n\n"
        "class H:\n    def fail(self, x) -> 'NoReturn':\n        raise ValueError(x)\n\n"
        f"    def f(self, x):\n        if not isinstance(x, K):\n            {exit_}\n        x.m()\n"
    )
    assert _m_types(body) == ["K"]


def test_a_guard_in_a_loop_narrows_after_continue_and_break() -> None:
    body = "def f(xs):\n    for x in xs:\n        if not isinstance(x, K):\n            continue\n        x.m()\n"
    assert _m_types(body) == ["K"]
    body = "def f(xs):\n    for x in xs:\n        if not (isinstance(x, K)):\n            break\n        x.m()\n"
    assert _m_types(body) == ["K"]


@pytest.mark.parametrize(
    "body",
    [
        # the branch falls through: x may be anything after it
        "def f(x):\n    if not isinstance(x, K):\n        print(x)\n    x.m()\n",
        # an `else` (or `elif`) runs instead: no guard
        "def f(x):\n    if not isinstance(x, K):\n        return\n    else:\n        pass\n    x.m()\n",
        "def f(x, y):\n    if not isinstance(x, K):\n        return\n    elif y:\n        pass\n    x.m()\n",
        # x is bound again in the block: the guard's reading is not the one reaching the call
        "def f(x):\n    if not isinstance(x, K):\n        raise TypeError()\n    x = make()\n    x.m()\n",
        # a plain condition, or `not` of something else
        "def f(x):\n    if isinstance(x, K):\n        return\n    x.m()\n",
        "def f(x):\n    if not isinstance(x, K) or x:\n        return\n    x.m()\n",
        # a function the file does not state `-> NoReturn` (one of its two definitions does not)
        "def fail() -> NoReturn:\n    raise ValueError()\n\n\nclass H:\n    def fail(self):\n        pass\n\n"
        "    def f(self, x):\n        if not isinstance(x, K):\n            self.fail()\n        x.m()\n",
        # a call that is not a statement of its own, and an undefined function
        "def fail() -> NoReturn:\n    raise ValueError()\n\n\n"
        "def f(x):\n    if not isinstance(x, K):\n        y = fail()\n    x.m()\n",
        "def f(x):\n    if not isinstance(x, K):\n        fail()\n    x.m()\n",
    ],
)
def test_no_guard_no_narrowing(body: str) -> None:
    assert _m_types(body)[-1] != "K"


def test_the_guard_body_itself_is_not_narrowed() -> None:
    body = "def f(x):\n    if not isinstance(x, K):\n        x.m()\n        raise TypeError()\n"
    assert _m_types(body) == [None]


def test_a_method_first_parameter_under_any_name_is_the_instance() -> None:
    src = b"""class K:
    def m(s):
        s.n()
        s.x = K()
        s.x.n()

    @staticmethod
    def st(s):
        s.n()

    @classmethod
    def made(klass):
        klass.n()

    def n(self):
        def inner(s):
            s.n()
"""
    got = [
        (r.line, r.qualifier, r.receiver_type)
        for r in extract(src, "s.py", "python").references
        if r.symbol_name == "n"
    ]
    assert got == [(3, "self", None), (5, "self.x", "=K"), (9, "s", None), (13, "self", None), (17, "s", None)]


def test_guards_and_no_return_functions_extract_in_linear_time() -> None:
    def guards(n: int) -> bytes:
        lines = [HEAD, "def f(" + ", ".join(f"x{i}" for i in range(n)) + "):\n"]
        for i in range(n):
            lines.append(f"    if not isinstance(x{i}, K):\n        fail{i % 7}()\n    x{i}.m()\n")
        lines.extend(f"def fail{i}() -> NoReturn:\n    raise ValueError()\n" for i in range(7))
        return "".join(lines).encode()

    def no_returns(n: int) -> bytes:
        defs = "".join(f"def fail{i}() -> NoReturn:\n    raise ValueError()\n" for i in range(n))
        calls = "".join(f"    if not isinstance(x, K):\n        fail{i}()\n" for i in range(n))
        return (HEAD + defs + "def f(x):\n" + calls + "    x.m()\n").encode()

    for make in (guards, no_returns):
        small, large = make(250), make(4000)
        assert _last_m(small) == "K" and _last_m(large) == "K"
        t_small = best_cpu_s(lambda src=small: extract(src, "g.py", "python"))
        t_large = best_cpu_s(lambda src=large: extract(src, "g.py", "python"))
        assert t_large < 64 * max(t_small, 1e-3), (make.__name__, t_small, t_large)


def _last_m(src: bytes) -> str | None:
    return [r.receiver_type for r in extract(src, "g.py", "python").references if r.symbol_name == "m"][-1]


def test_a_binding_before_the_assert_or_guard_does_not_undo_it() -> None:
    """pyfakefs' `parent_obj = self.resolve(...)` then the guard: only a binding between the narrowing and the
    call undoes it."""
    body = "def f():\n    x = make()\n    assert isinstance(x, K)\n    x.m()\n"
    assert _m_types(body) == ["K"]
    body = (
        "def f():\n    x = make()\n    if not isinstance(x, K):\n        raise TypeError()\n    x.m()\n"
        "    x = make()\n    x.m()\n"
    )
    assert _m_types(body) == ["K", "=make"]  # (the second: the assignment reaching it)
    body = "def f(xs):\n    x = make()\n    assert isinstance(x, K)\n    for y in xs:\n        x.m()\n        x = y\n"
    assert _m_types(body) == [None]  # (the loop brings `x = y` back to the call)


def test_an_alias_of_a_module_member_class_is_a_class_row() -> None:
    src = b"from pyfakefs import fake_file\n\nFakeFile = fake_file.FakeFile\nvalue = fake_file.helper\n"
    rows = extract(src, "f.py", "python").types
    assert (None, "FakeFile", "^fake_file.FakeFile") in rows
    assert not [r for r in rows if r[1] == "value"]  # (a lower-case member: a value, not a class alias)
