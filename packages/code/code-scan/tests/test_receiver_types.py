"""Receiver types of Python calls: what a file states through annotations and constructor calls."""

from __future__ import annotations

import pytest
from ctxops_code_scan.extract import extract
from ctxops_code_scan.receiver_types import plain_type

SOURCE = b"""
from typing import Optional


class Holder:
    machine: OrderStateMachine
    other: "Optional[Thing]"
    many: list[Thing]

    def go(self):
        self.machine.transition()
        self.given.transition()
        self.built.transition()
        self.noted.transition()
        self.other.transition()
        self.many.transition()

    def __init__(self, given: OrderStateMachine, w: int) -> None:
        self.given = given
        self.built = Thing(w)
        self.noted: OrderStateMachine | None = None
        self.plain = w


def f(machine: OrderStateMachine, h: Holder, u, n: int = 0):
    machine.transition()
    h.machine.transition()
    h.a.b.transition()
    u.transition()
    n.bit_length()
    loc = OrderStateMachine()
    loc.transition()
    twice = A()
    twice = B()
    twice.transition()
"""


def test_receiver_types_of_calls() -> None:
    refs = extract(SOURCE, "m.py", "python").references
    got = {(r.line, r.qualifier): r.receiver_type for r in refs if r.role == "call" and r.qualifier}
    assert got == {
        (11, "self.machine"): "OrderStateMachine",  # class-level annotated field
        (12, "self.given"): "OrderStateMachine",  # __init__ attribute from an annotated parameter (defined below)
        (13, "self.built"): "Thing",  # __init__ attribute from a constructor call
        (14, "self.noted"): "OrderStateMachine",  # annotated attribute, X | None
        (15, "self.other"): "Thing",  # "Optional[Thing]"
        (16, "self.many"): "Self#many",  # not settled here (a generic): left to the graph, which finds no class
        (26, "machine"): "OrderStateMachine",
        (27, "h.machine"): "Holder#machine",  # the field is looked up in Holder by the code graph
        (28, "h.a.b"): "Holder#a#b",  # two hops: the graph follows them (type_exprs.py)
        (29, "u"): None,
        (30, "n"): "int",  # kept as written; the graph keeps only names that are classes of the repository
        (32, "loc"): "OrderStateMachine",
        (35, "twice"): None,  # bound to two different types
    }


def test_other_languages_have_no_receiver_types() -> None:
    refs = extract(b"function f(m) { m.transition(); }\n", "a.js", "javascript").references
    assert [r.receiver_type for r in refs] == [None]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("X", "X"),
        ("mod.X", "mod.X"),
        ('"X"', "X"),
        ("Optional[X]", "X"),
        ("typing.Optional['X']", "X"),
        ("X | None", "X"),
        ("None | X", "X"),
        ("X | Y", None),
        ("list[X]", None),
        ("None", None),
        ("a.b.C", None),
    ],
)
def test_plain_type(text: str, expected: str | None) -> None:
    assert plain_type(text) == expected
