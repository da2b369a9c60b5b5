"""A generic identity (issue 24 item 1, session 22): `def replaced_by_pep8(name, fn: C) -> C`, C a TypeVar, has
the row `=arg` (1: its result is its argument at position 1); `countedArray = replaced_by_pep8("countedArray",
counted_array)` the row `=countedArray` (`replaced_by_pep8(1)counted_array`), which the graph joins
(code-graph's tests/test_python_generic_identity.py)."""

from __future__ import annotations

from cpu_timing import best_cpu_s
from ctxops_code_scan.extract import extract

UTIL = """from typing import Callable, TypeVar
import typing

C = TypeVar("C", bound=Callable)
D = typing.TypeVar("D")
NotTv = Callable


def replaced_by_pep8(compat_name: str, fn: C) -> C:
    return fn


def quoted(fn: "D", /) -> "D":
    return fn


def pep695[T](a, b: int, fn: T) -> T:
    return fn


def callable_result(name: str, fn: C) -> Callable:
    return fn


def two(a: C, b: C) -> C:
    return a


def listed(fn: list[C]) -> C:
    return fn[0]


def keyword_only(*, fn: C) -> C:
    return fn


def not_a_typevar(fn: NotTv) -> NotTv:
    return fn


def redefined(fn: C) -> C:
    return fn


def redefined(fn: C) -> C:
    return fn


class K:
    def method(self, fn: C) -> C:
        return fn
"""


def _identities(src: str) -> dict[str, str]:
    out = extract(src.encode(), "util.py", "python")
    return {owner.rsplit(" ", 1)[1]: expr for owner, name, expr in out.types if owner and name == "=arg"}


def test_a_result_exactly_the_type_of_one_parameter_is_an_identity() -> None:
    got = _identities(UTIL)
    assert got == {"replaced_by_pep8().": "1", "quoted().": "0", "pep695().": "2"}


HELPERS = """from pp.util import replaced_by_pep8


def counted_array(expr):
    return expr


countedArray = replaced_by_pep8("countedArray", counted_array)
twice = replaced_by_pep8("twice", counted_array)
twice = replaced_by_pep8("twice", other)
starred = replaced_by_pep8(*names, counted_array)
stated: object = replaced_by_pep8("stated", counted_array)
rebound_arg = replaced_by_pep8("r", value)
value = 3


class P:
    def parse_string(self, s):
        return s

    parseString = replaced_by_pep8("parseString", parse_string)
    # (bound twice in the body)
    scanString = replaced_by_pep8("scanString", parse_string)
    scanString = parse_string
"""


def test_a_name_bound_once_to_a_call_names_what_it_passes() -> None:
    out = extract(HELPERS.encode(), "helpers.py", "python")
    got = {(owner, name, expr) for owner, name, expr in out.types if name and name.startswith("=") and "(" in expr}
    assert got == {
        (None, "=countedArray", "replaced_by_pep8(1)counted_array"),
        ("python helpers.py P#", "=parseString", "replaced_by_pep8(1)parse_string"),
    }


def _best(n: int) -> float:
    defs = "".join(f"def f{i}(a, b: C, c=1, *d, e: C = 2) -> C:\n    return b\n\n" for i in range(n))
    calls = "".join(f"x{i} = f{i}('a', g{i}, h{i}, k{i})\n" for i in range(n))
    src = "from typing import TypeVar\nC = TypeVar('C')\n" + defs + calls
    return best_cpu_s(lambda: extract(src.encode(), "mod.py", "python"))


def test_many_identities_and_calls_extract_linearly() -> None:
    assert _best(4_000) < 64 * _best(250)  # 16x the statements: linear is ~16x, quadratic ~256x
