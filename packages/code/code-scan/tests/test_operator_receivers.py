"""Session 16 (issue 24 item 1): what extraction writes for a receiver built by an operator (its dunder's
call); the graph's reading is tested in code-graph's test_python_operators.py."""

from __future__ import annotations

from cpu_timing import best_cpu_s
from ctxops_code_scan.extract import extract


def _receivers(src: str) -> dict[tuple[int, str], str | None]:
    out = extract(src.encode(), "mod.py", "python")
    return {(r.line, r.symbol_name): r.receiver_type for r in out.references if r.role == "call"}


OPERATORS = """from lib import Word, Vec


def use(v: Vec, w: Vec):
    (v + w).norm()
    (v - 1).norm()
    (2 * v).norm()
    (-v).norm()
    (v < w).check()
    ("," + Word("a")).parse()
    ("%s" % v).norm()
    (1 == v).check()
    ("a" + "b").upper()
    (v < w < v).check()
    (v[1, ...] | w).norm()
    g = Word("a") + "," + Word("b")
    g.parse()
"""


def test_an_operator_is_its_dunders_call() -> None:
    got = _receivers(OPERATORS)
    assert got[(5, "norm")] == "Vec#__add__()"
    assert got[(6, "norm")] == "Vec#__sub__()"
    assert got[(7, "norm")] == "Vec#__rmul__()"  # an int on the left: the right operand's reflected dunder
    assert got[(8, "norm")] == "Vec#__neg__()"
    assert got[(9, "check")] == "Vec#__lt__()"
    assert got[(10, "parse")] == "=Word#__radd__()"
    assert got[(15, "norm")] == "Vec#__getitem__()#__or__()"
    assert got[(17, "parse")] == "=Word#__add__()#__add__()"
    # a str formats anything (`%`), a builtin's `==` takes any object, two literals, `a < b < c`: no type
    for line, name in ((11, "norm"), (12, "check"), (13, "upper"), (14, "check")):
        assert got.get((line, name)) is None


def test_a_long_operator_chain_extracts_linearly() -> None:
    # `a + b + c + ...`: tree-sitter nests it to the left as deep as it is long; the receiver's walk stops
    # after MAX_STEPS, with no recursion (no recursion-depth crash) and no pass over the chain per term
    def source(n: int) -> str:
        return "from lib import Word\n\n\ndef use():\n    g = " + " + ".join(["Word('a')"] * n) + "\n    g.parse()\n"

    def best(src: str) -> float:
        out = extract(src.encode(), "mod.py", "python")
        assert [r.receiver_type for r in out.references if r.symbol_name == "parse"] == [None]
        return best_cpu_s(lambda: extract(src.encode(), "mod.py", "python"))

    # 16x the terms: linear is ~16x, quadratic ~256x
    assert best(source(10_000)) < 64 * best(source(625))
