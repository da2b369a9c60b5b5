"""A function's value inferred from its `return`s (issue 24 item 1, session 18): the rows code-scan gives the
graph. A generator's call makes a generator (no row), save a pytest fixture's and a `@contextmanager`'s,
whose callers get what it yields; a stated result wins. Functions returning each other's results extract in
linear time (each result is one row the graph follows, at most MAX_ROUNDS hops); the graph-level answers are
code-graph's tests/test_python_inferred_returns.py."""

from __future__ import annotations

from cpu_timing import best_cpu_s
from ctxops_code_scan.extract import extract


def _results(src: str, path: str = "mod.py") -> dict[str, str]:
    out = extract(src.encode(), path, "python")
    return {owner.rsplit(" ", 1)[1]: expr for owner, name, expr in out.types if owner and name is None}


def test_a_generator_gives_no_result_but_a_fixture_and_a_context_manager_do() -> None:
    src = (
        "import contextlib\n"
        "import pytest\n"
        "from lib import Select\n\n\n"
        "def made(n):\n"
        "    return Select(n)\n\n\n"
        "def gen(n):\n"
        "    yield Select(n)\n"
        "    return Select(n)\n\n\n"
        "def gen_bare(n):\n"
        "    x = yield\n"
        "    return Select(x)\n\n\n"
        "def gen_from(n):\n"
        "    yield from n\n"
        "    return Select(n)\n\n\n"
        "@pytest.fixture\n"
        "def fixture_value():\n"
        "    yield Select(1)\n\n\n"
        "@contextlib.contextmanager\n"
        "def managed():\n"
        "    yield Select(1)\n\n\n"
        "def outer():\n"
        "    def inner():\n"
        "        yield 1\n"
        "    return Select(inner)\n"
    )
    assert _results(src, "tests/test_mod.py") == {
        "made().": "=Select",
        "fixture_value().": "=Select",
        "managed().": "=Select",
        "outer().": "=Select",  # (the nested function is the generator, not outer)
    }


def test_a_local_made_by_a_capitalised_call_is_the_call_s_value() -> None:
    # `d = PaddedString(...)`: `=PaddedString`, which the graph reads as a class's instance or a function's result
    src = "from lib import PaddedString\n\n\ndef use():\n    d = PaddedString(5)\n    d.build(1)\n"
    out = extract(src.encode(), "mod.py", "python")
    assert [r.receiver_type for r in out.references if r.symbol_name == "build"] == ["=PaddedString"]


def _best(src: str) -> float:
    return best_cpu_s(lambda: extract(src.encode(), "mod.py", "python"))


def test_functions_returning_each_other_s_results_extract_linearly() -> None:
    def source(n: int) -> str:
        fns = "".join(f"def f{i}(x):\n    y = f{(i + 1) % n}(x)\n    y.m()\n    return y\n\n\n" for i in range(n))
        return "class K:\n    def m(self):\n        return K()\n\n\n" + fns

    # 16x the functions: linear is ~16x, quadratic ~256x
    assert _best(source(4_000)) < 64 * _best(source(250))


def test_a_parameter_shadows_a_module_alias() -> None:
    # a package `__init__` gets its submodule `loader` bound (`from .loader import *`); a parameter `loader` is
    # the caller's value, not the module (unittest's `def load_tests(loader, tests, pattern)`)
    src = (
        "from .loader import *\n\n\n"
        "def load_tests(loader, tests):\n"
        "    return loader.discover(tests)\n\n\n"
        "def use():\n"
        "    return loader.TestLoader()\n"
    )
    assert _results(src, "pkg/__init__.py") == {"use().": "=loader.TestLoader"}
