"""Two steps of bottle's `self.app = bottle.app.push()` (issue 24, session 19): a chained assignment binds every
target to the last value (`apps = app = default_app = AppStack()`), and a method returning a parameter
narrowed by `if not isinstance(value, K): value = K()` returns a K. Only that exact shape; a long chain of
targets is read only so far (linear)."""

from __future__ import annotations

from cpu_timing import best_cpu_s
from ctxops_code_scan.extract import extract


def _rows(src: str) -> dict[tuple[str | None, str | None], str]:
    return {(owner, name): expr for owner, name, expr in extract(src.encode(), "mod.py", "python").types}


def test_every_target_of_a_chained_assignment_is_bound() -> None:
    rows = _rows("from lib import Stack\n\napps = app = default_app = Stack()\n")
    assert rows[(None, "apps")] == rows[(None, "app")] == rows[(None, "default_app")] == "=Stack"


def test_a_chained_local_is_bound() -> None:
    src = "from lib import Stack\n\n\ndef use():\n    a = b = Stack()\n    a.push()\n"
    out = extract(src.encode(), "mod.py", "python")
    assert [r.receiver_type for r in out.references if r.symbol_name == "push"] == ["=Stack"]


SHAPES = """from lib import Bottle, Other


class Stack:
    def push(self, value=None):
        if not isinstance(value, Bottle):
            value = Bottle()
        self.append(value)
        return value

    def other_class(self, value=None):
        if not isinstance(value, Bottle):
            value = Other()
        return value

    def with_else(self, value=None):
        if not isinstance(value, Bottle):
            value = Bottle()
        else:
            value = value.copy()
        return value

    def rebound_after(self, value=None):
        if not isinstance(value, Bottle):
            value = Bottle()
        value = value.copy()
        return value

    def narrowed_the_other_way(self, value=None):
        if isinstance(value, Bottle):
            value = Bottle()
        return value
"""


def test_a_parameter_narrowed_then_returned_is_the_class() -> None:
    rows = _rows(SHAPES)
    assert rows[("python mod.py Stack.push().", None)] == "Bottle"
    for other in ("other_class", "with_else", "rebound_after", "narrowed_the_other_way"):
        assert rows.get((f"python mod.py Stack.{other}().", None)) != "Bottle", other


def _best(src: str) -> float:
    return best_cpu_s(lambda: extract(src.encode(), "mod.py", "python"))


def test_a_long_chain_of_targets_extracts_linearly() -> None:
    def source(n: int) -> str:
        return "from lib import Stack\n\n" + " = ".join(f"a{i}" for i in range(n)) + " = Stack()\na0.push()\n"

    # 16x the targets: linear is ~16x, quadratic ~256x
    assert _best(source(4_000)) < 64 * _best(source(250))


def test_tuple_unpacking_of_as_many_values_pairs_them() -> None:
    # boltons' `bx, by = BufferedSocket(x), BufferedSocket(y)`; a star gives nothing
    src = (
        "from lib import BufferedSocket, Other\n\n\n"
        "def use(x, y):\n"
        "    bx, by = BufferedSocket(x), Other(y)\n"
        "    bx.one()\n"
        "    by.two()\n"
        "    e, *f = BufferedSocket(x), Other()\n"
        "    e.three()\n"
        "    g, h = pair()\n"
        "    g.four()\n"
    )
    out = extract(src.encode(), "mod.py", "python")
    got = {r.symbol_name: r.receiver_type for r in out.references if r.qualifier}
    assert got["one"] == "=BufferedSocket"
    assert got["two"] == "=Other"
    assert got["three"] is None
    # (a call's tuple: the item at the name's position of what `pair` states or returns, its `[0]` row, session 21)
    assert got["four"] == "=pair#[0]"
