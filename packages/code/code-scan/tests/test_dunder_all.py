"""A module's `__all__` as the rows the graph reads for `from mod import *` (issue 24, session 17): literal
lists and tuples, `+` and `+=` of them and of another module's `__all__`; anything else is unknown (no row).
The `+` chain is walked without recursion, so a long one extracts in linear time."""

from __future__ import annotations

from cpu_timing import best_cpu_s
from ctxops_code_scan.extract import extract


def _all_rows(src: str) -> list[tuple[str | None, str | None, str]]:
    out = extract(src.encode(), "mod.py", "python")
    return [t for t in out.types if t[1] in ("*all", "*all*")]


def test_literal_lists_and_their_sums_are_read() -> None:
    src = "from . import other\n__all__ = ['a', \"b\"] + other.__all__\n__all__ += ('c',)\n"
    assert _all_rows(src) == [(None, "*all", "a"), (None, "*all", "b"), (None, "*all*", "other"), (None, "*all", "c")]
    assert _all_rows("__all__ = ['a']\n__all__ = ['b']\n") == [(None, "*all", "b")]  # rebound: the last one


def test_an_unreadable_all_gives_no_row() -> None:
    assert _all_rows("__all__ = lcat(m.__all__ for m in mods)\n") == []
    assert _all_rows("__all__ = ['a']\n__all__.extend(more)\n") == []
    assert _all_rows("__all__ = ['a']\nif flag:\n    __all__ += ['b']\n") == []
    assert _all_rows("__all__ = [f'a{x}']\n") == []
    assert _all_rows("__all__ = ['a'] - other\n") == []
    assert _all_rows("def f():\n    return 1\n") == []  # no `__all__`: the graph takes the public names


def _best(src: str) -> float:
    assert _all_rows(src)
    return best_cpu_s(lambda: _all_rows(src))


def test_a_long_sum_extracts_in_linear_time() -> None:
    def chain(n: int) -> str:
        return "__all__ = " + " + ".join(f"['n{i}']" for i in range(n)) + "\n"

    small, big = _best(chain(625)), _best(chain(10_000))
    assert big < 64 * max(small, 1e-3)  # 16x the input within 64x the time
