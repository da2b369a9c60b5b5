"""Values a checker types by joining two arms (issue 24 item 1, session 17): `a or b`, `x if c else y`. Only
one level of arms is read (no recursion), so a long `or` chain or a long chain of conditionals extracts in
linear time; the graph-level answers are code-graph's tests/test_python_unions.py."""

from __future__ import annotations

from cpu_timing import best_cpu_s
from ctxops_code_scan.extract import extract


def _receivers(src: str, name: str) -> list[str | None]:
    out = extract(src.encode(), "mod.py", "python")
    return [r.receiver_type for r in out.references if r.symbol_name == name]


def test_arms_of_one_class_type_the_receiver() -> None:
    src = (
        "from lib import Field, Other\n\n\n"
        "def use(f, flag):\n"
        "    a = Field(f) if not isinstance(f, Field) else f\n"
        "    a.one()\n"
        "    b = Field(f) if flag else None\n"
        "    b.two()\n"
        "    c = Field(f) if flag else Other(f)\n"
        "    c.three()\n"
        "    d = None or Field(f)\n"
        "    d.four()\n"
    )
    assert _receivers(src, "one") == ["Field"]
    assert _receivers(src, "two") == ["=Field"]
    assert _receivers(src, "three") == [None]
    assert _receivers(src, "four") == ["=Field"]


def _best(src: str, name: str) -> float:
    assert _receivers(src, name) == [None]
    return best_cpu_s(lambda: _receivers(src, name))


def test_a_long_or_chain_extracts_linearly() -> None:
    def source(n: int) -> str:
        return "from lib import Word\n\n\ndef use(x):\n    g = " + " or ".join(["x"] * n) + "\n    g.parse()\n"

    # 16x the terms: linear is ~16x, quadratic ~256x
    assert _best(source(10_000), "parse") < 64 * _best(source(625), "parse")


def test_a_long_conditional_chain_extracts_linearly() -> None:
    def source(n: int) -> str:
        arms = " else ".join(f"Word({i}) if x == {i}" for i in range(n))
        return f"from lib import Word, Other\n\n\ndef use(x):\n    g = {arms} else Other()\n    g.parse()\n"

    assert _best(source(4_000), "parse") < 64 * _best(source(250), "parse")
