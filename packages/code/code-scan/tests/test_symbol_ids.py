"""Symbol ids: duplicates numbered in order, and read back to the name's first definition."""

from __future__ import annotations

import pytest
from ctxops_code_scan.symbol_ids import IdAllocator, first_definition


def test_duplicates_are_numbered_and_read_back_to_the_first() -> None:
    ids = IdAllocator("typescript", "lib.ts")
    overloads = [ids.allocate("pick", "function") for _ in range(3)]
    assert overloads == ["typescript lib.ts pick().", "typescript lib.ts pick(+1).", "typescript lib.ts pick(+2)."]
    assert {first_definition(i) for i in overloads} == {"typescript lib.ts pick()."}
    classes = [ids.allocate("K", "class"), ids.allocate("K", "class")]
    assert [first_definition(i) for i in classes] == ["typescript lib.ts K#", "typescript lib.ts K#"]


@pytest.mark.parametrize(
    "plain",
    ["python a.py f().", "python a.py K#", "python `a b.py` g().", "python a.py x.", "go m.go T.M()."],
)
def test_an_id_without_a_duplicate_marker_is_its_own_first(plain: str) -> None:
    assert first_definition(plain) == plain
