"""A function's tuple result, item by item (issue 24 item 1, session 21): the `[i]` rows code-scan gives the
graph, stated (`-> tuple[A, B]`) or returned (every `return` a tuple literal of one length), and `a, b = f()`
read as f's `[0]` and `[1]`. The graph-level answers are code-graph's tests/test_python_tuple_items.py."""

from __future__ import annotations

from cpu_timing import best_cpu_s
from ctxops_code_scan.extract import extract

SRC = """from typing import Tuple
from lib import A, B


def stated() -> tuple[A, B]:
    return make()


def returned(x):
    if x:
        return A(1), B(2)
    return A(3), B(4)


def mixed(x):
    if x:
        return A(1), B(2)
    return B(3), B(4)


def lengths(x):
    if x:
        return A(1), B(2)
    return A(1), B(2), B(3)


def starred(x):
    return A(1), *x


def open_ended() -> tuple[A, ...]:
    return make()


def annotated() -> object:
    return A(1), B(2)


async def later() -> tuple[A, B]:
    return A(1), B(2)


class K:
    def pair(self) -> Tuple["A", B]:
        return make()

    def use(self):
        p, q = self.pair()
        p.run()


a, a_end = stated()
a.go()
"""


def _items() -> dict[str, dict[str, str]]:
    out = extract(SRC.encode(), "mod.py", "python")
    found: dict[str, dict[str, str]] = {}
    for owner, name, expr in out.types:
        if owner and name and name.startswith("["):
            found.setdefault(owner.rsplit(" ", 1)[1], {})[name] = expr
    return found


def test_stated_and_returned_tuples_give_a_row_per_item() -> None:
    assert _items() == {
        "stated().": {"[0]": "A", "[1]": "B"},
        "returned().": {"[0]": "=A", "[1]": "=B"},
        "mixed().": {"[1]": "=B"},  # (the first item is an A or a B)
        "K.pair().": {"[0]": "A", "[1]": "B"},
    }


def test_names_unpacked_from_a_call_read_its_items() -> None:
    out = extract(SRC.encode(), "mod.py", "python")
    assert {name: expr for owner, name, expr in out.types if owner is None} == {
        "a": "=stated#[0]",
        "a_end": "=stated#[1]",
    }
    got = {r.symbol_name: r.receiver_type for r in out.references if r.symbol_name in ("run", "go")}
    assert got == {"run": "Self#pair()#[0]", "go": "=stated#[0]"}


def _best(src: str) -> float:
    return best_cpu_s(lambda: extract(src.encode(), "mod.py", "python"))


def test_many_names_and_items_extract_linearly() -> None:
    def source(n: int) -> str:
        names = ", ".join(f"a{i}" for i in range(n))
        items = ", ".join(f"A({i})" for i in range(n))
        return (
            f"from lib import A\n\n\ndef f():\n    return {items}\n\n\n{names} = f()\n\n\ndef g():\n    {names} = f()\n"
        )

    # 16x the names and items: linear is ~16x, quadratic ~256x
    assert _best(source(4_000)) < 64 * _best(source(250))
