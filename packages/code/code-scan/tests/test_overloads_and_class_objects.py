"""Session 15 (issue 24 item 1): what extraction writes for an overload's pick, a class object held by an
attribute and a class attribute's constructed value; the graph's reading is tested in code-graph's
test_python_code_map_iv.py."""

from __future__ import annotations

from cpu_timing import best_cpu_s
from ctxops_code_scan.extract import extract


def _receivers(src: str) -> dict[tuple[int, str], str | None]:
    out = extract(src.encode(), "mod.py", "python")
    return {(r.line, r.symbol_name): r.receiver_type for r in out.references if r.role == "call"}


def _rows(src: str) -> set[tuple[str | None, str | None, str]]:
    return set(extract(src.encode(), "mod.py", "python").types)


OVERLOADED = """from datetime import date, datetime, time
from typing import overload


class Time:
    pass


class Date:
    pass


@overload
def item(value: bool) -> Time: ...
@overload
def item(value: datetime) -> Time: ...
@overload
def item(value: date) -> Date: ...
@overload
def item(value: time) -> Time: ...
def item(value):
    return value


def use(a, b):
    x = item(time(1, 2))
    x.go()
    y = make(a)
    y = make(b)
    y.go()
    item(b"raw").go()
"""


def test_an_overload_row_per_known_argument_class() -> None:
    rows = {(name, expr) for owner, name, expr in _rows(OVERLOADED) if owner == "python mod.py item()."}
    assert ("?builtins:bool", "Time") in rows and ("?builtins:int", "Time") not in rows  # an int is no bool
    assert ("?datetime:datetime", "Time") in rows  # `datetime` is tried before `date`
    assert ("?datetime:date", "Date") in rows
    assert ("?datetime:time", "Time") in rows
    assert (None, "Time") not in rows  # the overloads disagree: no one result
    got = _receivers(OVERLOADED)
    assert got[(27, "go")] == "=item?datetime:time"
    # two calls of one function with different arguments are one value (the call without its argument)
    assert got[(30, "go")] == "=make"
    # bytes are no class the overloads decide (`bool`, `datetime`, `date`, `time` do not accept them, but
    # the walk ends without a match): the argument is written, the graph finds no row for it
    assert got[(31, "go")] == "=item?builtins:bytes"


CLASS_BODY = """from enum import Enum


class Manager:
    def get(self):
        return 1


class Spec:
    pass


class Contact:
    objects = Manager()
    factory = Manager


class Color(Enum):
    RED = Spec()
"""


def test_class_body_values_and_class_objects() -> None:
    rows = {(owner.rpartition(" ")[2] if owner else None, name, expr) for owner, name, expr in _rows(CLASS_BODY)}
    assert ("Contact#", "objects", "Manager") in rows  # a constructed class attribute
    assert ("Contact#", "factory()", "Manager") in rows  # calling the class object makes a Manager ...
    assert ("Contact#", "factory", "Manager") in rows  # ... and its members are Manager's
    assert not any(owner == "Color#" for owner, _, _ in rows)  # an enum's member is the enum, not a Spec


def test_overloads_extract_linearly() -> None:
    # A hostile module: n overloads of one function, each call's first argument a constructor
    def source(n: int) -> str:
        head = "from datetime import time\nfrom typing import overload\n\n\nclass K:\n    pass\n\n\n"
        defs = "".join(f"@overload\ndef f(v: C{i}) -> K: ...\n" for i in range(n))
        calls = "".join(f"    f(time({i})).go()\n    x{i} = f(time({i}))\n" for i in range(n))
        return head + defs + "def f(v):\n    return v\n\n\ndef use():\n" + calls

    def best(src: str) -> float:
        return best_cpu_s(lambda: extract(src.encode(), "mod.py", "python"))

    # 16x the lines: linear is ~16x, quadratic ~256x (tree-sitter alone grows a little faster than linear)
    assert best(source(1600)) < 64 * best(source(100))
